import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSources } from '../../../src/markdown/merge-source.js';

/**
 * The source merge against another kbsync writer's Markdown. Found by the two-writers test once another
 * writer's version agreed within the clock's slack of ours counted as the later one: two machines saving one
 * file at once, the later overwrite put back what the earlier had published, and with nothing changed here
 * since, that version was taken whole: the earlier machine's words were gone, with no conflict.
 */
const PRIOR = '# Shared\n\nFirst of shared.\n\nLast of shared.\n';
const OURS = '# Shared\n\nFirst of shared, edited here.\n\nLast of shared.\n';
const THEIRS = '# Shared\n\nFirst of shared.\n\nLast of shared, edited there.\n';

describe('mergeSources', () => {
  test('nothing changed here, theirs puts back a block our last write changed: a lost update, repaired (ours stays and is published again)', () => {
    const merged = mergeSources({ base: OURS, local: OURS, theirs: THEIRS, priorBase: PRIOR });
    assert.deepEqual(merged.conflicts, []);
    assert.equal(merged.body, '# Shared\n\nFirst of shared, edited here.\n\nLast of shared, edited there.\n', 'our words stay; their edit of another block comes in');
    assert.deepEqual(merged.restored, [3]);
  });

  test('a block edited here again, which theirs put back as it was before our last write, keeps the edit: no conflict', () => {
    const local = OURS.replace('edited here', 'edited here twice');
    const merged = mergeSources({ base: OURS, local, theirs: THEIRS, priorBase: PRIOR });
    assert.deepEqual(merged.conflicts, []);
    assert.match(merged.body, /edited here twice/);
    assert.match(merged.body, /edited there/);
  });

  test('theirs holding any of our last write as we made it was read after it: putting back another of its blocks is an edit', () => {
    const ours = '# Shared\n\nFirst of shared, edited here.\n\nLast of shared, also here.\n';
    const theirs = '# Shared\n\nFirst of shared.\n\nLast of shared, also here.\n';
    const merged = mergeSources({ base: ours, local: ours, theirs, priorBase: PRIOR });
    assert.deepEqual(merged.restored, []);
    assert.equal(merged.body, theirs);
  });

  // Found by the model test (seed 41): the file of the machine that merged kept its own end, and the two
  // machines differed by blank lines for good (the document holds none, so no later run saw a change).
  test('what follows the last block merges like a block: the side that changed it wins', () => {
    const base = '# T\n\nOne.\n\nTwo.\n';
    const local = '# T\n\nOne, here.\n\nTwo.\n';
    const theirs = '# T\n\nOne.\n\nTwo, there.\n\n\n\n';
    assert.equal(mergeSources({ base, local, theirs }).body, '# T\n\nOne, here.\n\nTwo, there.\n\n\n\n');
    assert.equal(mergeSources({ base: theirs, local: `${local.trimEnd()}\n\n`, theirs: base }).body, '# T\n\nOne, here.\n\nTwo.\n\n', 'ours changed it: ours');
  });

  // Model seed 5008: another machine published the body with a blank first line, and this machine's merge put
  // its own first line back and published that; the two machines' files differed for good, each write read as
  // an edit where the service cannot see by the other.
  test('what precedes the first block merges like a block: the side that changed it wins', () => {
    const base = '> T\n\nOne.\n\nTwo.\n';
    const theirs = `\n${base}`;
    assert.equal(mergeSources({ base, local: base, theirs, priorBase: base.replace('One.', 'Zero.') }).body, theirs, 'nothing changed here: theirs');
    const local = base.replace('Two.', 'Two, here.');
    assert.equal(mergeSources({ base, local, theirs }).body, `\n${local}`);
    assert.equal(mergeSources({ base: theirs, local, theirs: `\n${base.replace('One.', 'One, there.')}` }).body, local.replace('One.', 'One, there.'), 'ours changed it: ours');
  });

  test('nothing changed here and theirs keeps what we wrote: theirs, taken whole', () => {
    const both = '# Shared\n\nFirst of shared, edited here.\n\nLast of shared, edited there.\n';
    const merged = mergeSources({ base: OURS, local: OURS, theirs: both, priorBase: PRIOR });
    assert.deepEqual(merged.conflicts, []);
    assert.equal(merged.body, both);
  });

  // Soak seed 502's clash that was none, between two writers' sources: one block, different lines.
  test('both sides edited one block on different lines: both kept, and the block counts as theirs where their words are', () => {
    const base = '# T\n\nFirst line,\nsecond line,\nthird line.\n\nEnd.\n';
    const local = base.replace('First line', 'First line here');
    const theirs = base.replace('third line', 'third line there');
    const merged = mergeSources({ base, local, theirs });
    assert.deepEqual(merged.conflicts, []);
    assert.equal(merged.body, '# T\n\nFirst line here,\nsecond line,\nthird line there.\n\nEnd.\n');
    assert.equal(merged.theirsLines.get(1), 3, "theirs' block 1 stands on line 3 (said FORMATTING_UNSEEN when its words came from a reading)");
  });

  test('both sides edited the same line of one block differently: a conflict, theirs in the copy', () => {
    const base = '# T\n\nFirst line,\nsecond line.\n';
    const local = base.replace('second line', 'second line here');
    const theirs = base.replace('second line', 'second line there');
    const merged = mergeSources({ base, local, theirs });
    assert.equal(merged.conflicts.length, 1);
    assert.equal(merged.body, local);
    assert.equal(merged.conflictCopyBody, theirs);
  });

  // Convergence soak 759: a colleague's words on a line whose ending another machine had changed (a file of mixed
  // endings, which no whole-file rule unifies). The block's source came from the side that changed its words, with
  // that side's gap after it, and the other side's CRLF was lost, on one machine of two.
  test('a line ending one side changed stays where the other changed the words of that line, or of no line at all', () => {
    const base = '# Guide\n\nFirst paragraph.\n\nNo arguments are _required_ for the constructor.\n\nLast.\n';
    const endings = base.replace('# Guide\n', '# Guide\r\n').replace('constructor.\n', 'constructor.\r\n');
    const words = base.replace('for the constructor', 'for c275z the constructor');
    const expected = endings.replace('for the constructor', 'for c275z the constructor');
    assert.equal(mergeSources({ base, local: endings, theirs: words }).body, expected, 'our endings, their words');
    assert.equal(mergeSources({ base, local: words, theirs: endings }).body, expected, 'our words, their endings');
  });
});
