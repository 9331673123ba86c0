import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Block } from '../../../src/model/blocks.js';
import { align, merge3, parseDocument, serializeDocument, toPushMarkdown } from '../../../src/markdown/index.js';
import { newBlock, reindex, simulateServiceRead, withFreshIds } from './helpers/service-read.js';

/** A body as last synced: what the service read back after the push, and the stored alignment. */
function synced(base: string) {
  const remoteBase = simulateServiceRead(toPushMarkdown(base));
  return { base, remoteBase, alignment: align(base, remoteBase) };
}

const retext = (blocks: readonly Block[], from: string, to: string): Block[] =>
  blocks.map((block) => ('text' in block && block.text === from ? { ...block, text: to } : block));

const RICH = `# Guide

Intro with **bold**, a [link](https://example.com "title") and \`code\`.

\`\`\`ts
const x = 1;
\`\`\`

![diagram](img/diagram.png)

| Col | Other |
|:----|------:|
| *a* | [b](c) |

- item with _style_
  - nested [ref][r]

Closing paragraph.

[r]: https://example.com/ref
`;

describe('merge3 examples', () => {
  test('a pull onto a file with code, images, tables and links keeps all of them when the remote changed one paragraph', () => {
    const { base, remoteBase, alignment } = synced(RICH);
    const remote = retext(remoteBase, 'Closing paragraph.', 'Closing paragraph, edited online.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, RICH.replace('Closing paragraph.', 'Closing paragraph, edited online.'));
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.remoteChanged, true);
    assert.equal(result.localChanged, false);
    assert.equal(result.needsPush, false);
  });

  test('a remote paragraph edit in the middle keeps the formatting of its neighbours', () => {
    const { base, remoteBase, alignment } = synced(RICH);
    const remote = retext(remoteBase, 'Intro with bold, a link and code.', 'Plain intro now.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, RICH.replace(/Intro with .*\n/, 'Plain intro now.\n'));
  });

  test('remote inserted a paragraph: it lands after its preceding block', () => {
    const { base, remoteBase, alignment } = synced('# T\n\nfirst\n\nsecond\n');
    const remote = reindex([...remoteBase.slice(0, 2), newBlock({ type: 'paragraph', text: 'inserted *literal*' }), ...remoteBase.slice(2)]);
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, '# T\n\nfirst\n\ninserted \\*literal\\*\n\nsecond\n');
  });

  // Found by the merge property test (seed 1068098829): the two <div> blocks and the image all read as one
  // unknown block, so the merge after a crash paired the kept <div> with the other one, and put the remote's
  // paragraph in a second time.
  test('a merge repeated after a crash does not double an addition beside blocks that read alike', () => {
    const { base, remoteBase, alignment } = synced('| a | b |\n|---|---|\n| 1 | 2 |\n\n<div>alpha</div>\n\n<div>alpha</div>\n\n![alpha](alpha.png)\n\n# alpha\n');
    const local = '| a | b |\n|---|---|\n| 1 | 2 |\n\nmine\n\n<div>alpha</div>\n\n![alpha](alpha.png)\n\n# alpha\n';
    const added = (text: string) => newBlock({ type: 'paragraph', text });
    const remote = reindex([...remoteBase.slice(0, 2), added('theirs one'), remoteBase[2] as Block, added('theirs two'), ...remoteBase.slice(3)]);
    const first = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(first.body, '| a | b |\n|---|---|\n| 1 | 2 |\n\nmine\n\ntheirs one\n\n<div>alpha</div>\n\ntheirs two\n\n![alpha](alpha.png)\n\n# alpha\n');
    const again = merge3({ base, remoteBase, remote, local: first.body, alignment });
    assert.equal(again.body, first.body);
  });

  // Found by the merge property test (seed 537640871): with the paragraph between them deleted by the remote,
  // the two "alpha" twins were told apart by nothing, and the merge after a crash read the kept one as the
  // twin the remote changed (putting the remote's words in and dropping the conflict), or the conflicting
  // edit as an edit of the twin the remote left alone (bringing the remote's version back beside it).
  describe('a merge repeated on its own result reads twins the way the first merge did', () => {
    const { base, remoteBase, alignment } = synced('alpha\n\nbeta\n\nalpha\n');
    // The remote deleted "beta" and changed the second "alpha".
    const remote = reindex([remoteBase[0] as Block, { ...(remoteBase[2] as Block), text: 'theirs' } as Block]);
    /** The first merge writes `body` with the local edit `mine` in conflict with the remote's; a second one agrees. */
    const mergedTwice = (local: string, body: string, mine: string): void => {
      const first = merge3({ base, remoteBase, remote, local, alignment });
      assert.equal(first.body, body);
      assert.deepEqual(first.conflicts.map((c) => [c.localText, c.remoteText]), [[mine, 'theirs']]);
      const again = merge3({ base, remoteBase, remote, local: first.body, alignment });
      assert.equal(again.body, body);
      assert.deepEqual(again.conflicts, first.conflicts);
    };

    test('the twin kept beside a conflicting edit of the other stays the kept one', () => {
      mergedTwice('one\n\nalpha\n\nbeta\n\ntwo\n', 'one\n\nalpha\n\ntwo\n', 'two');
    });

    test('a conflicting edit stays the edit of the twin the remote changed when the other was deleted', () => {
      mergedTwice('beta\n\nmine\n', 'mine\n', 'mine');
    });
  });

  test('remote deleted a heading: it goes, the rest stays byte for byte', () => {
    const body = '# Title\n\nText *one*.\n\n## Section\n\nText `two`.\n';
    const { base, remoteBase, alignment } = synced(body);
    const remote = reindex(remoteBase.filter((block) => !(block.type === 'heading' && block.text === 'Section')));
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, '# Title\n\nText *one*.\n\nText `two`.\n');
  });

  test('both sides added different paragraphs in different places: a clean merge', () => {
    const { base, remoteBase, alignment } = synced('# T\n\nalpha\n\nbeta\n\ngamma\n');
    const local = '# T\n\nalpha\n\nlocal **addition**\n\nbeta\n\ngamma\n';
    const remote = reindex([...remoteBase, newBlock({ type: 'paragraph', text: 'remote addition' })]);
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.body, '# T\n\nalpha\n\nlocal **addition**\n\nbeta\n\ngamma\n\nremote addition\n');
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.needsPush, true);
  });

  test('the same paragraph changed differently: a conflict with both texts, the local one in the body', () => {
    const { base, remoteBase, alignment } = synced('# T\n\nshared words\n\nend\n');
    const local = '# T\n\nshared words, **mine**\n\nend\n';
    const remote = retext(remoteBase, 'shared words', 'shared words, theirs');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.body, local);
    assert.equal(result.conflicts.length, 1);
    assert.deepEqual(result.conflicts[0], {
      baseText: 'shared words',
      localText: 'shared words, **mine**',
      remoteText: 'shared words, theirs',
      position: { line: 3, offset: 5 },
    });
    assert.equal(result.conflictCopyBody, '# T\n\nshared words, theirs\n\nend\n');
    assert.equal(result.needsPush, true);
  });

  test("a colleague's words and our words on other lines of one paragraph whose line endings we changed: both kept, our line endings too (soak seed 727)", () => {
    const { base, remoteBase, alignment } = synced('# T\n\nthe result will contain\nprerelease parts.  For example\nwill preserve them.\n\nend\n');
    const local = '# T\r\n\r\nthe result will contain\r\nprerelease parts.  For example\r\nwill preserve them all.\n\nend\n';
    const theirs = 'the result will contain\nprerelease parts.  For example\nwill preserve them.';
    const remote = retext(remoteBase, theirs, theirs.replace('will contain', 'will stone contain'));
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, local.replace('will contain', 'will stone contain'));
  });

  test('the same change on both sides is not a conflict', () => {
    const { base, remoteBase, alignment } = synced('one\n\ntwo\n');
    const local = 'one\n\ntwo **2**\n';
    const remote = retext(remoteBase, 'two', 'two 2');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, local);
  });

  test('an edit beats a delete, both ways', () => {
    const { base, remoteBase, alignment } = synced('keep\n\nedited here\n\nedited there\n');
    // Local edited "edited here", which the remote deleted; local deleted "edited there", which the remote edited.
    const local = 'keep\n\nedited here, more\n';
    const remote = reindex(retext(remoteBase, 'edited there', 'edited there, more').filter((block) => !('text' in block && block.text === 'edited here')));
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.body, 'keep\n\nedited here, more\n\nedited there, more\n');
    assert.deepEqual(result.conflicts, []);
  });

  test('list items keep their marker, indentation and the formatting around the edit when their text changes remotely', () => {
    const body = '1. first\n2. second\n   - [ ] task *one*\n   - other\n';
    const { base, remoteBase, alignment } = synced(body);
    const remote = retext(remoteBase, 'task one', 'task renamed');
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, '1. first\n2. second\n   - [ ] task *renamed*\n   - other\n');
    assert.deepEqual(result.simplified, []);
  });

  test('a task item whose text starts with formatting keeps its box when its words change remotely (model seed 7042)', () => {
    const body = '* [x] **[extensions][]** (100% [GFM][], *maple* 100%)\n- [ ] `make` it\n\n[extensions]: #e\n[GFM]: #g\n';
    const { base, remoteBase, alignment } = synced(body);
    const remote = retext(retext(remoteBase, 'extensions (100% GFM, maple 100%)', 'extensions (100% GFM, maple river 100%)'), 'make it', 'make it so');
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, '* [x] **[extensions][]** (100% [GFM][], *maple* river 100%)\n- [ ] `make` it so\n\n[extensions]: #e\n[GFM]: #g\n');
    assert.deepEqual(result.simplified, []);
  });

  test('a remote list item added after a local one takes its list shape', () => {
    const { base, remoteBase, alignment } = synced('intro\n\n* a\n* b\n');
    const last = remoteBase.at(-1)!;
    const added = newBlock({ type: 'unorderedList', listId: 'listId' in last ? last.listId : 'x', level: 1, text: 'c' });
    const result = merge3({ base, remoteBase, remote: reindex([...remoteBase, added]), local: base, alignment });
    assert.equal(result.body, 'intro\n\n* a\n* b\n* c\n');
  });

  test('a remote item nested under a task item goes at the item\'s content column', () => {
    const { base, remoteBase, alignment } = synced('- [ ] task\n- other\n');
    const nested = newBlock({ type: 'unorderedList', listId: 'new-list', level: 2, text: 'sub' });
    const result = merge3({ base, remoteBase, remote: reindex([remoteBase[0]!, nested, remoteBase[1]!]), local: base, alignment });
    assert.equal(result.body, '- [ ] task\n  - sub\n- other\n');
    assert.deepEqual(simulateServiceRead(result.body).map((b) => ('level' in b && b.type !== 'heading' ? [b.text, b.level] : [])), [['task', 1], ['sub', 2], ['other', 1]]);
  });

  test('an overwrite by someone else (all ids fresh) is diffed by content', () => {
    const { base, remoteBase, alignment } = synced('# T\n\n```\ncode\n```\n\none\n\ntwo\n');
    const remote = withFreshIds(reindex([...retext(remoteBase, 'two', 'two changed')]));
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, '# T\n\n```\ncode\n```\n\none\n\ntwo changed\n');
  });

  test('a remote table resize without readable cells is a conflict that keeps the local table', () => {
    const body = 'x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
    const { base, remoteBase, alignment } = synced(body);
    const remote = remoteBase.map((block) => (block.type === 'table' ? { ...block, rows: 3 } : block));
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, body);
    assert.equal(result.conflicts.length, 1);
    assert.equal(result.conflicts[0]?.remoteUnreadable, true);
    assert.equal(result.needsPush, false);
  });

  test('front matter is kept through a pull', () => {
    const file = '---\ntitle: Kept   # exactly\ntags: [x]\n---\n\nbody text\n';
    const doc = parseDocument(file);
    const { base, remoteBase, alignment } = synced(doc.body);
    const merged = merge3({ base, remoteBase, remote: retext(remoteBase, 'body text', 'new text'), local: doc.body, alignment });
    assert.equal(serializeDocument({ ...doc, body: merged.body }), '---\ntitle: Kept   # exactly\ntags: [x]\n---\n\nnew text\n');
  });

  test('a remote block the API hides becomes a placeholder once, and is not mistaken for local code', () => {
    const { base, remoteBase, alignment } = synced('a\n\nb\n');
    const remote = reindex([remoteBase[0]!, newBlock({ type: 'unknown', kind: 'image' }), remoteBase[1]!]);
    const local = 'a\n\n```\nlocal code\n```\n\nb\n';
    const first = merge3({ base, remoteBase, remote, local, alignment });
    assert.match(first.body, /^a\n\n```\nlocal code\n```\n\n<!-- kbsync: a block the service does not expose .* -->\n\nb\n$/);
    // The merged body written but the sync not recorded: merging again does not add a second placeholder.
    assert.equal(merge3({ base, remoteBase, remote, local: first.body, alignment }).body, first.body);
  });

  test('a stale or foreign alignment is ignored and recomputed', () => {
    const { base, remoteBase } = synced('a\n\nb\n');
    const wrong = { ...align('other\n', remoteBase), map: [1, 0] };
    const result = merge3({ base, remoteBase, remote: retext(remoteBase, 'b', 'B'), local: base, alignment: wrong });
    assert.equal(result.body, 'a\n\nB\n');
  });
});

