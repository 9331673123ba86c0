import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { IgnoreTree } from '../../../src/local/ignore-tree.js';
import { conflictCopyPath, isConflictCopyName, isTransientFileName } from '../../../src/local/names.js';
import { DEFAULT_INCLUDE, matchesDefaultInclude, PathFilter } from '../../../src/local/path-filter.js';
import { decodeText, encodeText } from '../../../src/local/text-file.js';
import { KbsyncError } from '../../../src/errors.js';

describe('editor temp and conflict names', () => {
  const transient = ['.#notes.md', 'notes.md~', '.notes.md.swp', 'notes.swx', '4913', 'x.md.tmp', '.~lock.notes.md#', '~$notes.md', 'a.md.crdownload', '.DS_Store', '.kbsync-tmp-0a1b2c'];
  for (const name of transient) test(`${name} is transient`, () => assert.ok(isTransientFileName(name)));
  for (const name of ['notes.md', 'tmp.md', 'swap.md', '4913.md', 'lock.md']) {
    test(`${name} is a normal file`, () => assert.ok(!isTransientFileName(name)));
  }

  test('conflict copies are named and recognised, and never copied again', () => {
    const copy = conflictCopyPath('dir/plan.md', new Date(Date.UTC(2024, 4, 1, 12, 3, 4)));
    assert.equal(copy, 'dir/plan.conflict-20240501-120304.md');
    assert.ok(isConflictCopyName('plan.conflict-20240501-120304.md'));
    assert.equal(conflictCopyPath('plan.md', new Date(0), 2), 'plan.conflict-19700101-000000-2.md');
    assert.ok(isConflictCopyName('plan.conflict-19700101-000000-2.md'));
    assert.ok(isConflictCopyName('plan.conflict-notes.md'));
    assert.ok(isConflictCopyName('plan.sync-conflict-20240101-120000-ABCDEF.md'));
    assert.ok(isConflictCopyName("plan (Ann's conflicted copy 2024-01-01).md"));
    assert.ok(!isConflictCopyName('conflict-resolution.md'));
    assert.ok(!isConflictCopyName('plan.conflict-1.txt'));
    assert.throws(() => conflictCopyPath(copy, new Date()), (error: unknown) => error instanceof KbsyncError && error.code === 'CONFLICT_OF_CONFLICT');
  });
});

describe('PathFilter', () => {
  test('property: the default include, matched without picomatch, is what picomatch matches', () => {
    const glob = picomatch([...DEFAULT_INCLUDE]);
    // Names built from what could trip either: dots anywhere, the extension's letters in both cases, glob and escape characters.
    const name = fc.array(fc.constantFrom('.', '.', 'md', 'MD', '.md', 'a', 'é', ' ', '\\', '*', '!', '[', ']', '(', ')', '{', '}', '#', '~', '-', '+', '@', '?'), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), (segments) => {
        const rel = segments.join('/');
        assert.equal(matchesDefaultInclude(rel), glob(rel), rel);
      }),
      { numRuns: 20_000 },
    );
  });

  test('default include takes Markdown files, not hidden ones', () => {
    const filter = new PathFilter('/r');
    assert.equal(filter.fileVerdict('a/b.md'), 'file');
    assert.equal(filter.fileVerdict('a/b.txt'), 'ignored');
    assert.equal(filter.fileVerdict('.obsidian/x.md'), 'ignored');
    assert.equal(filter.fileVerdict('a/b.conflict-20240101-000000.md'), 'conflict');
    assert.equal(filter.fileVerdict('a/.#b.md'), 'ignored');
  });

  test('exclude globs drop files and prune folders; always-ignored folders and the state folder are skipped', () => {
    const filter = new PathFilter('/r', { exclude: ['drafts/**', '**/*.private.md'], stateDir: 'meta/state' });
    assert.equal(filter.fileVerdict('drafts/a.md'), 'ignored');
    assert.equal(filter.fileVerdict('x/y.private.md'), 'ignored');
    assert.ok(filter.dirIgnored('drafts'));
    assert.ok(filter.dirIgnored('a/node_modules'));
    assert.ok(filter.dirIgnored('.git'));
    assert.ok(filter.dirIgnored('.kbsync'));
    assert.ok(filter.dirIgnored('meta/state'));
    assert.ok(!filter.dirIgnored('meta'));
    assert.ok(!filter.dirIgnored('notes'));
  });

  test('an absolute state folder inside the root is recognised; one outside is irrelevant', () => {
    assert.ok(new PathFilter('/r', { stateDir: '/r/.state' }).dirIgnored('.state'));
    assert.ok(!new PathFilter('/r', { stateDir: '/elsewhere/.state' }).dirIgnored('.state'));
  });
});

