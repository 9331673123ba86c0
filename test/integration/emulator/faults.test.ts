import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFaultSpec, startEmulator } from '../../../src/emulator/index.js';
import { call, withEmulator, type RunningEmulator } from '../../helpers/emulator.js';

const createBody = (em: RunningEmulator, name: string) => ({ body: { operatorId: em.seed.operatorId, docType: 'DOC', name } });
const createPath = (em: RunningEmulator) => `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs`;
const docTitles = (em: RunningEmulator) => em.admin.dump().nodes.filter((n) => n.docType === 'DOC').map((n) => n.title);

describe('emulator: injected faults', () => {
  test('reset: the connection dies before any work is done', () =>
    withEmulator(
      async (em) => {
        await assert.rejects(call(em, 'POST', createPath(em), createBody(em, 'lost')));
        assert.deepEqual(docTitles(em), []);
        assert.equal(em.admin.calls().faultsByKind.reset, 1);
        const list = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
        assert.equal(list.status, 200, 'only= keeps other endpoints healthy');
      },
      { faults: 'reset=1,only=createDocument' },
    ));

  test('drop: the work is done but the answer is lost', () =>
    withEmulator(
      async (em) => {
        await assert.rejects(call(em, 'POST', createPath(em), createBody(em, 'created anyway')));
        assert.deepEqual(docTitles(em), ['created anyway']);
        assert.equal(em.admin.calls().faultsByKind.drop, 1);
        assert.equal(em.admin.calls().byEndpoint.createDocument.faults, 1);
      },
      { faults: { drop: 1, only: ['createDocument'] } },
    ));

  test('5xx, 429 storm and qps403 answer without doing the work', () =>
    withEmulator(async (em) => {
      em.admin.setFaults('5xx=1');
      const server = await call(em, 'POST', createPath(em), createBody(em, 'a'));
      assert.equal(server.status, 500);
      assert.equal(server.body.code, 'InternalError');
      em.admin.setFaults('429=1');
      const storm = await call(em, 'POST', createPath(em), createBody(em, 'b'));
      assert.equal(storm.status, 429);
      assert.equal(storm.body.code, undefined);
      em.admin.setFaults({ qps403: 1 });
      const qps = await call(em, 'POST', createPath(em), createBody(em, 'c'));
      assert.equal(qps.status, 403);
      assert.equal(qps.body.code, 'Forbidden.AccessDenied.QpsLimitForAppkeyAndApi');
      assert.deepEqual(docTitles(em), []);
      const kinds = em.admin.calls().faultsByKind;
      assert.deepEqual([kinds.error5xx, kinds.throttle429, kinds.qps403], [1, 1, 1]);
      em.admin.setFaults({});
      assert.equal((await call(em, 'POST', createPath(em), createBody(em, 'd'))).status, 200);
    }));

  test('latency delays but the answer still arrives', () =>
    withEmulator(
      async (em) => {
        const r = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
        assert.equal(r.status, 200);
        assert.equal(em.admin.calls().faultsByKind.latency, 1);
      },
      { faults: 'latency=50' },
    ));

  test('listFailPage: listNodes fails from page N on, earlier pages work', () =>
    withEmulator(
      async (em) => {
        for (let i = 0; i < 5; i++) em.admin.createDocument({ name: `d${i}` });
        const query = { operatorId: em.seed.operatorId, parentNodeId: em.seed.rootNodeId, maxResults: 2 };
        const first = await call(em, 'GET', '/v2.0/wiki/nodes', { query });
        assert.equal(first.status, 200);
        const second = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, nextToken: first.body.nextToken } });
        assert.equal(second.status, 500);
        assert.equal(em.admin.calls().faultsByKind.listFailPage, 1);
      },
      { faults: 'listFailPage=2' },
    ));

  test('fault decisions are reproducible from the seed', async () => {
    const statuses = async (): Promise<number[]> =>
      withEmulator(
        async (em) => {
          const out: number[] = [];
          for (let i = 0; i < 16; i++) out.push((await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } })).status);
          return out;
        },
        { faults: '5xx=0.5,seed=7', rateLimit: 0 },
      );
    const a = await statuses();
    assert.deepEqual(await statuses(), a);
    assert.ok(a.includes(500) && a.includes(200), a.join(','));
  });

  test('a bad spec is refused with a message naming the bad key; faults are settable over HTTP', async () => {
    assert.throws(() => parseFaultSpec('latency=10,bogus=1'), /unknown key 'bogus'/);
    assert.throws(() => parseFaultSpec('5xx=2'), /'5xx' is a share/);
    assert.throws(() => parseFaultSpec('only=nope'), /unknown endpoint 'nope'/);
    assert.deepEqual(parseFaultSpec('latency=2000,5xx=0.1,reset=0.05,429=0.3,drop=1,only=createDocument|listNodes,listFailPage=2,seed=7,qps403=0.2'), {
      latency: 2000,
      error5xx: 0.1,
      reset: 0.05,
      throttle429: 0.3,
      drop: 1,
      only: ['createDocument', 'listNodes'],
      listFailPage: 2,
      seed: 7,
      qps403: 0.2,
    });
    await assert.rejects(startEmulator({ faults: 'nonsense=1' }), /nonsense/);
    await withEmulator(async (em) => {
      const json = { 'content-type': 'application/json' };
      const put = await fetch(`${em.url}/_emulator/faults`, { method: 'PUT', headers: json, body: JSON.stringify({ spec: '5xx=1,only=getWorkspace' }) });
      assert.equal(put.status, 200);
      assert.deepEqual(await (await fetch(`${em.url}/_emulator/faults`)).json(), { error5xx: 1, only: ['getWorkspace'] });
      assert.equal((await call(em, 'GET', `/v2.0/wiki/workspaces/${em.seed.workspaceId}`, { query: { operatorId: em.seed.operatorId } })).status, 500);
      const bad = await fetch(`${em.url}/_emulator/faults`, { method: 'PUT', headers: json, body: JSON.stringify({ wat: 1 }) });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { message: string }).message, /wat/);
    });
  });
});
