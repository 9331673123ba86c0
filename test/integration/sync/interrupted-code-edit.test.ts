import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502 (issue 44, a false HIDDEN_EDIT said by both machines): B edited a line inside a code block, and its
 * run was killed after the overwrite landed, before its record (ledger and shared state). The next run found the
 * write by its intent, but the shared state still held B's own record of the version that write replaced: its
 * visible blocks are the document's (code reads the same), and it looked as new as the landed write. So it was
 * taken for the document's latest version, the write's later minute for an edit reads cannot show: B said
 * HIDDEN_EDIT, put the replaced code line back into its file, and published that (`hd`); A said HIDDEN_EDIT after it
 * and held every later edit of the page. Nobody but B had touched the code.
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
const CODE_EDIT = TEXT.replace('restart --all', 'restart --all --graceful');

const runbook = (f: SyncFixture): string => f.remoteDoc('Runbook').markdown ?? '';

/** What a run said of runbook.md (every result and its words). */
const said = (report: Awaited<ReturnType<typeof synced>>): string => JSON.stringify(report.results.filter((r) => r.path === 'runbook.md'));

/**
 * B's `edited` text saved, and B killed between its write and its record; `minutes`: the service's clock then (it
 * stands still between the tests' moves). `landed`: what the write makes the document hold.
 */
async function killedAfterWrite(em: RunningEmulator, b: SyncFixture, minutes: number, edited: string, landed = edited): Promise<void> {
  em.admin.setClockOffset(minutes * 60_000);
  await b.write('runbook.md', edited);
  const killed = await b.sync([], { KBSYNC_CRASH_AT: 'before-ledger-commit' });
  assert.equal(killed.signal, 'SIGKILL', `B is killed before its record: ${killed.stderr}`);
  assert.equal(runbook(b), landed, 'the write landed before the kill');
}

/** From `minutes` on: both machines end with B's `edited` text, neither says HIDDEN_EDIT, and each one's next edit is published. */
async function convergesWithoutNotice(em: RunningEmulator, a: SyncFixture, b: SyncFixture, minutes: number, edited: string): Promise<void> {
  em.admin.setClockOffset(minutes * 60_000);
  assert.doesNotMatch(said(await synced(b)), /HIDDEN_EDIT|"held"/, 'B finds its own write: nobody edited where reads cannot see');
  assert.equal(await b.read('runbook.md'), edited, 'B keeps its own code edit');

  em.admin.setClockOffset((minutes + 2) * 60_000);
  assert.doesNotMatch(said(await synced(a)), /HIDDEN_EDIT|"held"/, "A takes B's version: nobody edited where reads cannot see");
  assert.equal(await a.read('runbook.md'), edited, "A gets B's code edit");

  em.admin.setClockOffset((minutes + 4) * 60_000);
  const next = edited.replace('--graceful', '--graceful --wait');
  await a.write('runbook.md', next);
  assert.doesNotMatch(said(await synced(a)), /HIDDEN_EDIT|"held"/, "A's next code edit is published");
  assert.equal(runbook(a), next);
  em.admin.setClockOffset((minutes + 6) * 60_000);
  await synced(b);
  assert.equal(await b.read('runbook.md'), next, "B gets A's edit");
  assert.doesNotMatch(JSON.stringify([...(await synced(a)).results, ...(await synced(b)).results]), /HIDDEN_EDIT|"held"/, 'nothing held or said after');
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a code edit whose run was killed after its write, minutes after the last agreement: its own, on both machines (${team})`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
      await killedAfterWrite(em, b, 4, CODE_EDIT);
      await convergesWithoutNotice(em, a, b, 6, CODE_EDIT);
    });
  });
}

// Within the slack in which two agreements' times cannot be told apart (body.ts AGREED_SLACK_MS): B publishes a word
// edit, then its code edit is written in the same moment of the service's clock, and killed. The version that
// write replaced, B's own record a moment older, is still no news.
test('a code edit whose run was killed after its write, a moment after the last agreement: its own, on both machines', async () => {
  const worded = TEXT.replace('read this.', 'read this first.');
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
    em.admin.setClockOffset(4 * 60_000);
    await b.write('runbook.md', worded);
    await synced(b);
    await killedAfterWrite(em, b, 4, worded.replace('restart --all', 'restart --all --graceful'));
    await convergesWithoutNotice(em, a, b, 6, worded.replace('restart --all', 'restart --all --graceful'));
  });
});

// The version the killed write replaced need not be the record's: here B's run took in A's code edit (A's record,
// newer than B's) and wrote it with its own. A's record is older than that write, though its text is not B's record's.
test("a code edit whose run was killed after its write, which took in another machine's code edit: its own, on both machines", async () => {
  const twoBlocks = `${TEXT}\n\`\`\`sh\nstatus --short\n\`\`\`\n`;
  const both = twoBlocks.replace('restart --all', 'restart --all --graceful').replace('status --short', 'status --long');
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'runbook.md': twoBlocks });
    em.admin.setClockOffset(4 * 60_000);
    await a.write('runbook.md', twoBlocks.replace('status --short', 'status --long'));
    await synced(a);
    await killedAfterWrite(em, b, 6, twoBlocks.replace('restart --all', 'restart --all --graceful'), both);
    await convergesWithoutNotice(em, a, b, 8, both);
  });
});

// What the rules above must never cost: a colleague's edit inside code, made after the killed write and before
// B's next run. The write's minute is noted in its intent once it is answered, so a later one is someone's edit.
test("a colleague's code edit after a write whose run was killed: said HIDDEN_EDIT, and never overwritten", async () => {
  const colleagues = CODE_EDIT.replace('--graceful', '--graceful --now');
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
    await killedAfterWrite(em, b, 4, CODE_EDIT);
    em.admin.setClockOffset(6 * 60_000);
    em.admin.editDocument(b.remoteDoc('Runbook').dentryUuid, colleagues);
    // Judged once the minutes in which a kbsync writer's record of it could still come are over.
    em.admin.setClockOffset(9 * 60_000);
    assert.match(said(await synced(b)), /HIDDEN_EDIT/, 'B finds the edit reads cannot show');
    await b.write('runbook.md', CODE_EDIT.replace('Before you start', 'Before anything'));
    assert.match(said(await synced(b)), /"reason":"HIDDEN_EDIT"/, "B's next overwrite is held");
    assert.equal(runbook(b), colleagues, "the colleague's edit stands");
  });
});