describe('merge3: what our last write changed, put back by a racing writer', () => {
  const PRIOR = '# T\n\nIntro with a [link](https://example.com).\n\nMiddle.\n\nEnd.\n';
  const OURS = PRIOR.replace('Middle.', 'Middle, **ours**.');

  test('a block put back as it was before our write is a lost update, repaired: our words stay and are published again, their other edits merge', () => {
    const { base, remoteBase, alignment } = synced(OURS);
    const remote = retext(retext(remoteBase, 'Middle, ours.', 'Middle.'), 'End.', 'End, theirs.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment, priorBase: PRIOR });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, OURS.replace('End.', 'End, theirs.'), 'their edit elsewhere still merges');
    assert.deepEqual(result.restored, [5], 'the line our write gave, named');
    assert.equal(result.needsPush, true, 'published again');
  });

  test('a block we edited again, which the remote put back as it was before our last write, is our edit: no conflict', () => {
    const { base, remoteBase, alignment } = synced(OURS);
    const remote = retext(remoteBase, 'Middle, ours.', 'Middle.');
    const local = OURS.replace('Middle, **ours**.', 'Middle, **ours** twice.');
    const result = merge3({ base, remoteBase, remote, local, alignment, priorBase: PRIOR });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, local);
    assert.equal(result.needsPush, true);
  });

  test('once any of our write stands in the remote, the remote read after it: putting back another of its blocks is an edit', () => {
    const twice = OURS.replace('End.', 'End, ours.');
    const { base, remoteBase, alignment } = synced(twice);
    const remote = retext(remoteBase, 'Middle, ours.', 'Middle.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment, priorBase: PRIOR });
    assert.deepEqual(result.restored, []);
    assert.equal(result.body, twice.replace('Middle, **ours**.', 'Middle.'));
  });

  test('without the prior body (no write of ours just before), the same change is an ordinary remote edit', () => {
    const { base, remoteBase, alignment } = synced(OURS);
    const remote = retext(remoteBase, 'Middle, ours.', 'Middle.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, PRIOR);
  });

  test('a remote edit of a block we changed to something new is a pull, not a revert', () => {
    const { base, remoteBase, alignment } = synced(OURS);
    const remote = retext(remoteBase, 'Middle, ours.', 'Middle, ours and theirs.');
    const result = merge3({ base, remoteBase, remote, local: base, alignment, priorBase: PRIOR });
    assert.deepEqual(result.conflicts, []);
    // (Where the inserted words fall against the bold run is the text merge's call; both readings are "ours and theirs".)
    assert.match(result.body, /\nMiddle, \*\*ours(\*\*)? and theirs(\*\*)?\.\n/);
  });

  test('a block our write added, dropped by the remote, is kept and published again; blocks we did not touch may be deleted', () => {
    const added = PRIOR.replace('Middle.\n', 'Middle.\n\nAdded by us.\n');
    const { base, remoteBase, alignment } = synced(added);
    const remote = reindex(remoteBase.filter((block) => !('text' in block) || (block.text !== 'Added by us.' && block.text !== 'End.')));
    const result = merge3({ base, remoteBase, remote, local: base, alignment, priorBase: PRIOR });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.restored.length, 1);
    assert.match(result.body, /Added by us\./);
    assert.doesNotMatch(result.body, /End\./, 'a deletion of a block our write left alone is the remote\'s edit');
  });
});

describe('merge3: a local edit that changed no word, and a remote word edit of the same block', () => {
  const BASE = '# T\n\nThe first line of a paragraph that runs on, and on.\n\nEnd.\n';

  test('a paragraph rewrapped here takes the remote word edit: no conflict (the words are what both sides agree on)', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    const local = BASE.replace('that runs on, and on.', 'that runs on,\nand on.');
    const remote = retext(remoteBase, 'The first line of a paragraph that runs on, and on.', 'The first line of a paragraph that runs on, and on, and on.');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body.replace(/\s+/g, ' '), '# T The first line of a paragraph that runs on, and on, and on. End. ');
  });

  test('emphasis added here keeps it around the remote word edit', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    const local = BASE.replace('The first line', 'The **first** line');
    const remote = retext(remoteBase, 'The first line of a paragraph that runs on, and on.', 'The first line of a paragraph that runs on, and on, for ever.');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, '# T\n\nThe **first** line of a paragraph that runs on, and on, for ever.\n\nEnd.\n');
  });

  test('a remote word edit inside the new emphasis is written inside it', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    const local = BASE.replace('The first line', 'The **first line**');
    const remote = retext(remoteBase, 'The first line of a paragraph that runs on, and on.', 'The final lines of a paragraph that runs on, and on.');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, BASE.replace('The first line', 'The **final lines**'));
    assert.equal(result.needsPush, true, 'the emphasis goes out');
  });

  test('a local word edit and a remote word edit of the same block stay a conflict', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    const local = BASE.replace('runs on', 'goes on');
    const remote = retext(remoteBase, 'The first line of a paragraph that runs on, and on.', 'The first line of a paragraph that runs on, and on, for ever.');
    assert.equal(merge3({ base, remoteBase, remote, local, alignment }).conflicts.length, 1);
  });
});

