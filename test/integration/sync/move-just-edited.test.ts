import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { withReadGate, type ReadGateWorld } from '../../helpers/held-read.js';
import { withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, model seeds 1015 and 6018: a file moved to another folder a moment after its document changed where reads
 * cannot show (a colleague's code line). The body's decision waited for the minutes in which a kbsync writer's record
 * could still explain the time (BodyDecision.waiting), but the move went on without it: it made the new document from
 * the file and deleted the old one, the colleague's edit with it. The move now waits as the body does: the run after
 * those minutes holds it (MOVE_LOSSY) for a colleague's edit, or carries another machine's version along. And the
 * move asks the document's time again after reading it, not taking the listing's: a code line saved between the
 * two reads the same, and the listing's time from before it let the move go on (seed 6018 as it replayed later,
 * the save landing between A's listing and its read). So does a move whose document stays where it is (one this
 * machine cannot delete), which sends the file's edit over it (model seed 8020, a team without a key).
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
const OTHER = '# Other\n\nElsewhere.\n';
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);

type Report = NonNullable<Awaited<ReturnType<SyncFixture['sync']>>['report']>;

async function synced(f: SyncFixture, env?: Record<string, string>): Promise<Report> {
  const run = await f.sync([], env);
  assert.ok(run.report, run.stderr);
  return run.report;
}

/** TEXT (and a file in `ops`, so the folder exists) published by A and pulled by B, in minutes now over. */
async function settled(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<void> {
  em.admin.freezeClock(EPOCH);
  await a.write('runbook.md', TEXT);
  await a.write('ops/other.md', OTHER);
  await synced(a);
  await synced(b);
  em.admin.setClockOffset(2 * 60_000);
  await synced(a);
  await synced(b);
  em.admin.setClockOffset(4 * 60_000);
}

async function move(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

const reasonOf = (report: Report, path: string): string | undefined => {
  const result = report.results.find((r) => r.path === path);
  return result?.ok && result.result === 'held' ? result.reason : undefined;
};

const runbooks = (em: RunningEmulator) => em.admin.dump().nodes.filter((n) => n.docType === 'DOC' && n.title === 'Runbook');

/**
 * `f`'s run of its moved file, a colleague's code line saved while its read of the document waits (after the
 * listing): the document stays where it was and the line stands. Returns the run's report.
 */
async function movedAsCodeLineSaved({ em, f, holdNextRead }: ReadGateWorld, doc: { readonly dentryUuid: string }, env?: Record<string, string>): Promise<Report> {
  const read = holdNextRead(doc.dentryUuid);
  const moving = synced(f, env);
  await read.reached;
  em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Runbook').markdown ?? '').replace('restart --all', 'restart --all --graceful'));
  read.release();
  const report = await moving;
  assert.deepEqual(runbooks(em).map((n) => n.dentryUuid), [doc.dentryUuid], 'the document stays where it was');
  assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code line stands");
  return report;
}

test("a file moved a moment after a colleague's edit inside code: the move waits, then holds MOVE_LOSSY, and the edit stays", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    const doc = a.remoteDoc('Runbook');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
    await move(a, 'runbook.md', 'ops/runbook.md');

    const soon = await synced(a);
    assert.deepEqual(runbooks(em).map((n) => n.dentryUuid), [doc.dentryUuid], 'the document stays where it was, and no second one is made');
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's edit stands");
    assert.equal(reasonOf(soon, 'ops/runbook.md'), 'MOVE_JUST_EDITED', JSON.stringify(soon.results));

    em.admin.setClockOffset(7 * 60_000);
    const after = await synced(a);
    assert.equal(reasonOf(after, 'ops/runbook.md'), 'MOVE_LOSSY', 'no record came: an edit a move would lose');
    assert.deepEqual(runbooks(em).map((n) => n.dentryUuid), [doc.dentryUuid]);
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/);
  });
});

