import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * A file's own source (its code blocks) never gives way to kbsync's placeholders, the plain reading's stand-in
 * for what reads hide. The soak found both machines' files holding placeholders where a guide's code stood
 * (old seeds 13, 14, 2): the daemon that made the document was killed about a second later, a colleague edited
 * the page meanwhile, and the other machine, with no source in the shared state that matched the edited page,
 * pulled it from the plain reading. Then, back, the first machine either merged its file with the page from an
 * empty base (its first body landed but was never recorded: every block "added" on both sides, the code block
 * as a placeholder, the colleague's paragraph twice), or took the other machine's placeholder text as another
 * writer's newer version of the document (`pulled (HIDDEN_EDIT …)`, over its own code).
 */

const GUIDE = '# Guide\n\nRun this:\n\n```sh\nnpm test\n```\n\nThen more words.\n';
const EDITED = '# Guide\n\nRun this:\n\n```sh\nnpm test\n```\n\nThen more colleague words.\n';
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

/** The service's clock, stopped, and moved a minute at a time between steps (each edit in a minute of its own). */
function clock(em: RunningEmulator): () => void {
  em.admin.freezeClock(EPOCH);
  let minutes = 0;
  return () => em.admin.setClockOffset(++minutes * 60_000);
}

/** The colleague changes words of the guide in the web editor. */
function colleagueEdits(em: RunningEmulator, a: SyncFixture, from: string, to: string): void {
  const doc = a.remoteDoc('Guide');
  em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace(from, to));
}

async function synced(f: SyncFixture, tick: () => void): Promise<void> {
  const run = await f.sync();
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  tick();
}

const firstRunKilledAt = async (a: SyncFixture, point: string): Promise<void> => {
  await a.write('guide.md', GUIDE);
  const killed = await a.sync([], { KBSYNC_CRASH_AT: point });
  assert.equal(killed.signal, 'SIGKILL', `the first run died at ${point}: ${killed.stderr}`);
  assert.match(a.remoteDoc('Guide').markdown ?? '', /npm test/, 'its first body reached the document');
};

for (const point of ['after-overwrite', 'before-publish']) {
  for (const otherFirst of [false, true]) {
    test(`a first push killed at ${point}, a colleague's word edit${otherFirst ? ', the other machine pulling first' : ''}: both files keep the code and take the words`, async () => {
      await withWorkstationPair(false, async (em, a, b) => {
        const tick = clock(em);
        await firstRunKilledAt(a, point);
        tick();
        colleagueEdits(em, a, 'Then more words.', 'Then more colleague words.');
        tick();
        if (otherFirst) await synced(b, tick);
        await synced(a, tick);
        assert.equal(await a.read('guide.md'), EDITED, 'the file that made the document keeps its code and takes the words');
        await synced(b, tick);
        await synced(a, tick);
        assert.equal(await b.read('guide.md'), EDITED, 'the other machine ends with the source too');
        // And a later edit inside the code is still seen where reads hide it: held, not overwritten.
        colleagueEdits(em, a, 'npm test', 'npm test\nnpm run lint');
        tick();
        await synced(a, tick);
        await synced(b, tick);
        for (const f of [a, b]) assert.equal(await f.read('guide.md'), EDITED);
        assert.match(a.remoteDoc('Guide').markdown ?? '', /npm run lint/);
      });
    });
  }
}