/**
 * Soak seed 502: a word of ours on the first line of a three-line paragraph, a colleague's word on its third.
 * Taken for a clash of the block, it opened a conflict that `kbsync resolve` settled without a question (its
 * line merge found none), and held every edit of the page for a person meanwhile.
 */
describe('merge3: both sides edited one block, on different lines', () => {
  const BASE = '# T\n\nThis is not a parser: passing `a *b* c`\nor `a <em>b</em> c` does not work.\nInstead pass the plain text: `a b c`.\n\nEnd.\n';
  const FIRST = 'This is not a parser: passing a *b* c\nor a <em>b</em> c does not work.\nInstead pass the plain text: a b c.';

  test('both edits are kept, the remote\'s around the source\'s formatting, and the block goes out', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    assert.ok(remoteBase.some((block) => 'text' in block && block.text === FIRST), 'the read shows the paragraph as the test expects');
    const local = BASE.replace('`a *b* c`\n', '`a *b* c` here too\n');
    const remote = retext(remoteBase, FIRST, FIRST.replace('Instead pass', 'Instead pass there'));
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.body, local.replace('Instead pass', 'Instead pass there'));
    assert.equal(result.needsPush, true);
    assert.deepEqual(result.fromReading, [3], "the paragraph's words are partly the web editor's: its formatting there is not known");
  });

  test('edits of neighbouring lines clash, as git has them', () => {
    const { base, remoteBase, alignment } = synced(BASE);
    const local = BASE.replace('`a *b* c`\n', '`a *b* c` here too\n');
    const remote = retext(remoteBase, FIRST, FIRST.replace('does not work', 'cannot work'));
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.conflicts.length, 1);
    assert.equal(result.body, local, 'the file keeps its version');
    assert.equal(result.conflictCopyBody, BASE.replace('does not work', 'cannot work'));
  });

  test('a table edited on different rows still clashes: drawn anew from its cells, it keeps none of their formatting', () => {
    const base = 'x\n\n| a | b |\n| --- | --- |\n| *1* | 2 |\n| 3 | 4 |\n| 5 | 6 |\n';
    const remoteBase = simulateServiceRead(toPushMarkdown(base), { tableCells: true });
    const alignment = align(base, remoteBase);
    // Lines apart: the header there, the last row here. Merged by lines, the `*1*` (a row nobody edited) went plain.
    const local = base.replace('| 5 | 6 |', '| 5 | 6, here |');
    const remote = remoteBase.map((block) => (block.type === 'table' && block.cells ? { ...block, cells: block.cells.map((row) => row.map((cell) => (cell === 'a' ? 'a, there' : cell))) } : block));
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.conflicts.length, 1);
    assert.equal(result.body, local);
  });

  test('a remote edit that could keep no formatting of the lines it changed clashes (nothing would say it went)', () => {
    const base = '# T\n\nFirst line\nsecond line\nthird `line code` here.\n\nEnd.\n';
    const { remoteBase, alignment } = synced(base);
    const local = base.replace('First line', 'First line, ours');
    // A backtick typed into the code's words: the block is written plain, the code span gone.
    const remote = retext(remoteBase, 'First line\nsecond line\nthird line code here.', 'First line\nsecond line\nthird lin`e code here.');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.conflicts.length, 1);
    assert.equal(result.body, local);
  });
});

