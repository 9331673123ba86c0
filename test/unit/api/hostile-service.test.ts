import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { KbClient } from '../../../src/api/client.js';
import { ApiError, OutcomeUnknownError } from '../../../src/api/errors.js';
import { SERVICE_LIMITS } from '../../../src/api/limits.js';
import { asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { RequestQueue } from '../../../src/queue/request-queue.js';
import { QueueClosedError } from '../../../src/queue/errors.js';
import { OPERATOR, TOKEN, clientFor, node, startFakeService, type Reply } from './fake-service.js';

/** A client on the real clock: a wait it should not make would hang the test, not pass it. */
const realClockClient = (service: { url: string }): KbClient =>
  new KbClient({ baseUrl: service.url, token: { get: async () => TOKEN }, operatorId: OPERATOR, queue: new RequestQueue({ rate: 0 }) });

const rejectsWith = (code: string, also?: (error: ApiError) => void) => (error: unknown) => {
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.code, code, error.message);
  also?.(error);
  return true;
};

// eslint-disable-next-line no-control-regex -- raw control characters are what must not be there
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

void describe('a throttle that asks for more than kbsync waits fails at once, with when to come back', () => {
  for (const [name, reply] of [
    ['429 with Retry-After: 3600', { status: 429, headers: { 'retry-after': '3600' }, json: {} }],
    ['429 with a Retry-After date in 2100', { status: 429, headers: { 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' }, json: {} }],
    ['403 QpsLimit with Retry-After: 3600', { status: 403, headers: { 'retry-after': '3600' }, json: { code: 'Forbidden.AccessDenied.QpsLimitForApi', message: 'qps' } }],
  ] as const) {
    void test(`${name}: one request, API_THROTTLED, no wait`, async (t) => {
      const service = await startFakeService(() => reply as Reply);
      t.after(() => service.close());
      // The real clock: had kbsync waited an hour (or looped on a timer it cannot set), this would never end.
      const client = realClockClient(service);
      await assert.rejects(
        client.getNode(asTreeNodeId('n1')),
        rejectsWith('API_THROTTLED', (error) => {
          assert.match(error.message, /Retry-After/);
          assert.match(error.message, /longer than kbsync waits \(60 s\)/);
          assert.match(error.message, name.includes('2100') ? /run again after 2100-01-01T00:00:00Z/ : /run again after \d{4}-/);
        }),
      );
      assert.equal(service.requests.length, 1);
    });
  }

  void test('a Retry-After no date can hold (1e300 seconds): the same, in words that make sense', async (t) => {
    const service = await startFakeService(() => ({ status: 429, headers: { 'retry-after': '1e300' }, json: {} }));
    t.after(() => service.close());
    await assert.rejects(
      realClockClient(service).getNode(asTreeNodeId('n1')),
      rejectsWith('API_THROTTLED', (error) => assert.match(error.message, /wait centuries before .*run again after a time too far away to say/)),
    );
  });

  void test('waits within the bound are obeyed, but not past the total a call may wait', async (t) => {
    const service = await startFakeService(() => ({ status: 429, headers: { 'retry-after': '59' }, json: {} }));
    t.after(() => service.close());
    const client = clientFor(service);
    const pauses: number[] = [];
    client.queue.on('throttle', (event) => pauses.push(event.pauseMs));
    await assert.rejects(client.getNode(asTreeNodeId('n1')), rejectsWith('API_THROTTLED'));
    // Five waits of 59 s fit in the 300 s a call may wait; a sixth would not.
    assert.deepEqual(pauses, [59_000, 59_000, 59_000, 59_000, 59_000]);
    assert.equal(service.requests.length, 6);
  });
});

/** A server whose answer streams `totalBytes` (or until the client goes away); what it managed to write is counted. */
async function startFloodServer(options: { announce?: boolean; gzip?: boolean; status?: number }): Promise<{ url: string; written(): number; clientLeft: Promise<void>; close(): Promise<void> }> {
  const totalBytes = 700 * 1024 * 1024;
  let written = 0;
  let markLeft: () => void = () => undefined;
  const clientLeft = new Promise<void>((resolve) => (markLeft = resolve));
  const chunk = Buffer.alloc(64 * 1024, options.gzip ? 0x20 : 0x61);
  const server = http.createServer((req, res) => {
    req.resume();
    res.on('close', () => markLeft());
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (options.announce) headers['content-length'] = totalBytes;
    if (options.gzip) headers['content-encoding'] = 'gzip';
    res.writeHead(options.status ?? 200, headers);
    let produced = 0;
    const body = new Readable({
      read() {
        if (produced >= totalBytes) return void this.push(null);
        produced += chunk.length;
        this.push(produced === chunk.length ? Buffer.concat([Buffer.from('{"node":"'), chunk.subarray(9)]) : chunk);
      },
    });
    const source = options.gzip ? body.pipe(createGzip()) : body;
    source.on('data', (data: Buffer) => {
      written += data.length;
      if (!res.write(data)) {
        source.pause();
        res.once('drain', () => source.resume());
      }
    });
    source.on('end', () => res.end());
    res.on('close', () => source.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    clientLeft,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

void describe('an answer longer than kbsync reads is refused as it streams, as a bad answer', () => {
  for (const [name, options] of [
    ['streamed without a length', {}],
    ['announced as 700 MB', { announce: true }],
    ['a gzip bomb (small on the wire, huge inflated)', { gzip: true }],
  ] as const) {
    void test(`${name}: API_BAD_RESPONSE, and kbsync stopped reading`, async (t) => {
      const flood = await startFloodServer(options);
      t.after(() => flood.close());
      const client = realClockClient(flood);
      await assert.rejects(
        client.getNode(asTreeNodeId('n1')),
        rejectsWith('API_BAD_RESPONSE', (error) => assert.match(error.message, /longer than 16 MiB, the most kbsync reads of one answer/)),
      );
      await flood.clientLeft;
      // The connection was closed long before the 700 MB were sent: the client stopped reading at the limit.
      assert.ok(flood.written() < 4 * SERVICE_LIMITS.answerBytes, `the server got to write ${flood.written()} bytes`);
    });
  }

  void test('a create whose success answer is too long is an outcome unknown: looked for, never made twice', async (t) => {
    const flood = await startFloodServer({});
    t.after(() => flood.close());
    await assert.rejects(realClockClient(flood).createDocument(asWorkspaceId('ws1'), { name: 'a' }), (error: unknown) => error instanceof OutcomeUnknownError);
  });
});

void describe('listings that never end are refused after a bounded number of calls', () => {
  void test('fresh nextTokens without end: refused after SERVICE_LIMITS.pagesPerListing pages', async (t) => {
    const service = await startFakeService((_, i) => ({ json: { nodes: [node(`n${i}`)], nextToken: `fresh-${i}` } }));
    t.after(() => service.close());
    const client = clientFor(service);
    const collect = async (): Promise<void> => {
      for await (const _ of client.listNodes(asTreeNodeId('root'))) void _;
    };
    await assert.rejects(collect(), rejectsWith('API_BAD_RESPONSE', (error) => assert.match(error.message, /still had more after 1000 pages/)));
    assert.equal(service.requests.length, SERVICE_LIMITS.pagesPerListing);
  });

  void test('empty pages with fresh tokens, in any listing (here a search that says hasMore): refused after SERVICE_LIMITS.emptyPagesInARow', async (t) => {
    const service = await startFakeService((_, i) => ({ json: { docs: [], hasMore: true, nextToken: `fresh-${i}` } }));
    t.after(() => service.close());
    const collect = async (): Promise<void> => {
      for await (const _ of clientFor(service).search(asWorkspaceId('ws1'), 'word')) void _;
    };
    await assert.rejects(collect(), rejectsWith('API_BAD_RESPONSE', (error) => assert.match(error.message, /answered 5 empty pages in a row, with a new nextToken each time, while paging searchDocs/)));
    assert.equal(service.requests.length, SERVICE_LIMITS.emptyPagesInARow);
  });

  void test('a nextToken that repeats: refused on the repeat', async (t) => {
    const service = await startFakeService((_, i) => ({ json: { nodes: [node(`n${i}`)], nextToken: i % 2 === 0 ? 'a' : 'b' } }));
    t.after(() => service.close());
    const collect = async (): Promise<void> => {
      for await (const _ of clientFor(service).listNodes(asTreeNodeId('root'))) void _;
    };
    await assert.rejects(collect(), rejectsWith('API_BAD_RESPONSE', (error) => assert.match(error.message, /same nextToken twice/)));
    assert.equal(service.requests.length, 3);
  });
});

void describe("the service's words are quoted short, on one line, with no control character", () => {
  void test('a 10,000-character message full of terminal escapes', async (t) => {
    const message = `\x1b]0;pwned\x07\x1b[2J\r\n✓ all synced \u202e${'x'.repeat(10_000)}`;
    const service = await startFakeService(() => ({ status: 400, json: { code: 'paramError\x1b[31m', message, requestid: 'r\n1' } }));
    t.after(() => service.close());
    await assert.rejects(
      clientFor(service).getNode(asTreeNodeId('n1')),
      rejectsWith('API_BAD_REQUEST', (error) => {
        assert.doesNotMatch(error.message, RAW_CONTROL);
        assert.match(error.message, /\\u001b\]0;pwned\\u0007\\u001b\[2J\\u000d\\u000a✓ all synced \\u202e/);
        assert.ok(error.message.length < SERVICE_LIMITS.quotedChars + 1000, `${error.message.length} characters`);
        assert.equal(error.serviceCode, 'paramError\\u001b[31m');
        assert.equal(error.requestId, 'r\\u000a1');
      }),
    );
  });
});

void describe('closing the queue ends every wait and every request in flight', () => {
  void test('a call waiting out a throttle (Retry-After 59) is refused at once, the retry never sent', async (t) => {
    const service = await startFakeService(() => ({ status: 429, headers: { 'retry-after': '59' }, json: {} }));
    t.after(() => service.close());
    const client = realClockClient(service);
    const pending = client.getNode(asTreeNodeId('n1'));
    client.queue.once('throttle', () => client.queue.close());
    await assert.rejects(pending, (error: unknown) => error instanceof QueueClosedError);
    assert.equal(service.requests.length, 1);
  });

  void test('a request the service never answers is aborted, and the connection closed', async (t) => {
    let requests = 0;
    let markReached: () => void = () => undefined;
    let markLeft: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (markReached = resolve));
    const clientLeft = new Promise<void>((resolve) => (markLeft = resolve));
    // Reads the request and never answers it.
    const server = http.createServer((req) => {
      requests += 1;
      req.socket.on('close', () => markLeft());
      req.resume();
      markReached();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const client = realClockClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const pending = client.getNode(asTreeNodeId('n1'));
    await reached;
    client.queue.close();
    await assert.rejects(pending, (error: unknown) => error instanceof QueueClosedError);
    await clientLeft;
    assert.equal(requests, 1, 'not retried');
  });
});
