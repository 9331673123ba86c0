import { test } from 'node:test';
import assert from 'node:assert/strict';
import { syncOnce } from '../../helpers/in-process-sync.js';
import { ledgerRows, writeCalls } from '../../helpers/reliability.js';
import { foldedState } from '../../helpers/state-reader.js';
import { stateNodes, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A push killed after its writes landed and before the run published the shared state: the next run finds
 * the writes done (their intents' bodies are in the documents) and so writes no document, but it must still
 * publish what the killed run could not. It did not: the state kept the files' old records (other machines and
 * CI learnt nothing of the edit) until some later run read the state, and that run, with nothing to do,
 * appended them then (the crash matrix's "steady run wrote to the service: {appendText: 2}", records and
 * source, whenever a minute ended between the rerun and the run after it). A run killed after its last action
 * was recorded and before its publish leaves no intent open, only the publish it owed (owePublication). A run
 * killed after its state append had published already: the next one appends nothing again.
 */
const CASES = [
  { point: 'before-ledger-commit', intentsLeftOpen: true, publishedBeforeTheKill: false },
  { point: 'after-overwrite:2', intentsLeftOpen: true, publishedBeforeTheKill: false },
  { point: 'before-publish', intentsLeftOpen: false, publishedBeforeTheKill: false },
  { point: 'after-state-append', intentsLeftOpen: false, publishedBeforeTheKill: true },
] as const;

/** What the state documents were asked, for a failure's message. */
const stateCalls = (f: SyncFixture): string =>
  stateNodes(f.em.admin.dump().nodes)
    .map((node) => `${node.title}: ${JSON.stringify(f.em.admin.callsOn(node.dentryUuid))}`)
    .join('; ');

for (const { point, intentsLeftOpen, publishedBeforeTheKill } of CASES) {
  test(`a push killed at ${point}: the run that finishes it leaves the shared state as its ledger, and the next run writes nothing`, async () => {
    await withSyncFixture(async (f) => {
      for (const n of [1, 2]) await f.write(`e${n}.md`, `# E${n}\n\nFirst paragraph of e${n}.\n\nLast paragraph of e${n}\n`);
      assert.equal((await syncOnce(f)).code, 0);
      // This run reads the state the first made and remembers it seen, as every later run of a machine does.
      assert.equal((await syncOnce(f)).code, 0);
      // e1: the cheap append to its last paragraph; e2: an overwrite.
      await f.write('e1.md', `${(await f.read('e1.md')).trimEnd()} appended\n`);
      await f.write('e2.md', (await f.read('e2.md')).replace('First paragraph of e2.', 'First paragraph of e2, edited.'));
      const killed = await f.sync([], { KBSYNC_CRASH_AT: point });
      assert.equal(killed.signal, 'SIGKILL', `the run reached ${point}`);

      // Which of the two writes reached the service before the kill is the executor's order, not this test's: an
      // append that landed is never made again, and one that did not is made once.
      const appendLanded = (f.em.admin.callsOn(f.remoteDoc('E1').dentryUuid).appendText ?? 0) > 0;
      f.em.admin.resetCalls();
      const rerun = await f.sync();
      assert.equal(rerun.code, 0, rerun.stderr);
      // Killed after its last action was recorded, the run had closed every intent: nothing is left open to resume.
      assert.equal(rerun.report?.resumed !== 0, intentsLeftOpen, `resumed ${String(rerun.report?.resumed)}`);
      const e1 = f.remoteDoc('E1');
      assert.equal(f.em.admin.callsOn(e1.dentryUuid).appendText, appendLanded ? undefined : 1, appendLanded ? 'the append that landed is not made twice' : 'the append the kill stopped is made once');
      assert.equal((e1.markdown ?? '').match(/appended/g)?.length, 1);
      if (publishedBeforeTheKill) assert.deepEqual(writeCalls(f.em.admin.calls()), {}, `the killed run's records are in the state already (${stateCalls(f)})`);
      const entries = foldedState(f).entries;
      for (const row of ledgerRows(f)) assert.equal(entries.get(row.path)?.h, row.localHash, `the shared state records ${row.path} as the ledger does`);

      // A minute later (the state's last append is over, so the next run reads the state): nothing to write.
      f.em.admin.setClockOffset(2 * 60_000);
      f.em.admin.resetCalls();
      const steady = await syncOnce(f);
      assert.equal(steady.code, 0, steady.stderr);
      assert.deepEqual(writeCalls(f.em.admin.calls()), {}, `a run with nothing to do writes nothing (${stateCalls(f)})`);
    });
  });
}
