import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44: "no machine reports a hidden edit for a document whose text it already has, or for one nobody
 * edited". A colleague's word edit on a page with a code block is taken in from the plain reading: a hidden
 * change may ride along, so the machine that takes it holds its next overwrite (FLATTEN) and says nothing then.
 * The other machine took that version from the shared state and said HIDDEN_EDIT (the soak's false notices):
 * the record's `l` could not tell that from an edit reads cannot show, which the record now says apart (`hd`).
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';

const runbook = (f: SyncFixture): string => f.remoteDoc('Runbook').markdown ?? '';

/** TEXT published by A and pulled by B, in a minute now over; then a colleague edits it in the web editor. */
async function editedByColleague(em: RunningEmulator, a: SyncFixture, b: SyncFixture, edit: (markdown: string) => string): Promise<void> {
  await publishedOnBoth(em, a, b, { 'runbook.md': TEXT });
  em.admin.setClockOffset(4 * 60_000);
  em.admin.editDocument(b.remoteDoc('Runbook').dentryUuid, edit(runbook(b)));
}

/** The one result of a run for runbook.md, pulled or held as `result` says. */
function resultOf(report: Awaited<ReturnType<typeof synced>>, result: string): { readonly reason?: string; readonly detail?: string } {
  const found = report.results.find((r) => r.path === 'runbook.md');
  assert.ok(found?.ok && found.result === result, JSON.stringify(report.results));
  return found;
}

test("a colleague's word edit on a page with code, taken in by one machine and from it by the other: no HIDDEN_EDIT on either, each one's next overwrite held FLATTEN and listed", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await editedByColleague(em, a, b, (markdown) => markdown.replace('read this.', 'read this first.'));

    const pulledB = await synced(b);
    assert.doesNotMatch(resultOf(pulledB, 'pulled').detail ?? '', /HIDDEN_EDIT/, 'B took a visible edit in: nothing hidden to say');
    assert.match(await b.read('runbook.md'), /read this first\./);

    em.admin.setClockOffset(6 * 60_000);
    const pulledA = await synced(a);
    assert.doesNotMatch(resultOf(pulledA, 'pulled').detail ?? '', /HIDDEN_EDIT/, "A took B's version: nobody made an edit reads cannot show");
    assert.equal(await a.read('runbook.md'), await b.read('runbook.md'));
    assert.doesNotMatch(JSON.stringify((await synced(a)).results), /HIDDEN_EDIT/);

    // A holds B's version as B holds it: what the page holds beyond it may ride along with the word edit.
    await a.write('runbook.md', (await a.read('runbook.md')).replace('Before you start', 'Before anything'));
    assert.equal(resultOf(await synced(a), 'held').reason, 'FLATTEN');
    assert.match((await a.cli(['resolve'])).stdout, /runbook\.md {2}held \(FLATTEN\)/, 'resolve lists the hold');
    await b.write('runbook.md', (await b.read('runbook.md')).replace('After that', 'Then'));
    assert.equal(resultOf(await synced(b), 'held').reason, 'FLATTEN', "B's own overwrite is held the same way");
    assert.match((await b.cli(['resolve'])).stdout, /runbook\.md {2}held \(FLATTEN\)/);
    assert.match(runbook(a), /read this first\./, "the colleague's edit stands");
  });
});

test("a colleague's edit inside code: said HIDDEN_EDIT by the machine that finds it and by the other when it takes that machine's version, and never reverted", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await editedByColleague(em, a, b, (markdown) => markdown.replace('restart --all', 'restart --all --graceful'));

    // Judged once the minutes in which a kbsync writer's record of it could still come are over.
    em.admin.setClockOffset(7 * 60_000);
    const found = await synced(b);
    assert.match(JSON.stringify(found.results), /HIDDEN_EDIT/, 'B finds it');
    em.admin.setClockOffset(9 * 60_000);
    await b.write('runbook.md', (await b.read('runbook.md')).replace('check the dashboard.', 'check the dashboard. Then rest.'));
    await synced(b);
    assert.match(runbook(b), /Then rest\./, "B's append went out");

    const pulledA = await synced(a);
    assert.match(resultOf(pulledA, 'pulled').detail ?? '', /HIDDEN_EDIT/, "A takes B's version, which holds the hidden edit");
    assert.match(await a.read('runbook.md'), /Then rest\./);
    assert.doesNotMatch(JSON.stringify((await synced(a)).results), /HIDDEN_EDIT/, 'said once');

    await a.write('runbook.md', (await a.read('runbook.md')).replace('Before you start', 'Before anything'));
    assert.equal(resultOf(await synced(a), 'held').reason, 'FLATTEN');
    await b.write('runbook.md', (await b.read('runbook.md')).replace('After that', 'Then'));
    assert.equal(resultOf(await synced(b), 'held').reason, 'HIDDEN_EDIT');
    assert.match(runbook(a), /--graceful/, "the colleague's edit stands");
  });
});
