import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors.js';
import { asBlockId, asCreationNodeId, asDocKey, asTreeNodeId, asUserId, asWorkspaceId } from '../../../src/model/ids.js';
import { OPERATOR, TOKEN, clientFor, node, startFakeService, type SeenRequest } from './fake-service.js';

const ws = asWorkspaceId('ws1');

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

void describe('requests follow the contract', () => {
  void test('every call carries the token header and operatorId; bodies carry operatorId too', async (t) => {
    const service = await startFakeService((request) => {
      if (request.path.endsWith('/docs') && request.method === 'POST') return { json: { dentryUuid: 'd1', docKey: 'd1', nodeId: 'c1', workspaceId: 'ws1', url: 'u' } };
      if (request.path.endsWith('/appendText')) return { json: { success: true, result: { data: { text: 'whole text' } } } };
      if (request.path.includes('queryByUrl')) return { json: { node: node('n1') } };
      return { json: {} };
    });
    t.after(() => service.close());
    const client = clientFor(service);
    const created = await client.createDocument(ws, { name: 'Notes', parentNodeId: asTreeNodeId('folder1') });
    await client.createDocument(ws, { name: 'Dir', folder: true });
    await client.overwrite(asDocKey('d1'), '# Title\n');
    assert.equal(await client.appendText(asDocKey('d1'), asBlockId('b1'), ' more'), 'whole text');
    await client.addMembers(ws, asCreationNodeId('c1'), [{ userId: asUserId('u9'), role: 'editor' }]);
    await client.updateMember(ws, asCreationNodeId('c1'), asUserId('u9'), 'viewer');
    await client.removeMember(ws, asCreationNodeId('c1'), asUserId('u9'));
    await client.deleteDocument(ws, asCreationNodeId('c1'));
    await client.getNodeByUrl('http://kb/i/nodes/n1');

    assert.deepEqual(created, { docKey: 'd1', treeNodeId: 'd1', nodeId: 'c1', workspaceId: 'ws1', url: 'u' });
    for (const request of service.requests) {
      assert.equal(request.headers['x-acs-service-access-token'], TOKEN);
      assert.equal(request.query.get('operatorId'), OPERATOR);
      if (request.method === 'POST' || request.method === 'PUT') assert.equal((request.body as { operatorId?: string }).operatorId, OPERATOR);
    }
    const shapes = service.requests.map((r: SeenRequest) => [r.method, r.path, r.body === undefined ? undefined : { ...(r.body as object), operatorId: undefined }]);
    assert.deepEqual(shapes, [
      ['POST', '/v1.0/doc/workspaces/ws1/docs', { docType: 'DOC', name: 'Notes', parentNodeId: 'folder1', operatorId: undefined }],
      ['POST', '/v1.0/doc/workspaces/ws1/docs', { docType: 'FOLDER', name: 'Dir', operatorId: undefined }],
      ['POST', '/v1.0/doc/suites/documents/d1/overwriteContent', { content: '# Title\n', contentType: 'markdown', dataType: 'markdown', operatorId: undefined }],
      ['POST', '/v1.0/doc/suites/documents/d1/blocks/b1/paragraph/appendText', { text: ' more', operatorId: undefined }],
      ['POST', '/v1.0/doc/workspaces/ws1/docs/c1/members', { members: [{ id: 'u9', roleType: 'editor' }], operatorId: undefined }],
      ['PUT', '/v1.0/doc/workspaces/ws1/docs/c1/members/u9', { roleType: 'viewer', operatorId: undefined }],
      ['DELETE', '/v1.0/doc/workspaces/ws1/docs/c1/members/u9', undefined],
      ['DELETE', '/v1.0/doc/workspaces/ws1/docs/c1', undefined],
      ['POST', '/v2.0/wiki/nodes/queryByUrl', { url: 'http://kb/i/nodes/n1', operatorId: undefined }],
    ]);
  });

  void test('a custom token header and a baseUrl with a path prefix are honoured', async (t) => {
    const service = await startFakeService(() => ({ json: { node: node('n1') } }));
    t.after(() => service.close());
    const client = clientFor(service, { baseUrl: `${service.url}/gateway/`, tokenHeader: 'x-custom-token' });
    await client.getNode(asTreeNodeId('a b+c:é'));
    assert.equal(service.requests[0]?.path, '/gateway/v2.0/wiki/nodes/a%20b%2Bc%3A%C3%A9');
    assert.equal(service.requests[0]?.headers['x-custom-token'], TOKEN);
  });

  void test('an id that could leave its segment (a dot segment, a separator, an encoded one) is never sent: API_UNSAFE_ID, no request', async (t) => {
    const service = await startFakeService(() => ({ json: {} }));
    t.after(() => service.close());
    const client = clientFor(service);
    for (const id of ['..', '.', 'a/b', 'a\\b', 'a?b', 'a#b', 'a%2Fb', '%2E%2E', 'a\nb', '']) {
      const calls: [string, () => Promise<unknown>][] = [
        ['getWorkspace', () => client.getWorkspace(asWorkspaceId(id))],
        ['getNode', () => client.getNode(asTreeNodeId(id))],
        ['createDocument', () => client.createDocument(asWorkspaceId(id), { name: 'x' })],
        ['deleteDocument', () => client.deleteDocument(asWorkspaceId('ws1'), asCreationNodeId(id))],
        ['readBlocks', () => client.readBlocks(asDocKey(id))],
        ['overwriteContent', () => client.overwrite(asDocKey(id), 'x')],
        ['appendText', () => client.appendText(asDocKey('d1'), asBlockId(id), 'x')],
        ['addMembers', () => client.addMembers(asWorkspaceId('ws1'), asCreationNodeId(id), [])],
        ['updateMember', () => client.updateMember(asWorkspaceId('ws1'), asCreationNodeId('c1'), asUserId(id), 'viewer')],
        ['removeMember', () => client.removeMember(asWorkspaceId(id), asCreationNodeId('c1'), asUserId('u1'))],
      ];
      for (const [endpoint, send] of calls) {
        await assert.rejects(send(), (e: unknown) => e instanceof ApiError && e.code === 'API_UNSAFE_ID' && e.message.startsWith(`kbsync did not call ${endpoint}: the id `), `${endpoint} with ${JSON.stringify(id)}`);
      }
    }
    assert.equal(service.requests.length, 0);
  });

  void test('an overwrite over 50,000 characters is refused locally, without a call', async (t) => {
    const service = await startFakeService(() => ({ json: {} }));
    t.after(() => service.close());
    const client = clientFor(service);
    await assert.rejects(client.overwrite(asDocKey('d1'), 'x'.repeat(50_001)), (e: unknown) => e instanceof ApiError && e.code === 'API_TOO_LARGE' && /50000/.test(e.message));
    await client.overwrite(asDocKey('d1'), 'x'.repeat(50_000));
    assert.equal(service.requests.length, 1);
  });

  void test('readBlocks passes its filters and parses blocks tolerantly', async (t) => {
    const data = [
      { id: 'h', index: 0, blockType: 'heading', heading: { level: 'heading-2', text: 'Title' } },
      { id: 'p', index: 1, blockType: 'paragraph', paragraph: {} },
    ];
    const service = await startFakeService(() => ({ json: { success: true, result: { data } } }));
    t.after(() => service.close());
    const blocks = await clientFor(service).readBlocks(asDocKey('d1'), { startIndex: 0, endIndex: 5, blockType: 'heading' });
    assert.deepEqual(blocks, [
      { id: 'h', index: 0, type: 'heading', level: 2, text: 'Title' },
      { id: 'p', index: 1, type: 'paragraph', text: '' },
    ]);
    const query = service.requests[0]?.query;
    assert.deepEqual([query?.get('startIndex'), query?.get('endIndex'), query?.get('blockType')], ['0', '5', 'heading']);
  });
});

