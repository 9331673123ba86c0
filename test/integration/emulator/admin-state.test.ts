import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { call, createDoc, overwrite, readBlocks, withEmulator } from '../../helpers/emulator.js';

type Block = { id: string; blockType: string } & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('emulator: admin (remote edits, dump) and the state file', () => {
  test('editDocument acts as the colleague, keeps the ids of unchanged and edited-in-place blocks, moves modifiedTime, and is not a call', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Shared');
      await overwrite(em, doc.docKey, '# A\n\none\n\ntwo\n');
      const before: Block[] = (await readBlocks(em, doc.docKey)).body.result.data;
      const callsBefore = em.admin.calls().total;
      em.admin.setClockOffset(3 * 60_000);
      em.admin.editDocument(doc.dentryUuid, '# A\n\none changed\n\ntwo\n\nthree\n');
      assert.equal(em.admin.calls().total, callsBefore, 'remote edits are not service calls');
      const after: Block[] = (await readBlocks(em, doc.docKey)).body.result.data;
      assert.equal(after[0]?.id, before[0]?.id);
      // A paragraph edited in place stays the same block, as in a web editor; an added one is new.
      assert.equal(after[1]?.id, before[1]?.id);
      assert.equal(after[1]?.['paragraph'].text, 'one changed');
      assert.equal(after[2]?.id, before[2]?.id);
      assert.equal(after[3]?.['paragraph'].text, 'three');
      assert.ok(!before.some((block) => block.id === after[3]?.id));
      const node = em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid);
      assert.equal(node?.modifierId, em.seed.otherUser.unionId);
      assert.equal(node?.creatorId, em.seed.operatorId);
      assert.ok((node?.modifiedAtMs ?? 0) > (node?.createdAtMs ?? 0));
      assert.equal(node?.markdown, '# A\n\none changed\n\ntwo\n\nthree\n');
      em.admin.editDocument(doc.dentryUuid, 'x', { asUser: em.seed.operatorId });
      assert.equal(em.admin.dump().nodes.find((n) => n.dentryUuid === doc.dentryUuid)?.modifierId, em.seed.operatorId);
    }));

  test('createDocument, renameNode, moveNode, deleteNode as the web editor would', () =>
    withEmulator(async (em) => {
      const folder = em.admin.createDocument({ name: 'Folder', folder: true });
      const doc = em.admin.createDocument({ name: 'Doc', markdown: '# Hi\n', parentNodeId: folder.dentryUuid });
      assert.notEqual(doc.nodeId, doc.dentryUuid);
      assert.equal(doc.docKey, doc.dentryUuid);
      assert.equal((await readBlocks(em, doc.dentryUuid)).body.result.data[0].heading.text, 'Hi');
      const del = await call(em, 'DELETE', `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs/${folder.nodeId}`, { query: { operatorId: em.seed.operatorId } });
      assert.equal(del.status, 200, 'the creation nodeId from the admin works for delete');
      const a = em.admin.createDocument({ name: 'A' });
      const b = em.admin.createDocument({ name: 'B', folder: true });
      em.admin.renameNode(a.dentryUuid, 'A2.adoc');
      const node = (await call(em, 'GET', `/v2.0/wiki/nodes/${a.dentryUuid}`, { query: { operatorId: em.seed.operatorId } })).body.node;
      assert.equal(node.name, 'A2.adoc');
      assert.equal(node.modifierId, em.seed.otherUser.unionId);
      em.admin.moveNode(a.dentryUuid, b.dentryUuid);
      const inB = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { operatorId: em.seed.operatorId, parentNodeId: b.dentryUuid } });
      assert.deepEqual(inB.body.nodes.map((n: { nodeId: string }) => n.nodeId), [a.dentryUuid]);
      assert.throws(() => em.admin.moveNode(b.dentryUuid, a.dentryUuid), /under itself/);
      em.admin.createDocument({ name: 'A2', parentNodeId: em.seed.rootNodeId });
      assert.throws(() => em.admin.moveNode(a.dentryUuid, em.seed.rootNodeId), /already exists/);
      em.admin.deleteNode(b.dentryUuid);
      assert.equal((await readBlocks(em, a.dentryUuid)).body.code, 'docNotExist');
      const ws = em.admin.addWorkspace({ name: 'Third' });
      const list = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
      assert.ok(list.body.workspaces.some((w: { workspaceId: string }) => w.workspaceId === ws.workspaceId));
    }));

  test('the admin over HTTP: seed, state, calls, remote edits', () =>
    withEmulator(async (em) => {
      const json = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(`${em.url}/_emulator${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: r.status, body: (await r.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
      };
      assert.equal((await json('GET', '/seed')).body.operatorId, em.seed.operatorId);
      const created = await json('POST', '/documents', { name: 'Remote', markdown: 'para' });
      assert.equal(created.status, 200);
      assert.equal((await json('POST', `/documents/${created.body.dentryUuid}/edit`, { markdown: 'edited' })).status, 200);
      assert.equal((await json('POST', `/nodes/${created.body.dentryUuid}/rename`, { name: 'Renamed' })).status, 200);
      const state = (await json('GET', '/state')).body;
      const node = state.nodes.find((n: { dentryUuid: string }) => n.dentryUuid === created.body.dentryUuid);
      assert.equal(node.title, 'Renamed');
      assert.equal(node.creationNodeId, created.body.nodeId);
      assert.equal(node.markdown, 'edited');
      assert.equal(node.blocks[0].paragraph.text, 'edited');
      assert.equal((await json('POST', '/documents/nope/edit', { markdown: 'x' })).body.code, 'docNotExist');
      await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
      assert.equal((await json('GET', '/calls')).body.byEndpoint.listWorkspaces.calls, 1);
      await json('POST', '/calls/reset');
      assert.equal((await json('GET', '/calls')).body.total, 0);
      assert.equal((await json('DELETE', `/nodes/${created.body.dentryUuid}`)).status, 200);
      assert.equal((await json('GET', '/nope')).status, 404);
    }));

  test('a file-backed emulator survives a restart with the same tokens, ids and bodies', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kbsync-emulator-'));
    try {
      const statePath = join(dir, 'state.db');
      const first = await startEmulator({ statePath });
      let doc: Awaited<ReturnType<typeof createDoc>>;
      try {
        doc = await createDoc(first, 'Kept');
        await overwrite(first, doc.docKey, '# Kept body\n');
      } finally {
        await first.close();
      }
      const second = await startEmulator({ statePath });
      try {
        const { baseUrl: _a, workspaceUrl: _b, ...seedA } = first.seed;
        const { baseUrl: _c, workspaceUrl: _d, ...seedB } = second.seed;
        assert.deepEqual(seedB, seedA);
        const blocks = await readBlocks(second, doc.docKey);
        assert.equal(blocks.body.result.data[0].heading.text, 'Kept body');
        const another = await createDoc(second, 'New');
        assert.notEqual(another.dentryUuid, doc.dentryUuid);
        const del = await call(second, 'DELETE', `/v1.0/doc/workspaces/${second.seed.workspaceId}/docs/${doc.nodeId}`, { query: { operatorId: second.seed.operatorId } });
        assert.equal(del.status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('the same seed gives the same ids; options are validated', async () => {
    const a = await startEmulator({ seed: 42 });
    const b = await startEmulator({ seed: 42 });
    try {
      assert.equal(a.seed.token, b.seed.token);
      assert.equal(a.seed.workspaceId, b.seed.workspaceId);
      assert.equal(a.admin.createDocument({ name: 'x' }).dentryUuid, b.admin.createDocument({ name: 'x' }).dentryUuid);
    } finally {
      await a.close();
      await b.close();
    }
    await assert.rejects(startEmulator({ port: -1 }), /port/);
    await assert.rejects(startEmulator({ rateLimit: -3 }), /rateLimit/);
  });
});
