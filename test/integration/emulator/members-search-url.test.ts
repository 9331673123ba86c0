import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createDoc, overwrite, readBlocks, withEmulator } from '../../helpers/emulator.js';

describe('emulator: members, search, queryByUrl', () => {
  test('members: add, update, remove by userId on the creation nodeId; kept per document', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Shared');
      const { operatorId, workspaceId, otherUser } = em.seed;
      const base = `/v1.0/doc/workspaces/${workspaceId}/docs/${doc.nodeId}/members`;
      const add = await call(em, 'POST', base, { body: { operatorId, members: [{ id: otherUser.userId, roleType: 'viewer' }] } });
      assert.equal(add.status, 200);
      assert.deepEqual(add.body, { success: true });
      const membersOf = () => em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid)?.members;
      assert.deepEqual(membersOf(), [{ userId: otherUser.userId, roleType: 'viewer' }]);
      const update = await call(em, 'PUT', `${base}/${otherUser.userId}`, { body: { operatorId, roleType: 'editor' } });
      assert.equal(update.status, 200);
      assert.deepEqual(membersOf(), [{ userId: otherUser.userId, roleType: 'editor' }]);
      const remove = await call(em, 'DELETE', `${base}/${otherUser.userId}`, { query: { operatorId } });
      assert.equal(remove.status, 200);
      assert.deepEqual(membersOf(), []);
      const again = await call(em, 'DELETE', `${base}/${otherUser.userId}`, { query: { operatorId } });
      assert.equal(again.body.code, 'memberNotExist');
    }));

  test('members: unionId as member id and bad roleType are paramError; unknown user 404; dentryUuid is nodeNotExist', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Rules');
      const { operatorId, workspaceId, otherUser } = em.seed;
      const add = (nodeId: string, members: unknown) => call(em, 'POST', `/v1.0/doc/workspaces/${workspaceId}/docs/${nodeId}/members`, { body: { operatorId, members } });
      const byUnion = await add(doc.nodeId, [{ id: otherUser.unionId, roleType: 'viewer' }]);
      assert.equal(byUnion.status, 400);
      assert.equal(byUnion.body.code, 'paramError');
      assert.match(byUnion.body.message, /unionId/);
      assert.equal((await add(doc.nodeId, [{ id: otherUser.userId, roleType: 'owner' }])).body.code, 'paramError');
      const unknown = await add(doc.nodeId, [{ id: 'user-nobody', roleType: 'viewer' }]);
      assert.equal(unknown.status, 404);
      assert.match(unknown.body.message, /not a known user/);
      assert.equal((await add(doc.dentryUuid, [{ id: otherUser.userId, roleType: 'viewer' }])).body.code, 'nodeNotExist');
      const noOperator = await call(em, 'POST', `/v1.0/doc/workspaces/${workspaceId}/docs/${doc.nodeId}/members`, {
        query: { operatorId },
        body: { members: [{ id: otherUser.userId, roleType: 'viewer' }] },
      });
      assert.equal(noOperator.body.code, 'MissingoperatorId');
      const badRole = await call(em, 'PUT', `/v1.0/doc/workspaces/${workspaceId}/docs/${doc.nodeId}/members/${otherUser.userId}`, { body: { operatorId, roleType: 'admin' } });
      assert.equal(badRole.body.code, 'paramError');
      assert.deepEqual(em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid)?.members, []);
    }));

  test('search: case-insensitive in titles and bodies of one workspace; nodeBO.nodeId works as docKey', () =>
    withEmulator(async (em) => {
      const byTitle = await createDoc(em, 'Quarterly Report');
      const byBody = await createDoc(em, 'Notes');
      await overwrite(em, byBody.docKey, 'The REPORT is due friday.');
      await createDoc(em, 'Unrelated');
      const other = em.admin.dump().workspaces.find((w) => w.workspaceId !== em.seed.workspaceId);
      em.admin.createDocument({ workspaceId: other?.workspaceId ?? '', name: 'report elsewhere' });
      const r = await call(em, 'GET', '/v1.0/doc/docs', { query: { operatorId: em.seed.operatorId, workspaceId: em.seed.workspaceId, keyword: 'report' } });
      assert.equal(r.status, 200);
      assert.equal(r.body.hasMore, false);
      assert.deepEqual(r.body.docs.map((d: { nodeBO: { nodeId: string } }) => d.nodeBO.nodeId), [byTitle.dentryUuid, byBody.dentryUuid]);
      const entry = r.body.docs[0];
      assert.equal(entry.nodeBO.name, 'Quarterly Report.adoc');
      assert.equal(entry.nodeBO.url, byTitle.url);
      assert.deepEqual(entry.workspaceBO, { workspaceId: em.seed.workspaceId, name: 'Team Docs' });
      const viaSearch = await readBlocks(em, r.body.docs[1].nodeBO.nodeId);
      assert.equal(viaSearch.body.result.data[0].paragraph.text, 'The REPORT is due friday.');
      for (const query of [{ workspaceId: em.seed.workspaceId }, { keyword: 'x' }]) {
        const missing = await call(em, 'GET', '/v1.0/doc/docs', { query: { operatorId: em.seed.operatorId, ...query } });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.code, 'paramError');
      }
    }));

  test('search pages with hasMore and nextToken', () =>
    withEmulator(async (em) => {
      for (let i = 0; i < 7; i++) em.admin.createDocument({ name: `match ${i}` });
      const found: string[] = [];
      let nextToken = '';
      let pages = 0;
      for (;;) {
        const r = await call(em, 'GET', '/v1.0/doc/docs', { query: { operatorId: em.seed.operatorId, workspaceId: em.seed.workspaceId, keyword: 'MATCH', maxResults: 3, nextToken } });
        assert.equal(r.status, 200);
        pages++;
        found.push(...r.body.docs.map((d: { nodeBO: { name: string } }) => d.nodeBO.name));
        if (!r.body.hasMore) break;
        nextToken = r.body.nextToken;
        assert.ok(nextToken);
      }
      assert.equal(pages, 3);
      assert.deepEqual(found, Array.from({ length: 7 }, (_, i) => `match ${i}.adoc`));
      const bad = await call(em, 'GET', '/v1.0/doc/docs', { query: { operatorId: em.seed.operatorId, workspaceId: em.seed.workspaceId, keyword: 'other', nextToken } });
      assert.equal(bad.body.code, 'paramError', 'a nextToken of another search is refused');
    }));

  test('queryByUrl: a node url → that node; a workspace url → its root node; unknown → nodeNotExist', () =>
    withEmulator(async (em) => {
      const folder = await createDoc(em, 'Folder', { docType: 'FOLDER' });
      const doc = await createDoc(em, 'Doc', { parentNodeId: folder.dentryUuid });
      const query = (url: unknown, body: Record<string, unknown> = { operatorId: em.seed.operatorId }) =>
        call(em, 'POST', '/v2.0/wiki/nodes/queryByUrl', { query: { operatorId: em.seed.operatorId }, body: { url, ...body } });
      const byDoc = await query(doc.url);
      assert.equal(byDoc.status, 200);
      assert.equal(byDoc.body.node.nodeId, doc.dentryUuid);
      assert.equal(byDoc.body.node.name, 'Doc.adoc');
      assert.equal((await query(folder.url)).body.node.type, 'FOLDER');
      const byWorkspace = await query(em.seed.workspaceUrl);
      assert.equal(byWorkspace.body.node.nodeId, em.seed.rootNodeId);
      assert.equal(byWorkspace.body.node.url, em.seed.workspaceUrl);
      assert.equal((await query(`${em.url}/i/nodes/nope`)).body.code, 'nodeNotExist');
      assert.equal((await query('not a url')).body.code, 'paramError');
      const noQueryOperator = await call(em, 'POST', '/v2.0/wiki/nodes/queryByUrl', { body: { url: doc.url, operatorId: em.seed.operatorId } });
      assert.equal(noQueryOperator.body.code, 'MissingoperatorId');
    }));
});