void describe('answers are normalised', () => {
  void test('nodes: rich docs (RICHDOC or ALIDOC) get a docKey and a title; folders and other files do not', async (t) => {
    const nodes = [
      node('doc1', { modifiedTimestamp: 1700000000000, hasChildren: false }),
      node('doc2', { category: 'ALIDOC' }),
      { nodeId: 'f1', name: 'Folder', type: 'FOLDER', workspaceId: 'ws1', url: 'u', createTime: 't', modifiedTime: 't', hasChildren: true },
      node('sheet', { name: 'sheet.axls', category: 'SHEET', extension: 'axls' }),
    ];
    const service = await startFakeService(() => ({ json: { nodes, nextToken: '' } }));
    t.after(() => service.close());
    const listed = await collect(clientFor(service).listNodes(asTreeNodeId('root')));
    assert.deepEqual(
      listed.map((n) => [n.treeNodeId, n.docKey, n.title, n.type, n.isRichDoc, n.modifiedTimestamp, n.hasChildren]),
      [
        ['doc1', 'doc1', 'doc1', 'FILE', true, 1700000000000, false],
        ['doc2', 'doc2', 'doc2', 'FILE', true, undefined, undefined],
        ['f1', undefined, 'Folder', 'FOLDER', false, undefined, true],
        ['sheet', undefined, 'sheet.axls', 'FILE', false, undefined, undefined],
      ],
    );
    assert.equal('modifiedTimestamp' in (listed[1] ?? {}), false, 'absent fields stay absent');
  });

  void test('listNodes walks every page (default page size 50), listNodesPage returns one', async (t) => {
    const all = Array.from({ length: 7 }, (_, i) => node(`n${i}`));
    const service = await startFakeService((request) => {
      const size = Number(request.query.get('maxResults'));
      const start = Number(request.query.get('nextToken') || 0);
      const end = Math.min(all.length, start + size);
      return { json: { nodes: all.slice(start, end), nextToken: end < all.length ? String(end) : '' } };
    });
    t.after(() => service.close());
    const client = clientFor(service);
    assert.equal((await collect(client.listNodes(asTreeNodeId('root'), { pageSize: 3 }))).length, 7);
    assert.deepEqual(service.requests.map((r) => r.query.get('nextToken') ?? ''), ['', '3', '6']);
    const page = await client.listNodesPage(asTreeNodeId('root'), undefined);
    assert.equal(page.nodes.length, 7);
    assert.equal(page.nextToken, undefined);
    assert.equal(service.requests.at(-1)?.query.get('maxResults'), '50');
    assert.equal(service.requests.at(-1)?.query.get('parentNodeId'), 'root');
  });

  void test('a nextToken that repeats is an error, not an endless loop', async (t) => {
    const service = await startFakeService(() => ({ json: { nodes: [node('x')], nextToken: 'same' } }));
    t.after(() => service.close());
    await assert.rejects(collect(clientFor(service).listNodes(asTreeNodeId('root'))), (e: unknown) => e instanceof ApiError && e.code === 'API_BAD_RESPONSE');
    assert.equal(service.requests.length, 2);
  });

  void test('search pages on hasMore and maps nodeBO.nodeId to a docKey', async (t) => {
    const hit = (id: string) => ({ nodeBO: { nodeId: id, name: `${id}.adoc`, url: `u/${id}` }, workspaceBO: { workspaceId: 'ws1' } });
    const service = await startFakeService((_r, i) => ({ json: i === 0 ? { docs: [hit('a')], hasMore: true, nextToken: 't2' } : { docs: [hit('b')], hasMore: false } }));
    t.after(() => service.close());
    const hits = await collect(clientFor(service).search(ws, 'plan'));
    assert.deepEqual(hits, [
      { docKey: 'a', treeNodeId: 'a', name: 'a.adoc', title: 'a', url: 'u/a', workspaceId: 'ws1' },
      { docKey: 'b', treeNodeId: 'b', name: 'b.adoc', title: 'b', url: 'u/b', workspaceId: 'ws1' },
    ]);
    assert.deepEqual(service.requests.map((r) => [r.query.get('keyword'), r.query.get('workspaceId'), r.query.get('nextToken')]), [
      ['plan', 'ws1', null],
      ['plan', 'ws1', 't2'],
    ]);
  });

  void test('workspaces: listed across pages and read one by one', async (t) => {
    const workspace = (id: string) => ({ workspaceId: id, name: `W ${id}`, description: '', rootNodeId: `root-${id}`, type: 'TEAM', url: 'u', createTime: 't', modifiedTime: 't' });
    const service = await startFakeService((request, i) =>
      request.path === '/v2.0/wiki/workspaces' ? { json: { workspaces: [workspace(`w${i}`)], nextToken: i === 0 ? 'next' : '' } } : { json: workspace('w9') },
    );
    t.after(() => service.close());
    const client = clientFor(service);
    assert.deepEqual((await collect(client.listWorkspaces())).map((w) => w.rootNodeId), ['root-w0', 'root-w1']);
    assert.equal((await client.getWorkspace(asWorkspaceId('w9'))).name, 'W w9');
    assert.equal(service.requests[0]?.query.get('maxResults'), '30');
  });
});

