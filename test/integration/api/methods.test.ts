import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asTreeNodeId, asUserId, asWorkspaceId } from '../../../src/model/ids.js';
import { withEmulator } from '../../helpers/emulator.js';
import { collect, emulatorClient } from './emulator-client.js';

void describe('KbClient against the emulator', () => {
  void test('every method, end to end, with the two ids kept apart', async () => {
    await withEmulator(async (em) => {
      const client = emulatorClient(em);
      const ws = asWorkspaceId(em.seed.workspaceId);

      const workspaces = await collect(client.listWorkspaces());
      assert.ok(workspaces.some((w) => w.workspaceId === ws));
      const workspace = await client.getWorkspace(ws);
      assert.equal(workspace.rootNodeId, em.seed.rootNodeId);

      const folder = await client.createDocument(ws, { name: 'Plans', folder: true });
      const doc = await client.createDocument(ws, { name: 'Roadmap', parentNodeId: folder.treeNodeId });
      assert.notEqual(doc.nodeId as string, doc.docKey as string, 'the emulator gives the creation nodeId a different value');

      await client.overwrite(doc.docKey, '# Roadmap\n\nFirst paragraph.\n\n- one\n- two\n');
      const blocks = await client.readBlocks(doc.docKey);
      assert.deepEqual(blocks.map((b) => b.type), ['heading', 'paragraph', 'unorderedList', 'unorderedList']);
      const paragraph = blocks[1];
      assert.ok(paragraph?.type === 'paragraph');
      assert.equal(await client.appendText(doc.docKey, paragraph.id, ' More.'), 'First paragraph. More.');
      assert.equal((await client.readBlocks(doc.docKey, { blockType: 'heading' })).length, 1);

      const children = await collect(client.listNodes(folder.treeNodeId));
      assert.deepEqual(children.map((n) => [n.title, n.docKey, n.isRichDoc, n.type]), [['Roadmap', doc.docKey, true, 'FILE']]);
      const top = await collect(client.listNodes(workspace.rootNodeId));
      assert.ok(top.some((n) => n.treeNodeId === folder.treeNodeId && n.type === 'FOLDER' && n.docKey === undefined));
      const byId = await client.getNode(doc.treeNodeId);
      assert.equal(byId.name, 'Roadmap.adoc');
      assert.equal((await client.getNodeByUrl(byId.url)).treeNodeId, doc.treeNodeId);

      const hits = await collect(client.search(ws, 'Roadmap'));
      assert.deepEqual(hits.map((h) => [h.docKey, h.title, h.workspaceId]), [[doc.docKey, 'Roadmap', ws]]);

      const member = asUserId(em.seed.otherUser.userId);
      await client.addMembers(ws, doc.nodeId, [{ userId: member, role: 'viewer' }]);
      await client.updateMember(ws, doc.nodeId, member, 'editor');
      const withMember = em.admin.dump().nodes.find((n) => n.dentryUuid === doc.treeNodeId);
      assert.ok(withMember?.members.some((m) => m.userId === member && m.roleType === 'editor'));
      await client.removeMember(ws, doc.nodeId, member);
      assert.ok(!em.admin.dump().nodes.find((n) => n.dentryUuid === doc.treeNodeId)?.members.some((m) => m.userId === member));

      await client.deleteDocument(ws, doc.nodeId);
      assert.equal((await collect(client.listNodes(folder.treeNodeId))).length, 0);

      // Our accounting matches the service's, call for call.
      const ours = client.queue.stats();
      assert.equal(ours.totals.calls, em.admin.calls().total);
      assert.equal(ours.totals.failures, 0);
    });
  });

  void test('paging: more than 50 children come back whole, at 50 per call by default, and in small pages', async () => {
    await withEmulator(async (em) => {
      const client = emulatorClient(em);
      const folder = em.admin.createDocument({ name: 'Many', folder: true });
      for (let i = 0; i < 57; i++) em.admin.createDocument({ name: `doc ${String(i).padStart(2, '0')}`, parentNodeId: folder.dentryUuid });
      const parent = asTreeNodeId(folder.dentryUuid);

      em.admin.resetCalls();
      const all = await collect(client.listNodes(parent));
      assert.equal(new Set(all.map((n) => n.treeNodeId)).size, 57);
      assert.equal(em.admin.calls().byEndpoint.listNodes.calls, 2);

      const small = await collect(client.listNodes(parent, { pageSize: 10 }));
      assert.deepEqual(small.map((n) => n.treeNodeId), all.map((n) => n.treeNodeId));

      const first = await client.listNodesPage(parent, undefined, { pageSize: 50 });
      assert.equal(first.nodes.length, 50);
      assert.ok(first.nextToken);
      const second = await client.listNodesPage(parent, first.nextToken, { pageSize: 50 });
      assert.equal(second.nodes.length, 7);
      assert.equal(second.nextToken, undefined);
    });
  });

  void test('search pages across several answers', async () => {
    await withEmulator(async (em) => {
      for (let i = 0; i < 60; i++) em.admin.createDocument({ name: `Meeting ${i}` });
      const hits = await collect(emulatorClient(em).search(asWorkspaceId(em.seed.workspaceId), 'Meeting'));
      assert.equal(new Set(hits.map((h) => h.docKey)).size, 60);
    });
  });
});
