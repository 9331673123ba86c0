import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedOnBoth, reported, saidIn, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 7421: one machine appended words and published its record; a colleague then renamed the document in
 * the web editor, which moves its time; the other machine, reading the write only after the rename, took the later
 * time for an edit inside code (HIDDEN_EDIT) and held the page, though nobody had edited it beyond words. A rename
 * keeps the file's path, so the writer's record at that path, made before it, does not say the rename came first
 * (as a record at a moved file's new path does of a move: model seed 100106).
 */
const TEXT = '# Why picomatch?\n\nBefore you start, read this.\n\n```js\nmatch(glob)\n```\n\nAfter that, check the dashboard.\n';

test("another machine's write read only after a rename of its document: taken in by that machine's record, nothing said", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'picomatch.md': TEXT });
    em.admin.setClockOffset(4 * 60_000);
    await b.write('picomatch.md', TEXT.replace('check the dashboard.', 'check the dashboard. And the logs.'));
    const pushed = await reported(b);
    assert.ok(pushed.results.some((r) => r.ok && r.path === 'picomatch.md' && r.result === 'pushed'), JSON.stringify(pushed.results));

    em.admin.setClockOffset(6 * 60_000);
    em.admin.renameNode(b.remoteDoc('Why picomatch?').dentryUuid, 'Why picomatch? (rev hg)');
    // Past the two minutes a time that moved waits for a writer's record: judged now, whatever it is.
    em.admin.setClockOffset(9 * 60_000);
    const pulled = await reported(a);
    assert.deepEqual(saidIn(pulled), [], JSON.stringify(pulled.results));
    assert.equal(await a.read('picomatch.md'), await b.read('picomatch.md'), "B's words reach A as B wrote them");

    await a.write('picomatch.md', (await a.read('picomatch.md')).replace('Before you start', 'Before anything'));
    const next = await reported(a);
    assert.ok(next.results.some((r) => r.ok && r.path === 'picomatch.md' && r.result === 'pushed'), `A's next edit is not held: ${JSON.stringify(next.results)}`);
  });
});