void describe('client options are validated at the boundary', () => {
  void test('a bad baseUrl or an empty operatorId is an InputError naming the option', async (t) => {
    const service = await startFakeService(() => ({ json: {} }));
    t.after(() => service.close());
    assert.throws(() => clientFor(service, { baseUrl: 'ftp://x' }), /baseUrl must be an http\(s\) URL, got 'ftp:\/\/x'/);
    assert.throws(() => clientFor(service, { operatorId: '' as never }), /unionId/);
  });
});

void test('a search answer saying hasMore without a nextToken is an error, not a silently partial result', async (t) => {
  const service = await startFakeService(() => ({ json: { docs: [], hasMore: true } }));
  t.after(() => service.close());
  await assert.rejects(collect(clientFor(service).search(ws, 'x')), (e: unknown) => e instanceof ApiError && e.code === 'API_BAD_RESPONSE' && /no nextToken/.test(e.message));
});

void test('serverTime follows the Date header of the latest answer, undefined before any', async (t) => {
  const skewed = new Date(Date.UTC(2030, 0, 1, 12, 0, 0));
  const service = await startFakeService(() => ({ json: { node: node('n1') }, headers: { date: skewed.toUTCString() } }));
  t.after(() => service.close());
  const client = clientFor(service);
  assert.equal(client.serverTime(), undefined);
  await client.getNode(asTreeNodeId('n1'));
  const estimate = client.serverTime()?.getTime() ?? 0;
  // A generous window: only the skew (years) matters, not the exact second.
  assert.ok(Math.abs(estimate - skewed.getTime()) < 60_000, `estimate ${new Date(estimate).toISOString()}`);
});

