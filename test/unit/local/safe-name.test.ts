import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fc from 'fast-check';
import { MAX_NAME_BYTES, fileNameForTitle, safeName } from '../../../src/local/safe-name.js';
import { documentTitle } from '../../../src/sync/content/document-text.js';
import { isConflictCopyName, isTransientFileName } from '../../../src/local/names.js';

const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;
const root = path.resolve('/sync/root');

/** Every rule design rule 6 asks of a name, checked on one result. */
function assertSafe(name: string, siblings: readonly string[], extension = ''): void {
  assert.notEqual(name, '', 'non-empty');
  assert.ok(!/[/\\\0]/.test(name), `no separator or NUL in ${JSON.stringify(name)}`);
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(name), 'no control characters');
  assert.ok(!/[<>:"|?*]/.test(name), 'no Windows-forbidden characters');
  assert.ok(name !== '.' && name !== '..');
  assert.ok(!/^[\s.]|[\s.]$/.test(name), `no leading/trailing dot or space in ${JSON.stringify(name)}`);
  assert.ok(!RESERVED.test((name.split('.')[0] ?? '').trimEnd()), `not reserved: ${name}`);
  assert.equal(name, name.normalize('NFC'), 'NFC');
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(name), 'no lone surrogates');
  assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES, `within the cap: ${Buffer.byteLength(name)}`);
  assert.equal(path.basename(name), name, 'one component');
  const joined = path.join(root, name + extension);
  assert.equal(path.dirname(joined), root, 'stays directly inside the root');
  const taken = new Set(siblings.map((s) => s.normalize('NFC').toLowerCase()));
  assert.ok(!taken.has((name + extension).normalize('NFC').toLowerCase()), `no collision: ${name}`);
  assert.ok(!isTransientFileName(name + extension) && !isConflictCopyName(name + extension), 'the scanner would see it');
}

const hostileChar = fc.constantFrom('/', '\\', '\0', '.', ' ', '\n', '\u0007', '\u202e', ':', '*', '?', '"', '<', '>', '|', '\ud800', '\udc00', 'e\u0301', '~', '$');
const title = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: fc.oneof(hostileChar, fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 80 }),
  fc.constantFrom('..', '.', '', 'x.sync-conflict-1', 'a (conflicted copy)', 'CON', 'con.txt', 'Lpt1', 'COM¹', 'node_modules', '4913', '~$x', 'x.tmp', 'a.conflict-20240101-120000'),
);

describe('safeName', () => {
  test('property: every title becomes one safe, capped, NFC, non-reserved, non-colliding component', () => {
    fc.assert(
      fc.property(title, fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), fc.boolean(), (t, extra, asFile) => {
        const extension = asFile ? '.md' : '';
        // Siblings include the name the title would get on its own, so collisions are exercised.
        const first = safeName(t, { extension });
        const siblings = [...extra, first + extension, `${first} (2)${extension}`.toUpperCase()];
        assertSafe(first, [], extension);
        assertSafe(safeName(t, { siblings, extension }), siblings, extension);
      }),
      { numRuns: 2000 },
    );
  });

  test('property: deterministic', () => {
    fc.assert(fc.property(title, (t) => safeName(t, { siblings: ['a'] }) === safeName(t, { siblings: ['a'] })));
  });

  const table: Array<[title: string, expected: string]> = [
    ['Meeting notes', 'Meeting notes'],
    ['..', 'untitled'],
    ['.', 'untitled'],
    ['', 'untitled'],
    ['a/b', 'a-b'],
    ['a\\b', 'a-b'],
    ['a\0b', 'ab'],
    ['tab\there\nnewline', 'tab here newline'],
    ['bell\u0007 \u001b[31mred', 'bell [31mred'],
    ['CON', '_CON'],
    ['con.txt', '_con.txt'],
    ['Aux', '_Aux'],
    ['LPT9.notes', '_LPT9.notes'],
    ['CONSOLE', 'CONSOLE'],
    ['name.', 'name'],
    ['name ', 'name'],
    ['  .hidden  ', 'hidden'],
    ['what? <yes> "no" | a:b *', 'what_ _yes_ _no_ _ a_b _'],
    ['e\u0301te\u0301', 'été'],
    ['right\u202eto-left', 'rightto-left'],
    ['emoji 🎉 party', 'emoji 🎉 party'],
    ['node_modules', '_node_modules'],
    ['x.tmp', 'x.tmp_'],
  ];
  for (const [input, expected] of table) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      const name = safeName(input);
      assert.equal(name, expected);
      assertSafe(name, []);
    });
  }

  test('a title that would read as a conflict copy or temp file is changed so the scanner keeps it', () => {
    assert.equal(fileNameForTitle('a.conflict-20240101-120000'), 'a.conflict_-20240101-120000.md');
    assert.equal(fileNameForTitle('plan.sync-conflict-x'), 'plan.sync-conflict_-x.md');
    assert.equal(fileNameForTitle("plan (Ann's conflicted copy)"), "plan (Ann's conflict_ed copy).md");
    assert.equal(fileNameForTitle('~$budget'), '_~$budget.md');
    assert.equal(safeName('drafts~'), 'drafts~_');
  });

  test('300 characters are cut to the byte cap on a code point boundary', () => {
    const name = safeName('x'.repeat(300));
    assert.equal(name, 'x'.repeat(MAX_NAME_BYTES - 2));
    const emoji = safeName('🎉'.repeat(100));
    assert.ok(Buffer.byteLength(emoji) <= MAX_NAME_BYTES);
    assert.equal(emoji, '🎉'.repeat(Math.floor((MAX_NAME_BYTES - 2) / 4)));
  });

  test('a cut that leaves a trailing dot or space trims it', () => {
    const name = safeName(`${'a'.repeat(MAX_NAME_BYTES - 3)}. b`);
    assert.equal(name, 'a'.repeat(MAX_NAME_BYTES - 3));
  });

  test('two titles mapping to one name get (2), (3) in order, ignoring case and Unicode form', () => {
    const siblings: string[] = [];
    for (const t of ['Plan', 'plan', 'PLAN', 'Pla\u006e']) siblings.push(fileNameForTitle(t, siblings));
    assert.deepEqual(siblings, ['Plan.md', 'plan (2).md', 'PLAN (3).md', 'Plan (4).md']);
    assert.equal(fileNameForTitle('e\u0301', ['É.md']), 'é (2).md');
  });

  test('on a case-sensitive file system only exact names collide', () => {
    assert.equal(safeName('Plan', { siblings: ['plan'], caseInsensitiveFs: false }), 'Plan');
    assert.equal(safeName('plan', { siblings: ['plan'], caseInsensitiveFs: false }), 'plan (2)');
  });

  test('a suffixed name stays within the cap', () => {
    const long = 'y'.repeat(400);
    const first = fileNameForTitle(long);
    const second = fileNameForTitle(long, [first]);
    assert.match(second, / \(2\)\.md$/);
    assert.ok(Buffer.byteLength(second) <= MAX_NAME_BYTES + 3);
  });
});

describe('a pulled title, as a file name', () => {
  test('a pulled title written as a file name reads back as the same title', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }), (t) => {
        const clean = t.replace(/[^a-zA-Z0-9 ]/g, '').trim().replace(/\s+/g, ' ');
        fc.pre(clean !== '' && !/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(clean));
        assert.equal(documentTitle('Body text only.\n', fileNameForTitle(clean)), clean);
      }),
    );
  });
});
