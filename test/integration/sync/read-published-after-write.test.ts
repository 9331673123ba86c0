import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localFiles } from '../../helpers/reliability.js';
import { reported, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 8506 (issue 44): machine B read a page (A's version V1) to take it into its file beside a front matter
 * of its own; A then wrote the page from V1 (words in bold) and published its record; B's record of its reading,
 * published after A's in the same minute, stood as the page's latest, and A's write as the branch it overtook (both
 * made from V1, DocRecord `b`). B's next run merged its plain reading of A's write with A's exact source of it and
 * found a clash in the very line; A's never took B's front matter. The files differed for good.
 */
const TEXT = '# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n';
const V1 = `${TEXT}\nA paragraph from A.\n`;
const FRONT = '---\ntags: [b]\n---\n';
const V2 = V1.replace('Second paragraph.', 'Second paragraph, **bold on A**.');

test("a record of a read published after the write it preceded: the reader takes the write exactly, the writer the reader's front matter", async () => {
  let guideKey: string | undefined;
  let read = false;
  // B's first call after its read of the guide waits for A's whole run: A's write and record come between B's read
  // and B's record of it.
  const afterRead = (request: { readonly path: string }): boolean => {
    if (read) return true;
    read = guideKey !== undefined && request.path.includes(`${guideKey}/blocks`);
    return false;
  };
  await withArmedPair(true, afterRead, async ({ a, b, gate, sync }) => {
    await a.write('guide.md', TEXT);
    await sync(a);
    await sync(b);
    guideKey = a.remoteDoc('Guide').dentryUuid;
    await a.write('guide.md', V1);
    await sync(a);
    await b.write('guide.md', `${FRONT}${TEXT}`);
    await a.write('guide.md', V2);
    gate.arm(() => reported(a));
    await sync(b);
    assert.ok(gate.fired, "A's run came between B's read of the guide and B's record of it");
    assert.equal(await b.read('guide.md'), `${FRONT}${V1}`, 'B took V1 in, beside its front matter');
    for (const f of [b, a, b, a]) await sync(f);
    assert.equal(await b.read('guide.md'), `${FRONT}${V2}`, "B has A's write, bold and all, and its front matter");
    assert.equal(await a.read('guide.md'), `${FRONT}${V2}`, "A has B's front matter");
    assert.match(a.remoteDoc('Guide').markdown ?? '', /\*\*bold on A\*\*/, 'the document keeps the bold');
    for (const f of [a, b]) assert.deepEqual([...(await localFiles(f.root)).keys()].filter((path) => path.includes('.conflict-')), [], 'no conflict copy');
  });
});
