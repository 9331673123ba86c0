import assert from 'node:assert/strict';
import { open, writeFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CaseFixture } from '../../helpers/bad-input.js';
import { assertSteady, reportOf, synced, type BadInput } from './case.js';

const GOOD = { 'good.md': '# Good\n\nAlready synced.\n' };

/** Writes `bytes` into the root as `rel` after the good note is synced: the run then meets only the bad file. */
const badFile = (rel: string, bytes: Buffer | string) => async (f: CaseFixture) => {
  await synced(f, GOOD);
  await writeFile(join(f.root, rel), bytes);
};

const problemOf = (run: Parameters<NonNullable<BadInput['check']>>[1], path: string) =>
  reportOf(run).problems.find((p) => p.path === path);

/** Copies `total` bytes into `abs` in chunks, slowly, the way a large copy from a network drive arrives. */
async function slowCopy(abs: string, total: number, chunk: number): Promise<void> {
  const handle = await open(abs, 'w');
  try {
    const line = Buffer.alloc(chunk, 'All work and no play makes a very long file.\n');
    for (let written = 0; written < total; written += chunk) {
      await handle.write(line);
      await sleep(5);
    }
  } finally {
    await handle.close();
  }
}

/** Unusable files are reported (exit 1), never pushed, never touched; the rest of the folder still syncs. */
export const fileCases: readonly BadInput[] = [
  {
    group: 'files',
    name: 'a file that is not UTF-8 (Latin-1)',
    setup: badFile('latin.md', Buffer.from('# Caf\xe9\n\nna\xefve\n', 'latin1')),
    run: (f) => f.sync(),
    exit: 1,
    says: [/latin\.md is not valid UTF-8/, /Convert it to UTF-8/, /FILE_NOT_UTF8/],
  },
  {
    group: 'files',
    name: 'a file with NUL bytes',
    setup: badFile('binary.md', Buffer.from('# Binary\n\x00\x01\x02 data\n', 'latin1')),
    run: (f) => f.sync(),
    exit: 1,
    says: [/binary\.md holds a NUL byte at offset 9/, /Remove the binary content, or exclude the file/],
  },
  {
    group: 'files',
    name: 'a body over the 50,000-character limit',
    setup: badFile('long.md', `# Long\n\n${'word '.repeat(10_001)}\n`),
    run: (f) => f.sync(),
    exit: 1,
    says: [/long\.md is too large to sync: 50\d{3} characters \(the service keeps at most 50000\)/, /Split it into smaller documents/],
    check: async (f) => {
      // Said once: unchanged, it is listed as still not synced, and no later run fails for it; changed, it is said again.
      const again = await f.sync();
      assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
      const shown = await f.cli(['sync']);
      assert.equal(shown.code, 0);
      assert.match(shown.stdout, /^- long\.md: still not synced, unchanged since it was said: .*too large/m);
      assert.deepEqual(reportOf(again).problems.map((p) => [p.path, p.repeated]), [['long.md', true]]);
      assert.equal(reportOf(again).failed, 0);
      await f.write('long.md', `# Long\n\n${'words '.repeat(10_001)}\n`);
      const changed = await f.sync();
      assert.equal(changed.code, 1, 'a change of the file is said again');
      assert.equal(reportOf(changed).problems[0]?.repeated, undefined);
    },
  },
  {
    group: 'files',
    name: 'a title longer than the service takes (300 characters)',
    setup: async (f) => f.write('long-title.md', `---\ntitle: ${'Quarterly planning '.repeat(16)}\n---\nBody.\n`),
    run: (f) => f.sync(),
    exit: 0,
    says: [/its title is longer than the 255 characters the service takes, so the document is titled \\?"Quarterly planning .*…/],
    changes: 'remote',
    check: async (f) => {
      const [doc] = f.remoteDocs();
      assert.equal(doc?.title.length, 255);
      assert.match(doc?.title ?? '', /^Quarterly planning .*…$/);
      await assertSteady(f);
    },
  },
  {
    group: 'files',
    name: 'a body of exactly 50,000 characters with no final newline',
    setup: async (f) => f.write('exact.md', `# Exact\n\n${'x'.repeat(50_000 - '# Exact\n\n'.length)}`),
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'remote',
    check: async (f) => {
      assert.equal((f.remoteDoc('Exact').markdown ?? '').length, 50_000, 'the whole body, within the limit');
      await assertSteady(f);
    },
  },
  {
    group: 'files',
    name: 'a body over the limit is refused before any document is created',
    setup: badFile('over.md', `# Over\n\n${'x'.repeat(50_001 - '# Over\n\n'.length)}`),
    run: (f) => f.sync(),
    exit: 1,
    says: [/over\.md/, /50001 characters/, /Split it into smaller documents/],
    check: async (f) => assert.deepEqual(f.remoteDocs().map((d) => d.title), ['Good'], 'no empty document was made'),
  },
  {
    group: 'files',
    name: 'a synced file truncated to 0 bytes mid-save',
    setup: async (f) => {
      await synced(f, { 'draft.md': '# Draft\n\nThree paragraphs of real writing.\n' });
      await truncate(join(f.root, 'draft.md'), 0);
    },
    run: (f) => f.sync(),
    exit: 1,
    says: [/draft\.md/, /empty/, /kbsync resolve --mine draft\.md/],
    check: async (f) => {
      // The user really wants it empty: --force (or kbsync resolve --mine, tested in release.test.ts) pushes it.
      const forced = await f.sync(['--force']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(f.remoteDoc('Draft').markdown, '');
    },
  },
  {
    group: 'files',
    name: 'a synced file emptied while its document was edited remotely (push only, as in CI)',
    setup: async (f) => {
      await synced(f, { 'both.md': '# Both\n\nOriginal.\n' });
      f.em.admin.editDocument(f.remoteDoc('Both').dentryUuid, '# Both\n\nEdited in the web editor.\n');
      await writeFile(join(f.root, 'both.md'), '\n\n');
    },
    run: (f) => f.sync(['--push']),
    exit: 1,
    says: [/both\.md/, /empty now but was not at the last sync/, /kbsync resolve --mine both\.md/],
  },
  {
    group: 'files',
    name: 'a 20 MB file copied in slowly while a sync runs',
    setup: async (f) => synced(f, GOOD),
    run: async (f) => {
      const copying = slowCopy(join(f.root, 'huge.md'), 20 * 1024 * 1024, 256 * 1024);
      const during = await f.sync();
      await copying;
      assert.ok(during.code === 0 || during.code === 1, during.stderr);
      return f.sync();
    },
    exit: 1,
    says: [/huge\.md is too large to sync: 20971520 bytes on disk \(the limit is \d+\)/, /Split it into smaller documents, or exclude it/],
    // The copy itself is the only local change; the knowledge base must not have seen any of it.
    changes: 'local',
    check: async (f) => assert.deepEqual(f.remoteDocs().map((d) => d.title), ['Good']),
  },
  {
    group: 'files',
    name: 'editor temp files (.swp, ~, .#lock, 4913, .tmp, ~$, .~lock) beside a note',
    setup: async (f) => {
      await synced(f, GOOD);
      const junk = ['.good.md.swp', 'good.md~', '.#good.md', '4913', 'good.md.tmp', '~$good.md', '.~lock.good.md#', '.kbsync-tmp-123.md', 'x.tmp.md~'];
      for (const name of junk) await writeFile(join(f.root, name), '# Junk\n\nhalf a save\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    check: async (f) => assert.deepEqual(f.remoteDocs().map((d) => d.title), ['Good']),
  },
  {
    group: 'files',
    name: 'malformed front matter (bad YAML)',
    setup: badFile('yaml.md', '---\ntitle: [unclosed\nmembers: {\n---\n# Yaml\n'),
    run: (f) => f.sync(),
    exit: 1,
    says: [/yaml\.md/, /front matter/i, /[Ff]ix/],
    check: async (f, run) => assert.ok(problemOf(run, 'yaml.md')),
  },
  {
    group: 'files',
    name: 'front matter a note editor opens all the same (an alias YAML refuses, a key given twice): published as the editor shows it, said once',
    setup: badFile('kepano.md', '---\naliases:\n- @kepano\ntags: a\ntags: b\npublish: true\n---\n# Kepano\n'),
    changes: 'remote',
    run: (f) => f.sync(),
    exit: 0,
    says: [/kepano\.md/, /not valid YAML/, /left out: \\?"aliases/, /FRONT_MATTER_LENIENT/],
    check: async (f, run) => {
      assert.ok(f.remoteDocs().some((d) => d.title === 'Kepano'));
      assert.equal(reportOf(run).failed, 0);
      const again = await f.sync();
      assert.equal(again.code, 0);
      assert.doesNotMatch(`${again.stdout}${again.stderr}`, /FRONT_MATTER_LENIENT/, 'said once: the unchanged file is not read again');
    },
  },
  {
    group: 'files',
    name: 'front matter whose `publish` cannot be read exactly is refused (a private note must not be published by a guess)',
    setup: badFile('private.md', '---\naliases:\n- @me\npublish: false\npublish: true\n---\n# Private\n'),
    run: (f) => f.sync(),
    exit: 1,
    says: [/private\.md/, /not valid YAML/, /title, members and publish/],
    check: async (f, run) => {
      assert.ok(problemOf(run, 'private.md'));
      assert.ok(!f.remoteDocs().some((d) => d.title === 'Private'));
    },
  },
  {
    group: 'files',
    name: 'front matter `members` of the wrong shape',
    setup: badFile('members.md', '---\nmembers: alice\n---\n# Members\n'),
    run: (f) => f.sync(),
    exit: 1,
    says: [/members\.md/, /members/, /a list of \{ userId, role \}/],
  },
  {
    group: 'files',
    name: 'a new file with `publish: false`',
    setup: badFile('private.md', '---\npublish: false\n---\n# Private\n\nNot for the knowledge base.\n'),
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    check: async (f) => assert.deepEqual(f.remoteDocs().map((d) => d.title), ['Good']),
  },
  {
    group: 'files',
    name: 'a synced file later marked `publish: false` (the document is left alone, not deleted)',
    setup: async (f) => {
      await synced(f, { 'later.md': '# Later\n\nShared once.\n' });
      await f.write('later.md', '---\npublish: false\n---\n# Later\n\nShared once.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    check: async (f) => assert.equal(f.remoteDoc('Later').markdown, '# Later\n\nShared once.\n'),
  },
];
