import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { markdownToBlocks } from '../../../src/emulator/markdown/to-blocks.js';
import { decodeTokens, encodeRecords, encodeSource, joinSource, type StateRecord } from '../../../src/remote-state/codec.js';

/** What the service gives back of a state document: its paragraphs' plain text, after the note. */
function throughTheService(tokens: readonly string[]): string {
  const blocks = markdownToBlocks(`A note for people.\n\n${tokens.join(' ')}\n`, () => 'list');
  const paragraphs = blocks.filter((b) => b.payload.blockType === 'paragraph').map((b) => (b.payload['paragraph'] as { text: string }).text);
  return paragraphs.slice(1).join(' ');
}

const text = fc.string({ unit: 'binary', maxLength: 60 });
const id = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 32 });
const plain = { noNullPrototype: true } as const;
const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const record: fc.Arbitrary<StateRecord> = fc.oneof(
  fc.record({
    t: fc.constant('doc' as const),
    p: text,
    k: id,
    n: fc.option(id, { nil: null }),
    h: hex,
    rb: hex,
    m: fc.constantFrom('', '2026-11-24T10:05Z'),
    o: fc.constantFrom('created' as const, 'create-answer-lost' as const, 'linked' as const, 'pulled' as const),
  }, plain),
  fc.record({ t: fc.constant('gone' as const), p: text, k: id }, plain),
  fc.record({ t: fc.constant('dir' as const), p: text, tn: id, n: fc.option(id, { nil: null }) }, plain),
  fc.record({ t: fc.constant('journal' as const), k: id, n: id }, plain),
);

describe('remote state codec', () => {
  test('any records, any paths and titles: the service reads the tokens back exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.array(record, { maxLength: 8 }), { minLength: 1, maxLength: 4 }), (batches) => {
        const decoded = decodeTokens(throughTheService(batches.map(encodeRecords)));
        assert.deepEqual(decoded.damaged, []);
        assert.deepEqual(decoded.records, batches.flat());
      }),
      { numRuns: 300 },
    );
  });

  test('any source text (front matter, code, tables, any Unicode) comes back byte for byte, split over tokens or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 64, max: 4000 }), (source, chunkBytes) => {
        const decoded = decodeTokens(throughTheService(encodeSource('h1', source, chunkBytes)));
        assert.deepEqual(decoded.damaged, []);
        assert.equal(joinSource(decoded.chunks), source);
      }),
      { numRuns: 200 },
    );
  });

  test('a token changed anywhere (one character, cut short, words added) is found, never read', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fc.nat(), fc.constantFrom('A', 'z', '0', '+', '/', '.', 'x'), (records, at, char) => {
        const token = encodeRecords(records);
        const i = at % token.length;
        fc.pre(token[i] !== char);
        const changed = `${token.slice(0, i)}${char}${token.slice(i + 1)}`;
        const decoded = decodeTokens(changed);
        assert.deepEqual(decoded.records, []);
        assert.deepEqual(decoded.damaged, [changed]);
      }),
      { numRuns: 300 },
    );
    assert.deepEqual(decodeTokens('hello world').damaged, ['hello', 'world']);
  });
});
