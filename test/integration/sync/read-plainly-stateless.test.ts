import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { foldedState } from '../../helpers/state-reader.js';
import { minuteByMinute, publishedOnBoth, reported, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Model seeds 10003, 7112, 9006 and four more, at the merge of convergence soak 741's fix: a machine that takes a
 * colleague's edit in from the plain reading says so in its record (`pr`). A run with no ledger row of the file (a CI
 * job's fresh checkout, a new workstation pulling it) built its row from that record without the mark, found the row
 * saying other than the state, and published it again: the CI job wrote to the state on every run ("a stateless CI
 * run of just-synced files wrote appendText"), and the new workstation's record, no reading, could stand over the
 * writer's exact record the mark lets win.
 */
const PAGE = '# Differences\n\nFirst paragraph.\n\nSecond paragraph.\n';

const WRITES = ['createDocument', 'overwriteContent', 'appendText', 'deleteDocument'] as const;
const writesOf = (report: SyncReport): string[] => WRITES.filter((endpoint) => report.callsByEndpoint[endpoint]);

/** A holds PAGE as a colleague's web edit left it, taken in from the plain reading and published as such (`pr`). */
async function afterPlainReading(keyless: boolean, fn: (a: SyncFixture, tick: () => void) => Promise<void>): Promise<void> {
  await withWorkstationPair(keyless, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'diff.md': PAGE });
    const { sync, tick } = minuteByMinute(em);
    const page = a.remoteDoc('Differences');
    em.admin.editDocument(page.dentryUuid, (page.markdown ?? '').replace('Second paragraph.', 'Second paragraph, edited in the web editor.'));
    const pulled = await sync(a);
    assert.ok(pulled.results.some((r) => r.ok && r.path === 'diff.md' && r.result === 'pulled'), JSON.stringify(pulled.results));
    assert.equal(foldedState(a, keyless ? null : undefined).entries.get('diff.md')?.pr, 1, "A's record says it read the page plainly");
    await fn(a, tick);
  });
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';

  test(`a CI job of a folder holding a plain reading writes nothing: the state describes it (${team})`, async () => {
    await afterPlainReading(keyless, async (a, tick) => {
      const ci = await createSyncFixture({ shared: a.em, ...(keyless ? { env: { KBSYNC_STATE_KEY: '' } } : {}) });
      try {
        await cp(a.root, ci.root, { recursive: true, filter: (src) => !src.startsWith(join(a.root, '.kbsync')) });
        tick();
        const run = await reported(ci, ['--push']);
        assert.deepEqual(writesOf(run), [], `a CI job of A's folder writes nothing: ${JSON.stringify(run.results)}`);
      } finally {
        await ci.close();
      }
    });
  });

  test(`a new workstation pulling a plain reading from the state keeps its record as it is: nothing published (${team})`, async () => {
    await afterPlainReading(keyless, async (a, tick) => {
      const c = await createSyncFixture({ shared: a.em, ...(keyless ? { env: { KBSYNC_STATE_KEY: '' } } : {}) });
      try {
        tick();
        const first = await reported(c);
        assert.ok(first.results.some((r) => r.ok && r.path === 'diff.md' && r.result === 'pulled'), JSON.stringify(first.results));
        assert.equal(await c.read('diff.md'), await a.read('diff.md'), "C takes A's text");
        assert.deepEqual(writesOf(first), [], `C's pull writes nothing, the state included: ${JSON.stringify(first.results)}`);
        assert.equal(foldedState(a, keyless ? null : undefined).entries.get('diff.md')?.pr, 1, "A's reading still stands as one");
      } finally {
        await c.close();
      }
    });
  });
}
