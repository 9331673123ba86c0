import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, soak seed 500: a machine read a document between another kbsync machine's write of it (a change inside
 * code, which reads the same) and that machine's record of the write, and said HIDDEN_EDIT of an edit nobody made in
 * the web editor. A time that moved a moment ago with nothing to explain it is now judged on a later run, once the
 * writer's record had time to come; a colleague's edit inside code is still said, on that run.
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';

/** TEXT published by A and pulled by B, in minutes now over; the clock then two minutes on. */
async function settled(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<void> {
  await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
  em.admin.setClockOffset(4 * 60_000);
}

const said = (report: SyncReport): string => JSON.stringify(report.results);

test("another machine's write inside code, read before its record came: nothing said; once the record is there, its version is taken", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    await b.write('runbook.md', TEXT.replace('restart --all', 'restart --all --graceful'));
    const killed = await b.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
    assert.notEqual(killed.code, 0, 'B is killed between its write and its record');
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "B's write landed");

    const between = await synced(a);
    assert.doesNotMatch(said(between), /HIDDEN_EDIT|FLATTEN/, 'nothing is said of a time the record may yet explain');
    assert.equal(await a.read('runbook.md'), TEXT);

    await synced(b);
    const after = await synced(a);
    assert.doesNotMatch(said(after), /HIDDEN_EDIT|FLATTEN/, said(after));
    assert.equal(await a.read('runbook.md'), await b.read('runbook.md'), "A takes B's version from its record");
    await a.write('runbook.md', (await a.read('runbook.md')).replace('Before you start', 'Before anything'));
    const pushed = await synced(a);
    assert.ok(pushed.results.some((r) => r.path === 'runbook.md' && r.ok && r.result === 'pushed'), said(pushed));
  });
});

test("a colleague's edit inside code: not judged in its own minutes, said HIDDEN_EDIT on the first run after, and never reverted", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    const doc = a.remoteDoc('Runbook');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));

    assert.doesNotMatch(said(await synced(a)), /HIDDEN_EDIT/, 'the writer may be a kbsync whose record is on its way');
    em.admin.setClockOffset(7 * 60_000);
    const found = await synced(a);
    assert.match(said(found), /HIDDEN_EDIT/, 'no record came: an edit where reads cannot see');
    await a.write('runbook.md', TEXT.replace('Before you start', 'Before anything'));
    const held = await synced(a);
    assert.match(said(held), /"result":"held"[^}]*HIDDEN_EDIT|HIDDEN_EDIT[^}]*"result":"held"/, said(held));
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's edit stands");
  });
});

/**
 * Convergence soak 762: judged at once, another machine's write inside code, read before its record, was said
 * HIDDEN_EDIT and the file's append went out over it (hidden-write-local-edit-waits.test). A file with an edit to
 * send waits with the time, and says so; a colleague's edit is found once its window is over, and never overwritten.
 */
test("a file with an edit to send waits with a fresh unexplained time (JUST_EDITED, nothing sent); past its window, a colleague's edit inside code holds it, kept", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    const doc = a.remoteDoc('Runbook');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
    await a.write('runbook.md', TEXT.replace('Before you start', 'Before anything'));
    const waited = await synced(a);
    assert.doesNotMatch(said(waited), /HIDDEN_EDIT/, said(waited));
    assert.ok(waited.results.some((r) => r.path === 'runbook.md' && r.ok && r.result === 'held' && r.reason === 'JUST_EDITED'), said(waited));
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /Before you start/, 'nothing was sent');
    const again = await synced(a);
    assert.ok(again.results.some((r) => r.path === 'runbook.md' && r.ok && r.reason === 'JUST_EDITED'), `a one-shot run says the wait each time: ${said(again)}`);

    em.admin.setClockOffset(7 * 60_000);
    const held = await synced(a);
    assert.match(said(held), /"result":"held"[^}]*HIDDEN_EDIT|HIDDEN_EDIT[^}]*"result":"held"/, said(held));
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's edit stands");
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /Before you start/, "A's edit was not published over it");
    assert.equal(await a.read('runbook.md'), TEXT.replace('Before you start', 'Before anything'), "A's file keeps its edit");
  });
});

test("an append waiting with a fresh unexplained time goes out once its window is over, a colleague's edit inside code said and kept", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await settled(em, a, b);
    const doc = a.remoteDoc('Runbook');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
    const appended = TEXT.replace('check the dashboard.', 'check the dashboard. Then tell the team.');
    await a.write('runbook.md', appended);
    const waited = await synced(a);
    assert.deepEqual(waited.results.filter((r) => r.path === 'runbook.md').map((r) => (r.ok ? r.reason : r.code)), ['JUST_EDITED'], said(waited));
    assert.doesNotMatch(a.remoteDoc('Runbook').markdown ?? '', /tell the team/, 'nothing was sent');

    em.admin.setClockOffset(7 * 60_000);
    const sent = await synced(a);
    assert.match(said(sent), /HIDDEN_EDIT/, said(sent));
    const markdown = a.remoteDoc('Runbook').markdown ?? '';
    assert.match(markdown, /--graceful/, "the colleague's edit stands");
    assert.match(markdown, /Then tell the team/, "A's append went out");
  });
});
