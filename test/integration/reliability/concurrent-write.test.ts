import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { convergenceProblems, locallyPresent, remotelyPresent, steadyProblems } from '../../helpers/reliability.js';

/**
 * A write is read back by the next read of its document once the write's minute is over, not right after it
 * (act/apply-body.ts, decide/read-back.ts). The service stamps times to the minute, so a colleague's edit
 * made in the minute of our write keeps the time the write gave the document: the listing alone cannot show
 * it. These tests pin the service's clock so that the edit lands in the very minute of our write, then let the
 * minute end, and check that the next run reads the document, finds the edit and merges it (an earlier version
 * recorded another writer's edit that landed between the overwrite and its read-back as "what we pushed", so
 * neither side ever got the other's edit).
 */

/** The service's clock, stopped mid-minute: everything until `minuteOver` is stamped with that one minute. */
function pinMinute(f: SyncFixture): { minuteOver(): void } {
  const mid = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  f.em.admin.freezeClock(mid);
  return { minuteOver: () => f.em.admin.freezeClock(mid + 90_000) };
}

test("a colleague's edit made in the minute of our write, after it, is merged by the next run, not dropped", async () => {
  await withSyncFixture(async (f) => {
    await f.write('race.md', '# Race\n\nFirst paragraph.\n\nSecond paragraph.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(120_000);
    assert.equal((await f.sync()).code, 0, 'settled: the first write read back');
    const clock = pinMinute(f);
    await f.write('race.md', '# Race\n\nFirst paragraph, ourwordsmarker.\n\nSecond paragraph.\n');
    f.em.admin.resetCalls();
    const push = await f.sync(['--push']);
    assert.equal(push.code, 0, push.stderr);
    // The check before the overwrite, the overwrite; no read-back in the write's own minute.
    assert.equal(f.em.admin.calls().byEndpoint.readBlocks.calls, 1);
    const stamped = f.remoteDoc('Race').modifiedTime;
    const doc = f.remoteDoc('Race');
    f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Second paragraph.', 'Second paragraph, theirwordsmarker.'));
    assert.equal(f.remoteDoc('Race').modifiedTime, stamped, 'the edit keeps the minute of our write: a listing cannot tell');
    clock.minuteOver();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.match(await f.read('race.md'), /ourwordsmarker[\s\S]*theirwordsmarker/);
    assert.ok(remotelyPresent(f, 'ourwordsmarker') && remotelyPresent(f, 'theirwordsmarker'));
    assert.deepEqual(await convergenceProblems(f), []);
    assert.deepEqual(await steadyProblems(f), []);
  });
});

test("a colleague's edit of a new document in the minute it was published reaches the file; the read that finds it is the write's only read-back", async () => {
  await withSyncFixture(async (f) => {
    const clock = pinMinute(f);
    await f.write('fresh.md', '# Fresh\n\nOur first words.\n');
    const push = await f.sync(['--push']);
    assert.equal(push.code, 0, push.stderr);
    const doc = f.remoteDoc('Fresh');
    assert.deepEqual(f.em.admin.callsOn(doc.dentryUuid), { overwriteContent: 1 }, 'the body written once, not read back in its own minute');
    f.em.admin.editDocument(doc.dentryUuid, `${doc.markdown ?? ''}\nTheir words, theirwordsmarker.\n`);
    clock.minuteOver();
    f.em.admin.resetCalls();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    assert.ok(await locallyPresent(f, 'theirwordsmarker'), 'the edit reached the file');
    assert.equal(f.em.admin.callsOn(doc.dentryUuid).readBlocks, 1, 'one read of the note: the verification');
    assert.deepEqual(await convergenceProblems(f), []);
    assert.deepEqual(await steadyProblems(f), []);
  });
});

test('a first publish and the run after it: create, body and one verifying read a note, and the verification writes nothing to the shared state', async () => {
  await withSyncFixture(async (f) => {
    const notes = ['one', 'two', 'three', 'four'];
    // A table: reads give its size, not its cells, so the verifying read hashes otherwise than the prediction.
    for (const name of notes) await f.write(`${name}.md`, `# ${name}\n\nThe ${name} note.\n\n- a list\n- of items\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n`);
    const clock = pinMinute(f);
    const push = await f.sync(['--push']);
    assert.equal(push.code, 0, push.stderr);
    const docs = notes.map((name) => f.remoteDoc(name).dentryUuid);
    for (const doc of docs) assert.deepEqual(f.em.admin.callsOn(doc), { overwriteContent: 1 });
    clock.minuteOver();
    f.em.admin.resetCalls();
    const next = await f.sync();
    assert.equal(next.code, 0, next.stderr);
    for (const doc of docs) assert.deepEqual(f.em.admin.callsOn(doc), { readBlocks: 1 }, 'one read: the write verified, its minute over');
    // The root's listing and the state folder's, and one read of the state's index: its last append was in a minute
    // not over when the push ended, when another writer's append may have joined it (README "The windows that
    // remain"). Nothing appended: the verification is no news to another machine.
    assert.deepEqual(next.report?.callsByEndpoint, { listNodes: 2, readBlocks: notes.length + 1 });
    f.em.admin.resetCalls();
    const idle = await f.sync();
    assert.deepEqual(idle.report?.callsByEndpoint, { listNodes: 2 }, 'then the listing minimum');
  });
});