// Model seed 100106: with the service's clock stopped, the real seconds a busy machine took after an answer moved
// the estimate on; the model's machines give the service's own clock, and the estimate moves only on it.
void test('serverTime counts the time since the latest answer on the clock the client is given', async (t) => {
  const at = new Date(Date.UTC(2030, 0, 1, 12, 0, 10));
  const service = await startFakeService(() => ({ json: { node: node('n1') }, headers: { date: at.toUTCString() } }));
  t.after(() => service.close());
  let local = 1_000;
  const client = clientFor(service, { localNow: () => local });
  await client.getNode(asTreeNodeId('n1'));
  // The middle of the header's second, with no time passed on the given clock, however long the real one took.
  assert.equal(client.serverTime()?.getTime(), at.getTime() + 500);
  local += 5_000;
  assert.equal(client.serverTime()?.getTime(), at.getTime() + 5_500);
});

// Soak seed 5: an answer read late (a busy machine) gave an estimate behind a Date header already seen, so the
// bound of the minute of a write kbsync had just made came out a minute early.
void test('serverTime is never behind the latest Date header seen, whatever order the answers are read in', async (t) => {
  const later = new Date(Date.UTC(2030, 0, 1, 12, 0, 59));
  const dates = [later, new Date(later.getTime() - 30_000)];
  const service = await startFakeService((_request, i) => ({ json: { node: node('n1') }, headers: { date: (dates[i] ?? later).toUTCString() } }));
  t.after(() => service.close());
  const client = clientFor(service);
  await client.getNode(asTreeNodeId('n1'));
  await client.getNode(asTreeNodeId('n1'));
  assert.ok((client.serverTime()?.getTime() ?? 0) >= later.getTime(), `estimate ${client.serverTime()?.toISOString()}`);
});
