import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, soak seed 500: a file deleted on one machine while the other machine wrote its document inside code
 * (which reads the same; only its record says it was kbsync). An edit beats a delete, so the file comes back with
 * that version; it came back said HIDDEN_EDIT as well, a hidden edit nobody made, and its next move was held.
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';

test("a file deleted here whose document another machine wrote inside code since: restored with that version, no HIDDEN_EDIT, its next edit goes out", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    // Another file stays, so that the delete is one of several (a folder emptied is refused, EMPTY_LOCAL).
    await publishedOnBoth(em, a, b, { 'runbook.md': TEXT, 'notes.md': '# Notes\n\nKept.\n' });
    // A's own last write is not read back yet (its time is still to be re-checked), so the delete is planned
    // without a listed change, and decided on the document's time when it is read.
    em.admin.setClockOffset(4 * 60_000);
    await a.write('notes.md', '# Notes\n\nKept, and edited.\n');
    await a.write('runbook.md', TEXT.replace('check the dashboard', 'check the dashboard and the logs'));
    await synced(a);
    await synced(b);
    em.admin.setClockOffset(6 * 60_000);
    await b.write('runbook.md', (await b.read('runbook.md')).replace('restart --all', 'restart --all --graceful'));
    await synced(b);
    em.admin.setClockOffset(9 * 60_000);

    await rm(join(a.root, 'runbook.md'));
    const restored = await synced(a);
    const said = JSON.stringify(restored.results);
    assert.match(said, /"result":"pulled"[^}]*restore|"action":"delete-remote"/, said);
    assert.doesNotMatch(said, /HIDDEN_EDIT/, 'the time moved for a write another machine recorded');
    assert.equal(await a.read('runbook.md'), await b.read('runbook.md'));
    await a.write('runbook.md', (await a.read('runbook.md')).replace('Before you start', 'Before anything'));
    const pushed = await synced(a);
    assert.ok(pushed.results.some((r) => r.path === 'runbook.md' && r.ok && r.result === 'pushed'), JSON.stringify(pushed.results));
  });
});
