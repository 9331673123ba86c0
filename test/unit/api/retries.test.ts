import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KbClient } from '../../../src/api/client.js';
import { ApiError, OutcomeUnknownError } from '../../../src/api/errors.js';
import { asBlockId, asCreationNodeId, asDocKey, asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { RequestQueue } from '../../../src/queue/request-queue.js';
import { FakeClock } from '../queue/fake-clock.js';
import { OPERATOR, TOKEN, clientFor, node, startFakeService, type Reply } from './fake-service.js';

const ws = asWorkspaceId('ws1');
const created = { dentryUuid: 'd1', docKey: 'd1', nodeId: 'c1', workspaceId: 'ws1', url: 'http://kb/d1' };

/** Answers `script[i]` to the i-th request, then `last` for every later one. */
const scripted = (script: readonly Reply[], last: Reply) => (_: unknown, i: number) => script[i] ?? last;

void describe('throttling is waited out for every call, never a failure', () => {
  void test('429 with Retry-After: the endpoint pauses that long, then the call succeeds', async (t) => {
    const service = await startFakeService(scripted([{ status: 429, headers: { 'retry-after': '3' }, json: {} }], { json: { node: node('n1') } }));
    t.after(() => service.close());
    const client = clientFor(service);
    const pauses: number[] = [];
    client.queue.on('throttle', (e) => pauses.push(e.pauseMs));
    const result = await client.getNode(asTreeNodeId('n1'));
    assert.equal(result.treeNodeId, 'n1');
    assert.deepEqual(pauses, [3000]);
    assert.deepEqual({ ...client.queue.stats().endpoints['getNode'], rate: 0 }, { calls: 2, throttled: 1, retries: 1, failures: 0, rate: 0 });
  });

  void test('429 without Retry-After waits the contract minimum of 1 s', async (t) => {
    const service = await startFakeService(scripted([{ status: 429, json: {} }, { status: 429, headers: { 'retry-after': '0' }, json: {} }], { json: { node: node('n1') } }));
    t.after(() => service.close());
    const client = clientFor(service);
    const pauses: number[] = [];
    client.queue.on('throttle', (e) => pauses.push(e.pauseMs));
    await client.getNode(asTreeNodeId('n1'));
    assert.deepEqual(pauses, [1000, 1000]);
  });

  void test('403 QpsLimit is throttling too, even for a create (a throttled call was not executed)', async (t) => {
    const qps = { status: 403, json: { code: 'Forbidden.AccessDenied.QpsLimitForAppkeyAndApi', message: 'qps' } };
    const service = await startFakeService(scripted([qps, { ...qps, json: { code: 'Forbidden.AccessDenied.QpsLimitForApi' } }], { json: created }));
    t.after(() => service.close());
    const client = clientFor(service);
    const doc = await client.createDocument(ws, { name: 'a' });
    assert.equal(doc.nodeId, 'c1');
    assert.equal(service.requests.length, 3);
    assert.equal(client.queue.stats().endpoints['createDocument']?.throttled, 2);
  });

  void test('endless throttling ends as API_THROTTLED after the configured number of waits', async (t) => {
    const service = await startFakeService(() => ({ status: 429, json: {} }));
    t.after(() => service.close());
    const client = clientFor(service, { retry: { maxThrottles: 3 } });
    await assert.rejects(client.getNode(asTreeNodeId('n')), (e: unknown) => e instanceof ApiError && e.code === 'API_THROTTLED');
    assert.equal(service.requests.length, 4);
  });
});

void describe('transient failures: repeat only what is safe to repeat', () => {
  void test('5xx then reset on a read: retried with backoff until it succeeds', async (t) => {
    const service = await startFakeService(scripted([{ status: 500, json: { code: 'InternalError' } }, 'reset'], { json: { node: node('n1') } }));
    t.after(() => service.close());
    const client = clientFor(service);
    await client.getNode(asTreeNodeId('n1'));
    assert.equal(service.requests.length, 3);
    assert.deepEqual({ ...client.queue.stats().totals }, { calls: 3, throttled: 0, retries: 2, failures: 0 });
  });

  void test('a repeatable call gives up after 4 attempts in all', async (t) => {
    const service = await startFakeService(() => 'reset');
    t.after(() => service.close());
    const client = clientFor(service);
    await assert.rejects(client.readBlocks(asDocKey('d')), (e: unknown) => e instanceof ApiError && e.code === 'API_NETWORK');
    assert.equal(service.requests.length, 4);
    assert.equal(client.queue.stats().totals.failures, 1);
  });

  for (const [name, reply] of [
    ['a reset', 'reset'],
    ['a 500', { status: 500, json: { code: 'InternalError' } }],
  ] as const) {
    void test(`${name} on create, append or add members: OutcomeUnknownError, sent exactly once`, async (t) => {
      const service = await startFakeService(() => reply);
      t.after(() => service.close());
      const client = clientFor(service);
      const calls = [
        client.createDocument(ws, { name: 'a' }),
        client.appendText(asDocKey('d1'), asBlockId('b1'), 'more'),
        client.addMembers(ws, asCreationNodeId('c1'), [{ userId: 'u1' as never, role: 'viewer' }]),
      ];
      for (const call of calls) await assert.rejects(call, (e: unknown) => e instanceof OutcomeUnknownError && e.code === 'API_OUTCOME_UNKNOWN');
      assert.equal(service.requests.length, 3);
    });
  }

  void test('a timeout on create is an unknown outcome, not a retry', async (t) => {
    // The answer comes long after the client gives up, and the client waits long enough for its request to have
    // reached the service on a loaded machine (with 50 ms it once gave up before the service had seen it).
    const service = await startFakeService(() => ({ json: created, delayMs: 3000 }));
    t.after(() => service.close());
    const client = clientFor(service, { timeoutMs: 1000 });
    await assert.rejects(client.createDocument(ws, { name: 'a' }), OutcomeUnknownError);
    assert.equal(service.requests.length, 1);
  });

  void test('a 2xx create whose answer is unreadable is an unknown outcome (it was executed)', async (t) => {
    const service = await startFakeService(() => ({ text: '<html>oops</html>' }));
    t.after(() => service.close());
    const client = clientFor(service);
    await assert.rejects(client.createDocument(ws, { name: 'a' }), OutcomeUnknownError);
  });

  void test('a refused connection never reached the service: even a create is retried, then API_NETWORK', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const queue = new RequestQueue({ clock: new FakeClock() });
    const client = new KbClient({ baseUrl: `http://127.0.0.1:${port}`, token: { get: async () => TOKEN }, operatorId: OPERATOR, queue });
    await assert.rejects(client.createDocument(ws, { name: 'a' }), (e: unknown) => e instanceof ApiError && e.code === 'API_NETWORK' && /ECONNREFUSED/.test(e.message));
    assert.equal(queue.stats().totals.calls, 4);
  });

  void test('delete: "not found" on a retry means the first attempt deleted it', async (t) => {
    const service = await startFakeService(scripted(['reset'], { status: 404, json: { code: 'nodeNotExist' } }));
    t.after(() => service.close());
    const client = clientFor(service);
    await client.deleteDocument(ws, asCreationNodeId('c1'));
    assert.equal(service.requests.length, 2);
  });

  void test('delete: "not found" on the first attempt is reported', async (t) => {
    const service = await startFakeService(() => ({ status: 404, json: { code: 'nodeNotExist' } }));
    t.after(() => service.close());
    await assert.rejects(clientFor(service).deleteDocument(ws, asCreationNodeId('c1')), (e: unknown) => e instanceof ApiError && e.code === 'API_NOT_FOUND');
  });

  void test('other 4xx answers are not retried', async (t) => {
    const service = await startFakeService(() => ({ status: 400, json: { code: 'paramError' } }));
    t.after(() => service.close());
    await assert.rejects(clientFor(service).overwrite(asDocKey('d'), 'x'), ApiError);
    assert.equal(service.requests.length, 1);
  });
});

