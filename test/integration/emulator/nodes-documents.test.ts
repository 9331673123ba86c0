import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createDoc, overwrite, readBlocks, withEmulator } from '../../helpers/emulator.js';

const MINUTE_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

describe('emulator: workspaces, nodes, create and delete', () => {
  test('workspaces: the seeded one and a second, each with the contract fields; get one by id', () =>
    withEmulator(async (em) => {
      const r = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
      assert.equal(r.status, 200);
      assert.ok(r.body.workspaces.length >= 2);
      assert.equal(r.body.nextToken, '');
      const main = r.body.workspaces.find((w: { workspaceId: string }) => w.workspaceId === em.seed.workspaceId);
      assert.equal(main.rootNodeId, em.seed.rootNodeId);
      assert.equal(main.url, em.seed.workspaceUrl);
      assert.equal(main.type, 'TEAM');
      assert.match(main.createTime, MINUTE_STAMP);
      assert.match(main.modifiedTime, MINUTE_STAMP);
      const one = await call(em, 'GET', `/v2.0/wiki/workspaces/${em.seed.workspaceId}`, { query: { operatorId: em.seed.operatorId } });
      assert.deepEqual(one.body, main);
    }));

  test('create answers both ids (dentryUuid = docKey, a different nodeId) and the node shows the dentryUuid with .adoc', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Plan');
      assert.equal(doc.docKey, doc.dentryUuid);
      assert.notEqual(doc.nodeId, doc.dentryUuid);
      assert.equal(doc.workspaceId, em.seed.workspaceId);
      assert.equal(doc.url, `${em.url}/i/nodes/${doc.dentryUuid}`);
      const list = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { operatorId: em.seed.operatorId, parentNodeId: em.seed.rootNodeId } });
      assert.equal(list.status, 200);
      assert.equal(list.body.nodes.length, 1);
      const node = list.body.nodes[0];
      assert.equal(node.nodeId, doc.dentryUuid);
      assert.equal(node.name, 'Plan.adoc');
      assert.equal(node.type, 'FILE');
      assert.equal(node.category, 'RICHDOC');
      assert.equal(node.extension, 'adoc');
      assert.equal(node.workspaceId, em.seed.workspaceId);
      assert.equal(node.url, doc.url);
      assert.match(node.createTime, MINUTE_STAMP);
      assert.match(node.modifiedTime, MINUTE_STAMP);
      assert.equal(node.hasChildren, false);
      assert.equal(node.creatorId, em.seed.operatorId);
      assert.equal(node.modifierId, em.seed.operatorId);
      const got = await call(em, 'GET', `/v2.0/wiki/nodes/${doc.dentryUuid}`, { query: { operatorId: em.seed.operatorId } });
      assert.deepEqual(got.body.node, node);
    }));

  test("a document's size is its Markdown's UTF-8 bytes, in the listing and the node", () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Sized');
      const text = '# Naïve café\n\nDone ✓\n';
      assert.equal((await overwrite(em, doc.dentryUuid, text)).status, 200);
      const list = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { operatorId: em.seed.operatorId, parentNodeId: em.seed.rootNodeId } });
      const got = await call(em, 'GET', `/v2.0/wiki/nodes/${doc.dentryUuid}`, { query: { operatorId: em.seed.operatorId } });
      assert.deepEqual([list.body.nodes[0].size, got.body.node.size], [Buffer.byteLength(text), Buffer.byteLength(text)]);
      assert.notEqual(Buffer.byteLength(text), text.length);
    }));

  test('id rule: the node-endpoint nodeId works as docKey; the creation nodeId is docNotExist for body calls', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Ids');
      const got = await call(em, 'GET', `/v2.0/wiki/nodes/${doc.dentryUuid}`, { query: { operatorId: em.seed.operatorId } });
      assert.equal((await overwrite(em, got.body.node.nodeId, 'hello')).status, 200);
      assert.equal((await readBlocks(em, got.body.node.nodeId)).body.result.data[0].paragraph.text, 'hello');
      const byCreationId = await readBlocks(em, doc.nodeId);
      assert.equal(byCreationId.status, 404);
      assert.equal(byCreationId.body.code, 'docNotExist');
      assert.match(byCreationId.body.message, /creation nodeId/);
      const overwriteByCreationId = await overwrite(em, doc.nodeId, 'x');
      assert.equal(overwriteByCreationId.body.code, 'docNotExist');
      const node = await call(em, 'GET', `/v2.0/wiki/nodes/${doc.nodeId}`, { query: { operatorId: em.seed.operatorId } });
      assert.equal(node.body.code, 'nodeNotExist');
    }));

  test('delete takes only the creation nodeId: a dentryUuid is nodeNotExist; afterwards every id is 404', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Gone');
      const path = (id: string): string => `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs/${id}`;
      const byDentry = await call(em, 'DELETE', path(doc.dentryUuid), { query: { operatorId: em.seed.operatorId } });
      assert.equal(byDentry.status, 404);
      assert.equal(byDentry.body.code, 'nodeNotExist');
      const ok = await call(em, 'DELETE', path(doc.nodeId), { query: { operatorId: em.seed.operatorId } });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, {});
      assert.equal((await readBlocks(em, doc.dentryUuid)).body.code, 'docNotExist');
      assert.equal((await call(em, 'GET', `/v2.0/wiki/nodes/${doc.dentryUuid}`, { query: { operatorId: em.seed.operatorId } })).body.code, 'nodeNotExist');
      assert.equal((await call(em, 'DELETE', path(doc.nodeId), { query: { operatorId: em.seed.operatorId } })).body.code, 'nodeNotExist');
    }));

  test('folders: no extension, children listed under them, body calls refused, delete removes the subtree', () =>
    withEmulator(async (em) => {
      const folder = await createDoc(em, 'Guides', { docType: 'FOLDER' });
      const inner = await createDoc(em, 'Inner', { parentNodeId: folder.dentryUuid });
      const deeper = await createDoc(em, 'Deeper', { parentNodeId: inner.dentryUuid });
      const query = { operatorId: em.seed.operatorId };
      const node = (await call(em, 'GET', `/v2.0/wiki/nodes/${folder.dentryUuid}`, { query })).body.node;
      assert.equal(node.type, 'FOLDER');
      assert.equal(node.name, 'Guides');
      assert.equal(node.extension, undefined);
      assert.equal(node.hasChildren, true);
      const children = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, parentNodeId: folder.dentryUuid } });
      assert.deepEqual(children.body.nodes.map((n: { nodeId: string }) => n.nodeId), [inner.dentryUuid]);
      const underDoc = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, parentNodeId: inner.dentryUuid } });
      assert.deepEqual(underDoc.body.nodes.map((n: { nodeId: string }) => n.nodeId), [deeper.dentryUuid]);
      const body = await readBlocks(em, folder.dentryUuid);
      assert.equal(body.status, 400);
      assert.equal(body.body.code, 'paramError');
      assert.match(body.body.message, /folder/);
      const del = await call(em, 'DELETE', `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs/${folder.nodeId}`, { query });
      assert.equal(del.status, 200);
      for (const id of [folder.dentryUuid, inner.dentryUuid, deeper.dentryUuid]) {
        assert.equal((await call(em, 'GET', `/v2.0/wiki/nodes/${id}`, { query })).body.code, 'nodeNotExist');
      }
      assert.equal(em.admin.dump().nodes.filter((n) => n.docType !== 'ROOT').length, 0);
    }));

  test('create rules: bad docType, empty or over-long name, unknown parent, duplicate name under one parent', () =>
    withEmulator(async (em) => {
      const post = (body: Record<string, unknown>) =>
        call(em, 'POST', `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs`, { body: { operatorId: em.seed.operatorId, ...body } });
      assert.equal((await post({ docType: 'SHEET', name: 'x' })).body.code, 'paramError');
      assert.equal((await post({ name: 'x' })).body.code, 'paramError');
      assert.equal((await post({ docType: 'DOC', name: '' })).body.code, 'paramError');
      const long = await post({ docType: 'DOC', name: 'n'.repeat(256) });
      assert.equal(long.body.code, 'paramError');
      assert.match(long.body.message, /255/);
      assert.equal((await post({ docType: 'DOC', name: 'x', parentNodeId: 'nope' })).body.code, 'nodeNotExist');
      assert.equal((await post({ docType: 'DOC', name: 'Same' })).status, 200);
      const clash = await post({ docType: 'DOC', name: 'Same' });
      assert.equal(clash.status, 400);
      assert.equal(clash.body.code, 'invalidRequest.workspaceNode.nameConflict');
      assert.equal((await post({ docType: 'FOLDER', name: 'Same' })).status, 200, 'a folder may share a doc name');
      const folder = em.admin.dump().nodes.find((n) => n.docType === 'FOLDER');
      assert.equal((await post({ docType: 'DOC', name: 'Same', parentNodeId: folder?.dentryUuid })).status, 200, 'another parent is fine');
      const otherWorkspace = em.admin.dump().workspaces.find((w) => w.workspaceId !== em.seed.workspaceId);
      const crossParent = await post({ docType: 'DOC', name: 'x', parentNodeId: otherWorkspace?.rootNodeId });
      assert.equal(crossParent.body.code, 'nodeNotExist');
      const workbook = await post({ docType: 'WORKBOOK', name: 'Sheet' });
      assert.equal(workbook.status, 200);
      assert.equal((await readBlocks(em, workbook.body.dentryUuid)).body.code, 'paramError');
    }));

  test('paging: listNodes across pages with a stable order, maxResults clamped to 50; bad nextToken is paramError', () =>
    withEmulator(
      async (em) => {
        for (let i = 0; i < 55; i++) em.admin.createDocument({ name: `doc-${String(i).padStart(2, '0')}` });
        const query = { operatorId: em.seed.operatorId, parentNodeId: em.seed.rootNodeId };
        const first = await call(em, 'GET', '/v2.0/wiki/nodes', { query });
        assert.equal(first.body.nodes.length, 20, 'default page size');
        const names: string[] = [];
        let nextToken = '';
        let pages = 0;
        do {
          const page = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, maxResults: 500, nextToken } });
          assert.equal(page.status, 200);
          assert.ok(page.body.nodes.length <= 50);
          names.push(...page.body.nodes.map((n: { name: string }) => n.name));
          nextToken = page.body.nextToken;
          pages++;
        } while (nextToken !== '');
        assert.equal(pages, 2);
        assert.deepEqual(names, Array.from({ length: 55 }, (_, i) => `doc-${String(i).padStart(2, '0')}.adoc`));
        const bad = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, nextToken: 'garbage' } });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, 'paramError');
        assert.equal((await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, maxResults: 'x' } })).body.code, 'paramError');
      },
      { rateLimit: 0 },
    ));

  test('paging: listWorkspaces across pages, clamped to 30', () =>
    withEmulator(async (em) => {
      for (let i = 0; i < 33; i++) em.admin.addWorkspace({ name: `space ${i}` });
      const query = { operatorId: em.seed.operatorId };
      const first = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { ...query, maxResults: 100 } });
      assert.equal(first.body.workspaces.length, 30);
      assert.notEqual(first.body.nextToken, '');
      const second = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { ...query, maxResults: 100, nextToken: first.body.nextToken } });
      assert.equal(second.body.workspaces.length, 5);
      assert.equal(second.body.nextToken, '');
      const ids = new Set([...first.body.workspaces, ...second.body.workspaces].map((w: { workspaceId: string }) => w.workspaceId));
      assert.equal(ids.size, 35);
      const nodeToken = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { ...query, nextToken: 'eyJ4IjoxfQ' } });
      assert.equal(nodeToken.body.code, 'paramError');
    }));
});