// Soak seed 703: another kbsync machine rewrapped a line, and the read showed it; the merge, which compares past
// spacing, kept the file's one line, so the file never read as the document. Spacing a read shows changed is taken.
describe('merge3: spacing a read shows changed', () => {
  const TEXT = '# Guide\n\nIntro with **bold** words and a [link](https://example.com) in one line.\n\n- an item of many words\n\nClosing paragraph.\n';
  const WRAPPED = TEXT.replace('words and a', 'words\nand a').replace('item of', 'item\n  of');

  test('a rewrap made elsewhere comes into an unchanged file, formatting kept', () => {
    const { base, remoteBase, alignment } = synced(TEXT);
    const remote = simulateServiceRead(toPushMarkdown(WRAPPED));
    const result = merge3({ base, remoteBase, remote, local: base, alignment });
    assert.equal(result.body, WRAPPED);
    assert.deepEqual(result.conflicts, []);
    assert.equal(result.needsPush, false);
  });

  test('with a local edit of another block, both are kept', () => {
    const { base, remoteBase, alignment } = synced(TEXT);
    const remote = simulateServiceRead(toPushMarkdown(WRAPPED));
    const local = TEXT.replace('Closing paragraph.', 'Closing paragraph, edited here.');
    const result = merge3({ base, remoteBase, remote, local, alignment });
    assert.equal(result.body, WRAPPED.replace('Closing paragraph.', 'Closing paragraph, edited here.'));
    assert.deepEqual(result.conflicts, []);
  });

  test('spacing the last read did not show as the file has it is no change (a service that reads a line break as a space)', () => {
    const flat = (blocks: readonly Block[]): Block[] => blocks.map((block) => ('text' in block ? { ...block, text: block.text.replace(/\s+/g, ' ') } : block));
    const remoteBase = flat(simulateServiceRead(toPushMarkdown(WRAPPED)));
    const result = merge3({ base: WRAPPED, remoteBase, remote: withFreshIds(remoteBase), local: WRAPPED, alignment: align(WRAPPED, remoteBase) });
    assert.equal(result.body, WRAPPED, 'the file keeps its own line breaks');
  });
});
