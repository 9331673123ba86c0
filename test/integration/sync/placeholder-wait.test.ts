import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLACEHOLDER_PREFIX } from '../../../src/markdown/index.js';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502: machine A added a code block and wrote the page; B read the page after that write but with the
 * state it had read before A's record, and took the new block in from the plain reading: a placeholder where the
 * code stood, written into B's file. B's user then edited around it, and the file ended in a conflict, holding
 * the placeholder. Such a block, read a moment after the document's time moved, waits for the record on its way.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nLast paragraph.\n';
const CODED = '# Guide\n\nFirst paragraph.\n\n```sh\nnpm ci\n```\n\nLast paragraph.\n';

test("a new code block read before its writer's record came is not pulled as a placeholder: the next run takes the writer's source", async () => {
  let pageKey = '';
  // B's read of the page waits for A's whole run: B read the state before A's record.
  const gate = onceAt((request) => request.path.includes(`${pageKey}/blocks`));
  await withGatedPair(false, gate.hooks, async (em, a, b) => {
    const { sync } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
    pageKey = a.remoteDoc('Guide').dentryUuid;
    // A colleague's word edit, which B lists; A adds a code block and writes over it before B reads the page.
    em.admin.editDocument(pageKey, (a.remoteDoc('Guide').markdown ?? '').replace('First paragraph.', 'First paragraph, from the web.'));
    await a.write('guide.md', CODED);
    gate.arm(() => reported(a));
    // B reads in the minute A wrote in, as a daemon's sweep does.
    const first = await reported(b);
    assert.ok(gate.fired, "B read the page after A's write");
    assert.doesNotMatch(await b.read('guide.md'), new RegExp(PLACEHOLDER_PREFIX), 'no placeholder is written into the file');
    assert.deepEqual(saidIn(first), []);
    const next = await sync(b);
    assert.deepEqual(next.results.map((r) => (r.ok ? r.result : r.code)), ['pulled'], "the next run takes A's version");
    assert.equal(await b.read('guide.md'), await a.read('guide.md'), 'with its code, byte for byte');
    assert.match(await b.read('guide.md'), /from the web[\s\S]*npm ci/);
  });
});

test("a colleague's new code block waits only out the minute it was made in and the next, then comes in as a placeholder", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const { sync, tick } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'guide.md': TEXT });
    em.admin.editDocument(a.remoteDoc('Guide').dentryUuid, CODED);
    // The listed minute says only that the edit came within it: the wait is two minutes, as a hidden edit's is.
    const early = await reported(b);
    assert.deepEqual(early.results.map((r) => (r.ok ? r.result : r.code)), ['unchanged'], 'in its minute: no record may be on its way yet, nothing is decided');
    assert.equal(await b.read('guide.md'), TEXT);
    tick();
    const later = await sync(b);
    assert.deepEqual(later.results.map((r) => (r.ok ? r.result : r.code)), ['pulled']);
    assert.match(await b.read('guide.md'), new RegExp(PLACEHOLDER_PREFIX), 'the code block, which reads cannot show, as a placeholder');
  });
});
