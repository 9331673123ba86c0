import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InputError } from '../../../src/errors.js';
import { align, appendOnlyChange, blocksHash, contentHash, normaliseForCompare, toPushMarkdown } from '../../../src/markdown/index.js';
import { newBlock, reindex, simulateServiceRead, withFreshIds } from './helpers/service-read.js';

describe('align', () => {
  test('maps every node to its block, tolerant of empty list text, 0-based levels and unknown extras', () => {
    const body = '# T\n\n- a\n  - b\n\n> quote\n\n```\ncode\n```\n\n| x |\n|---|\n\ntext\n';
    const read = simulateServiceRead(body, { emptyListText: true, levelsFromZero: true });
    // The real service may add a block kbsync did not predict (an empty paragraph, say).
    const blocks = reindex([...read.slice(0, 4), newBlock({ type: 'paragraph', text: '' }), ...read.slice(4)]);
    const alignment = align(body, blocks);
    assert.deepEqual(alignment.map, [0, 1, 2, 3, 5, 6, 7]);
    assert.equal(alignment.version, 1);
    assert.equal(alignment.baseHash, contentHash(body));
    assert.deepEqual(JSON.parse(JSON.stringify(alignment)), alignment);
  });

  test('a block the service dropped leaves its node unmapped, the rest still pair', () => {
    const body = 'one\n\ntwo\n\nthree\n';
    const blocks = reindex(simulateServiceRead(body).filter((block) => !('text' in block && block.text === 'two')));
    assert.deepEqual(align(body, blocks).map, [0, null, 1]);
  });
});

describe('appendOnlyChange', () => {
  const base = '# T\n\nFirst paragraph.\n\n```\ncode\n```\n\nSecond paragraph.\n';
  const remoteBase = simulateServiceRead(base);
  const alignment = align(base, remoteBase);
  const second = remoteBase.find((block) => 'text' in block && block.text === 'Second paragraph.')!;

  test('plain text appended to one paragraph: the block and the text', () => {
    const local = base.replace('Second paragraph.', 'Second paragraph. More words here.');
    assert.deepEqual(appendOnlyChange(base, local, remoteBase, alignment), { blockId: second.id, text: ' More words here.' });
  });

  test('an added final newline does not spoil it', () => {
    const local = `${base.replace('First paragraph.', 'First paragraph. Then')}\n`;
    assert.equal(appendOnlyChange(base, local, remoteBase, alignment)?.text, ' Then');
  });

  test('anything else is not an append', () => {
    const cases = [
      base.replace('Second paragraph.', 'Second paragraph. With *emphasis*.'),
      base.replace('Second paragraph.', 'Second paragraph.\nnext line'),
      base.replace('Second paragraph.', 'Second paragraph.\n\nNew paragraph.'),
      base.replace('First paragraph.', 'First paragraph!').replace('Second paragraph.', 'Second paragraph!'),
      base.replace('# T', '# T more'),
      base.replace('First paragraph.', 'Changed paragraph.'),
      base,
    ];
    for (const local of cases) assert.equal(appendOnlyChange(base, local, remoteBase, alignment), undefined, local);
  });

  test('not when the remote paragraph text differs from the base (the append would land elsewhere)', () => {
    const differing = remoteBase.map((block) => (block.id === second.id ? { ...block, text: 'Second paragraph (edited).' } : block));
    const local = base.replace('Second paragraph.', 'Second paragraph. More.');
    assert.equal(appendOnlyChange(base, local, differing), undefined);
  });
});

describe('hashes, normalisation, push text', () => {
  test('blocksHash ignores ids and positions, not content', () => {
    const read = simulateServiceRead('# a\n\nb\n');
    assert.equal(blocksHash(withFreshIds(read)), blocksHash(read));
    assert.notEqual(blocksHash(read.map((block) => ('text' in block ? { ...block, text: `${block.text}!` } : block))), blocksHash(read));
    assert.match(contentHash('x'), /^[0-9a-f]{64}$/);
  });

  test('normaliseForCompare: same reading, same result; different text, different result', () => {
    assert.equal(normaliseForCompare('Some **bold**  text\n'), normaliseForCompare('Some bold text'));
    assert.equal(normaliseForCompare('- a\n- b\n'), normaliseForCompare('* a\n* b'));
    assert.notEqual(normaliseForCompare('# a'), normaliseForCompare('## a'));
    assert.notEqual(normaliseForCompare('a'), normaliseForCompare('b'));
  });

  test('toPushMarkdown: one final newline, LF line ends, and the size limit as a clear error', () => {
    assert.equal(toPushMarkdown('\uFEFFa\r\nb\r\n\r\n\n'), 'a\nb\n');
    assert.equal(toPushMarkdown('  \n'), '');
    assert.throws(() => toPushMarkdown('x'.repeat(50_001)), (error: unknown) => error instanceof InputError && error.code === 'BODY_TOO_LARGE');
  });
});