void describe('token refresh on 401', () => {
  void test('refreshes once and retries with the new token', async (t) => {
    const service = await startFakeService((request) => (request.headers['x-acs-service-access-token'] === 'new-token-abcdefgh' ? { json: { node: node('n1') } } : { status: 401, json: {} }));
    t.after(() => service.close());
    let refreshes = 0;
    const client = clientFor(service, { token: { get: async () => 'old-token-abcdefgh', refresh: async () => (refreshes++, 'new-token-abcdefgh') } });
    await client.getNode(asTreeNodeId('n1'));
    assert.equal(refreshes, 1);
    assert.equal(service.requests.length, 2);
  });

  void test('a second 401 after the refresh is API_UNAUTHORIZED (refreshed only once)', async (t) => {
    const service = await startFakeService(() => ({ status: 401, json: { code: 'InvalidAuthentication' } }));
    t.after(() => service.close());
    let refreshes = 0;
    const client = clientFor(service, { token: { get: async () => TOKEN, refresh: async () => (refreshes++, TOKEN) } });
    await assert.rejects(client.createDocument(ws, { name: 'a' }), (e: unknown) => e instanceof ApiError && e.code === 'API_UNAUTHORIZED');
    assert.equal(refreshes, 1);
    assert.equal(service.requests.length, 2);
  });
});
