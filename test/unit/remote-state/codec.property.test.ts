import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { markdownToBlocks } from '../../../src/emulator/markdown/to-blocks.js';
import { decodeTokens, encodeRecords, encodeSource, joinSource, type StateRecord } from '../../../src/remote-state/codec.js';
import { frame, stateKey } from '../../../src/remote-state/token.js';

/** What the service gives back of a state document: its paragraphs' plain text, after the note. */
function throughTheService(tokens: readonly string[]): string {
  const blocks = markdownToBlocks(`A note for people.\n\n${tokens.join(' ')}\n`, () => 'list');
  const paragraphs = blocks.filter((b) => b.payload.blockType === 'paragraph').map((b) => (b.payload['paragraph'] as { text: string }).text);
  return paragraphs.slice(1).join(' ');
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const segment = fc.stringMatching(/^[A-Za-z0-9 _()\u00e9\u4e2d-]{1,12}$/).filter((s) => !s.startsWith('.') && s.toLowerCase() !== 'node_modules');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `${parts.join('/')}.md`);
const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/);
const plain = { noNullPrototype: true } as const;
const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const record: fc.Arbitrary<StateRecord> = fc.oneof(
  fc.record(
    {
      t: fc.constant('doc' as const),
      p: path,
      k: id,
      n: fc.option(id, { nil: null }),
      h: hex,
      rb: hex,
      m: fc.constantFrom('', '2026-11-24T10:05Z'),
      o: fc.constantFrom('created' as const, 'create-answer-lost' as const, 'linked' as const, 'pulled' as const),
    },
    plain,
  ),
  fc.record({ t: fc.constant('gone' as const), p: path, k: id }, plain),
  fc.record({ t: fc.constant('dir' as const), p: path.map((p) => p.slice(0, -3)), tn: id, n: fc.option(id, { nil: null }) }, plain),
  fc.record({ t: fc.constant('journal' as const), k: id, n: id }, plain),
  fc.record({ t: fc.constant('img' as const), k: hex.map((h) => `sha256:${h}`), u: fc.webUrl({ withQueryParameters: false, withFragments: false }).filter((u) => !/[()'[\]]/.test(u)) }, plain),
);
const stamp = { w: 'writerone', c: 1_790_000_000_000 };
const KEY = stateKey('a-team-key-of-enough-characters', 'ws-1', 'root-1');

describe('remote state codec', () => {
  test('any records, any paths and titles: the service reads the tokens back exactly, with their stamps', () => {
    fc.assert(
      fc.property(fc.array(fc.array(record, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), (batches) => {
        const decoded = decodeTokens(throughTheService(batches.map((batch, i) => encodeRecords(batch, { ...stamp, c: stamp.c + i }, KEY))), KEY);
        assert.equal(decoded.damaged + decoded.unverified + decoded.dropped, 0);
        assert.deepEqual(decoded.index.flatMap((token) => token.records.map((r) => r.record)), batches.flat());
        assert.deepEqual(decoded.index.map((token) => token.records[0]?.c), batches.map((_, i) => stamp.c + i));
      }),
      { numRuns: 200 },
    );
  });

  test('any source text (front matter, code, tables, any Unicode) comes back byte for byte, split over tokens or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 64, max: 4000 }), (source, chunkBytes) => {
        const decoded = decodeTokens(throughTheService(encodeSource(sha(source), source, KEY, chunkBytes)), KEY);
        assert.equal(decoded.damaged + decoded.unverified, 0);
        assert.equal(joinSource(decoded.chunks), source);
      }),
      { numRuns: 150 },
    );
  });

  test('a token changed anywhere (one character, cut short, words added) is found, never read', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fc.nat(), fc.constantFrom('A', 'z', '0', '+', '/', '.', 'x'), (records, at, char) => {
        const token = encodeRecords(records, stamp, KEY);
        const i = at % token.length;
        fc.pre(token[i] !== char);
        const decoded = decodeTokens(`${token.slice(0, i)}${char}${token.slice(i + 1)}`, KEY);
        assert.deepEqual(decoded.index, []);
        assert.equal(decoded.damaged + decoded.unverified, 1);
      }),
      { numRuns: 300 },
    );
    assert.equal(decodeTokens('hello world', KEY).damaged, 2);
  });

  test("with the team's key only its own tokens are used: unsigned ones, another key's, another workspace's and another folder's are counted, not read", () => {
    const records: StateRecord[] = [{ t: 'journal', k: 'K1', n: 'N1' }];
    const unsigned = encodeRecords(records, stamp);
    const otherKey = encodeRecords(records, stamp, stateKey('another-key-of-enough-characters', 'ws-1', 'root-1'));
    const otherWorkspace = encodeRecords(records, stamp, stateKey('a-team-key-of-enough-characters', 'ws-2', 'root-1'));
    const otherFolder = encodeRecords(records, stamp, stateKey('a-team-key-of-enough-characters', 'ws-1', 'folder-2'));
    const mine = encodeRecords(records, stamp, KEY);
    const decoded = decodeTokens([unsigned, otherKey, otherWorkspace, otherFolder, mine].join(' '), KEY);
    assert.equal(decoded.unverified, 4);
    assert.deepEqual(decoded.index.map((token) => token.token), [mine]);
    // Signed as kbsync signed before tokens were bound to their folder: read, and marked so (the store decides).
    const unbound = { tag: KEY.workspaceTag, workspaceTag: KEY.workspaceTag };
    const before = frame('k', deflateRawSync(Buffer.from(JSON.stringify({ w: stamp.w, c: stamp.c, r: records }))), unbound);
    assert.deepEqual(decodeTokens(before, KEY).index.map((token) => token.workspace), [true]);
    // Without a key every whole token is read (and nothing counts as verified).
    assert.equal(decodeTokens([unsigned, otherKey, mine].join(' '), undefined).index.length, 3);
  });

  test('records a kbsync never writes are dropped, the rest of their batch kept: hidden, dependency and escaping paths, odd ids, non-http URLs', () => {
    const good: StateRecord = { t: 'doc', p: 'guide/a.md', k: 'K1', n: 'N1', h: sha('a'), rb: sha('b'), m: '', o: 'created' };
    const bad: unknown[] = [
      { ...good, p: '.git/config.md' },
      { ...good, p: 'a/.kbsync/x.md' },
      { ...good, p: 'node_modules/x/readme.md' },
      { ...good, p: '../outside.md' },
      { ...good, p: '/etc/passwd.md' },
      { ...good, p: 'a\\b.md' },
      { ...good, p: 'notes.txt' },
      { ...good, k: 'K 1' },
      { ...good, n: '../../x' },
      { ...good, im: [{ p: 'img/a.png', h: 'sha256:x', u: 'javascript:alert(1)' }] },
      { ...good, im: [{ p: '.git/config', h: 'sha256:x', u: '' }] },
      { t: 'img', k: `sha256:${sha('x')}`, u: 'javascript:alert(1)' },
      { t: 'img', k: `sha256:${sha('x')}`, u: 'https://x.example/a.png) [click](https://evil.example' },
      { t: 'journal', k: 'K1' },
      { t: 'nonsense' },
    ];
    const token = frame('k', deflateRawSync(Buffer.from(JSON.stringify({ w: 'w1', c: 5, r: [...bad, good] }))), KEY);
    const decoded = decodeTokens(token, KEY);
    assert.equal(decoded.dropped, bad.length);
    assert.deepEqual(decoded.index[0]?.records.map((r) => r.record), [good]);
  });

  test('a "zip bomb" token or source is refused without inflating more than a megabyte', () => {
    const bomb = deflateRawSync(Buffer.alloc(30 * 1024 * 1024));
    assert.ok(frame('k', bomb, KEY).length < 45_000, `the bomb fits in one token (${bomb.length} bytes): only the inflate bound can refuse it`);
    const before = process.memoryUsage().rss;
    assert.equal(decodeTokens(frame('k', bomb, KEY), KEY).damaged, 1);
    const header = Buffer.from(`${JSON.stringify({ h: sha(''), i: 0, of: 1 })}\n`);
    const chunks = decodeTokens(frame('s', Buffer.concat([header, bomb]), KEY), KEY).chunks;
    assert.equal(chunks.length, 1);
    assert.equal(joinSource(chunks), undefined, 'a source that inflates past the bound is not used');
    assert.ok(process.memoryUsage().rss - before < 20 * 1024 * 1024, 'the bounded inflate costs no more than a few MB');
  });

  test('a source whose text does not hash to its name is never used (a forged or mixed-up source)', () => {
    const [token] = encodeSource(sha('the real text'), 'a forged <img src=".git/config"> text', KEY);
    assert.equal(joinSource(decodeTokens(token ?? '', KEY).chunks), undefined);
  });
});