test("a file moved a moment after another machine's write inside code, its record on its way: the move waits, then carries that write along", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    const graceful = TEXT.replace('restart --all', 'restart --all --graceful');
    await b.write('runbook.md', graceful);
    const killed = await b.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
    assert.notEqual(killed.code, 0, 'B is killed between its write and its record');
    await move(a, 'runbook.md', 'ops/runbook.md');

    const soon = await synced(a);
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "B's write stands");
    assert.equal(reasonOf(soon, 'ops/runbook.md'), 'MOVE_JUST_EDITED', JSON.stringify(soon.results));

    await synced(b);
    em.admin.setClockOffset(7 * 60_000);
    const moved = await synced(a);
    assert.doesNotMatch(JSON.stringify(moved.results), /HIDDEN_EDIT|MOVE_LOSSY/, JSON.stringify(moved.results));
    assert.equal(await a.read('ops/runbook.md'), graceful, "A's file takes B's version from its record");
    const [now, ...more] = runbooks(em);
    assert.equal(more.length, 0, 'one document');
    assert.notEqual(now?.dentryUuid, undefined);
    assert.equal(now?.parentId, em.admin.dump().nodes.find((n) => n.docType === 'FOLDER' && n.title === 'ops')?.dentryUuid, 'it moved to ops');
    assert.match(now?.markdown ?? '', /--graceful/, "B's write moved along");
  });
});

test("a code line saved between the listing and the read of a file's document as it moves: seen by the time asked after the read, and the move waits", async () => {
  await withReadGate(EPOCH, async (world) => {
    const { f, tick } = world;
    await f.write('runbook.md', TEXT);
    await f.write('ops/other.md', OTHER);
    await synced(f);
    tick();
    tick();
    await synced(f);
    tick();
    const doc = f.remoteDoc('Runbook');
    await move(f, 'runbook.md', 'ops/runbook.md');

    const soon = await movedAsCodeLineSaved(world, doc);
    assert.equal(reasonOf(soon, 'ops/runbook.md'), 'MOVE_JUST_EDITED', JSON.stringify(soon.results));

    tick();
    tick();
    tick();
    assert.equal(reasonOf(await synced(f), 'ops/runbook.md'), 'MOVE_LOSSY', 'an edit a move would lose');
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/);
  });
});

test("a file moved with an edit, its document one this machine cannot delete (a keyless team's, made on another machine): a code line saved between the listing and the read is not overwritten (model seed 8020)", async () => {
  await withReadGate(EPOCH, async (world) => {
    const { em, f, tick } = world;
    const keyless = { KBSYNC_STATE_KEY: '' };
    const maker = await createSyncFixture({ shared: em, env: keyless });
    try {
      await maker.write('runbook.md', TEXT);
      await maker.write('ops/other.md', OTHER);
      await synced(maker);
    } finally {
      await maker.close();
    }
    tick();
    tick();
    await synced(f, keyless);
    tick();
    const doc = f.remoteDoc('Runbook');
    await move(f, 'runbook.md', 'ops/runbook.md');
    await f.write('ops/runbook.md', TEXT.replace('Before you start', 'Before anything'));

    const run = await movedAsCodeLineSaved(world, doc, keyless);
    const result = run.results.find((r) => r.path === 'ops/runbook.md');
    // A kbsync writer's record of that time may still come: the file's edit waits, and says so (convergence soak 762).
    assert.ok(result?.ok && result.result === 'held' && /edited locally, but its document changed in the last minute or two/.test(result.detail ?? ''), `the wait is said: ${JSON.stringify(run.results)}`);
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/);

    tick();
    tick();
    tick();
    const judged = (await synced(f, keyless)).results.find((r) => r.path === 'ops/runbook.md');
    assert.ok(judged?.ok && judged.result === 'held' && /a part the service does not show/.test(judged.detail ?? ''), `the hidden edit is said: ${JSON.stringify(judged)}`);
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, 'not overwritten');
  });
});
