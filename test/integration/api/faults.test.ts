import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError } from '../../../src/api/errors.js';
import { asDocKey, asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { withEmulator, type RunningEmulator } from '../../helpers/emulator.js';
import { collect, emulatorClient } from './emulator-client.js';

/** Some documents with a body, made through the admin door (no calls counted). */
function seedDocs(em: RunningEmulator, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const doc = em.admin.createDocument({ name: `Doc ${i}`, markdown: `# Doc ${i}\n\nText ${i}.\n` });
    return doc.dentryUuid;
  });
}

void describe('the client rides out service faults', () => {
  void test(`a storm of 429 and 403 QpsLimit: every operation succeeds, creates included, and the accounting matches the service's`, async () => {
    await withEmulator(async (em) => {
      const ids = seedDocs(em, 3);
      const client = emulatorClient(em);
      const ws = asWorkspaceId(em.seed.workspaceId);
      em.admin.setFaults('429=0.2,qps403=0.15,seed=7');
      await Promise.all([
        ...ids.map((id) => client.readBlocks(asDocKey(id))),
        ...ids.map((id) => client.getNode(asTreeNodeId(id))),
        ...['A', 'B'].map((title) => client.createDocument(ws, { name: `Storm ${title}` })),
      ]);
      const ours = client.queue.stats().totals;
      const service = em.admin.calls();
      assert.equal(ours.failures, 0);
      assert.ok(ours.throttled > 0, 'the storm did throttle some calls');
      assert.equal(ours.calls, service.total);
      assert.equal(ours.throttled, service.throttled + service.faultsByKind.throttle429 + service.faultsByKind.qps403);
      const storms = em.admin.dump().nodes.filter((n) => n.title.startsWith('Storm '));
      assert.deepEqual(storms.map((n) => n.title).sort(), ['Storm A', 'Storm B'], 'each create happened exactly once');
    });
  });

  void test('5xx and resets on reads are retried until they succeed', async () => {
    await withEmulator(async (em) => {
      const ids = seedDocs(em, 5);
      const client = emulatorClient(em, { retry: { attempts: 10, baseDelayMs: 5, maxDelayMs: 50 } });
      // A fixed seed: with the emulator's random one, about one run in 280 (0.6^11) injected no fault in the
      // eleven first tries, and the test failed.
      em.admin.setFaults('5xx=0.2,reset=0.2,only=readBlocks|getNode|listNodes,seed=1');
      const reads = await Promise.all([...ids.map((id) => client.readBlocks(asDocKey(id))), ...ids.map((id) => client.getNode(asTreeNodeId(id)))]);
      assert.equal(reads.length, 10);
      await collect(client.listNodes(asTreeNodeId(em.seed.rootNodeId)));
      const stats = client.queue.stats().totals;
      const faults = em.admin.calls().faultsByKind;
      assert.equal(stats.failures, 0);
      assert.ok(faults.error5xx + faults.reset > 0, 'faults were injected');
      assert.equal(stats.retries, faults.error5xx + faults.reset);
    });
  });

  void test('a create whose answer is dropped is an unknown outcome, sent once, and the document exists exactly once', async () => {
    await withEmulator(async (em) => {
      const client = emulatorClient(em);
      const ws = asWorkspaceId(em.seed.workspaceId);
      em.admin.setFaults('drop=1,only=createDocument');
      const error = await client.createDocument(ws, { name: 'Dropped answer' }).then(
        () => assert.fail('expected OutcomeUnknownError'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof OutcomeUnknownError, String(error));
      assert.equal(error.endpoint, 'createDocument');
      assert.equal(em.admin.calls().byEndpoint.createDocument.calls, 1);
      assert.equal(client.queue.stats().endpoints['createDocument']?.calls, 1);
      assert.equal(em.admin.dump().nodes.filter((n) => n.title === 'Dropped answer').length, 1);
      // How the caller reconciles: search finds the document that was made.
      em.admin.setFaults('');
      const hits = await collect(client.search(ws, 'Dropped answer'));
      assert.equal(hits.length, 1);
    });
  });

  void test('a 5xx on append is an unknown outcome and is not repeated', async () => {
    await withEmulator(async (em) => {
      const doc = em.admin.createDocument({ name: 'Append', markdown: 'Hello.\n' });
      const client = emulatorClient(em);
      const [paragraph] = await client.readBlocks(asDocKey(doc.dentryUuid));
      assert.ok(paragraph);
      em.admin.setFaults('5xx=1,only=appendText');
      await assert.rejects(client.appendText(asDocKey(doc.dentryUuid), paragraph.id, ' World'), OutcomeUnknownError);
      assert.equal(em.admin.calls().byEndpoint.appendText.calls, 1);
    });
  });

  void test('a listing that fails on a later page fails as a whole (a partial listing never looks complete)', async () => {
    await withEmulator(async (em) => {
      const folder = em.admin.createDocument({ name: 'Paged', folder: true });
      for (let i = 0; i < 12; i++) em.admin.createDocument({ name: `p${i}`, parentNodeId: folder.dentryUuid });
      em.admin.setFaults('listFailPage=2');
      const client = emulatorClient(em);
      await assert.rejects(collect(client.listNodes(asTreeNodeId(folder.dentryUuid), { pageSize: 5 })), (e: unknown) => e instanceof ApiError && e.code === 'API_SERVER');
    });
  });
});
