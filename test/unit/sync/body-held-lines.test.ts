import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import type { Block } from '../../../src/model/blocks.js';
import { decideBody } from '../../../src/sync/decide/body.js';

/**
 * Soak seed 502 (github-slugger.md): a page with code, held (FLATTEN) since a colleague's web edit, whose file has
 * a word of ours on the first line of a three-line paragraph; the colleague then changes a word on its third line.
 * The block merge took the two for a clash and wrote a conflict copy, which `kbsync resolve` then settled without
 * a question (its line merge found none): the page waited for a person, the colleague's word never reached the
 * file. Edits of different lines of a block are both kept, as any merge keeps them; the hold stays, for what
 * reads cannot show of the page.
 */
const MINUTE = '2026-11-02T10:40Z';
const LATER = '2026-11-02T11:09Z';
const BASE = [
  '---',
  'tags: [model]',
  '---',
  '# github-slugger',
  '',
  'This project is not a markdown or HTML parser: passing `alpha *bravo* charlie`',
  'or `alpha <em>bravo</em> charlie` doesn’t work.',
  'Instead pass the plain text value of the heading: `alpha bravo charlie`.',
  '',
  '```js',
  "slugger.slug('foo')",
  '```',
  '',
  'Contributions welcome!',
  '',
].join('\n');
const OURS = BASE.replace('`alpha *bravo* charlie`\n', '`alpha *bravo* charlie` u221z violet\n');
const READ = 'This project is not a markdown or HTML parser: passing alpha *bravo* charlie\nor alpha <em>bravo</em> charlie doesn’t work.\nInstead pass the plain text value of the heading: alpha bravo charlie.';

test("a held page's local edit and a colleague's edit of another line of the same paragraph merge: no conflict, the hold stays", () => {
  const body = BASE.slice(BASE.indexOf('# github'));
  const recorded = predictedBlocks(body);
  assert.ok(recorded.some((block) => 'text' in block && block.text === READ), 'the paragraph reads as the test expects');
  const remote: readonly Block[] = recorded.map((block) => ('text' in block && block.text === READ ? { ...block, text: READ.replace('Instead pass', 'Instead pass c268z orbit') } : block));
  const decision = decideBody({
    mode: 'two-way',
    force: false,
    webEdits: 'merge',
    path: 'github-slugger.md',
    // A colleague's earlier web edit of this page, which holds code: the base is a plain reading (FLATTEN).
    record: { baseMarkdown: BASE, remoteBlocks: recorded, alignment: undefined, localHash: contentHash(BASE), remoteBlocksHash: blocksHash(recorded), remoteModifiedTime: MINUTE, lossyBase: true, headCarried: true },
    listedTime: LATER,
    fileText: OURS,
    remote,
    urlOf: undefined,
  });
  assert.equal(decision.conflictCopy, undefined, 'no conflict copy');
  assert.deepEqual(decision.conflicts, []);
  assert.equal(decision.kind, 'held');
  assert.equal(decision.held?.code, 'FLATTEN', 'the page holds what reads cannot show: the overwrite still waits');
  assert.equal(decision.nextFile, OURS.replace('Instead pass', 'Instead pass c268z orbit'), "the colleague's word comes into the file, beside ours, inline code kept");
  assert.equal(decision.baseText, BASE.replace('Instead pass', 'Instead pass c268z orbit'), 'the new base is the document: our word stays a local change, sent once the hold is settled');
});