describe('IgnoreTree', () => {
  test('gitignore rules apply below their folder, deeper files win, folders need a trailing slash rule', () => {
    const tree = new IgnoreTree();
    tree.set('', 'build/\n*.draft.md\n');
    tree.set('docs', '!keep.draft.md\nsecret.md\n');
    assert.ok(tree.ignores('build', true));
    assert.ok(!tree.ignores('build', false));
    assert.ok(tree.ignores('a/x.draft.md', false));
    assert.ok(!tree.ignores('docs/keep.draft.md', false));
    assert.ok(tree.ignores('docs/sub/secret.md', false));
    assert.ok(!tree.ignores('secret.md', false));
    tree.forget('docs');
    assert.ok(tree.ignores('docs/keep.draft.md', false));
    assert.ok(!tree.isKnown('docs'));
  });
});

describe('decodeText / encodeText', () => {
  const code = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      return (error as KbsyncError).code;
    }
    return 'no error';
  };

  test('refuses NUL bytes, invalid UTF-8 and too many characters, naming the file', () => {
    assert.equal(code(() => decodeText(Buffer.from('a\0b'))), 'FILE_HAS_NUL');
    assert.equal(code(() => decodeText(Buffer.from([0x61, 0xff, 0x62]))), 'FILE_NOT_UTF8');
    assert.equal(code(() => decodeText(Buffer.from([0xed, 0xa0, 0x80]))), 'FILE_NOT_UTF8'); // an encoded surrogate
    assert.equal(code(() => decodeText(Buffer.from('x'.repeat(50_001)))), 'FILE_TOO_LARGE');
    assert.equal(code(() => decodeText(Buffer.from('x'.repeat(50_000)))), 'no error');
    assert.throws(() => decodeText(Buffer.from('a\0'), { displayPath: 'notes/a.md' }), /notes\/a\.md/);
  });

  test('strips the BOM, keeps line endings exactly as written, and encodeText restores the bytes', () => {
    const original = Buffer.from('\uFEFF# Title\r\n\r\nText\r\n', 'utf8');
    const decoded = decodeText(original);
    assert.deepEqual(decoded, { text: '# Title\r\n\r\nText\r\n', bom: true, eol: 'crlf' });
    assert.deepEqual(encodeText(decoded.text, decoded), original);
    // A CRLF file stays CRLF throughout: a line written fresh with LF gets CRLF too.
    assert.deepEqual(encodeText('# Title\r\n\r\nNew\n', decoded), Buffer.from('\uFEFF# Title\r\n\r\nNew\r\n'));
    const plain = decodeText(Buffer.from('a\nb\n'));
    assert.deepEqual(plain, { text: 'a\nb\n', bom: false, eol: 'lf' });
    assert.deepEqual(encodeText(plain.text, plain), Buffer.from('a\nb\n'));
    // Mixed endings are nobody's to unify: they come back exactly.
    const mixed = decodeText(Buffer.from('a\r\nb\nc\r\n'));
    assert.deepEqual(mixed, { text: 'a\r\nb\nc\r\n', bom: false, eol: 'lf' });
    assert.deepEqual(encodeText(mixed.text, mixed), Buffer.from('a\r\nb\nc\r\n'));
  });
});
