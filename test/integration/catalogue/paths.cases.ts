import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { printed, snapshotTree } from '../../helpers/bad-input.js';
import { assertSteady, reportOf, synced, type BadInput } from './case.js';

const skippedPaths = (run: Parameters<NonNullable<BadInput['check']>>[1]): string[] => reportOf(run).skipped.map((s) => s.path);

/** Symlinks are never followed nor written through; names that differ only in form or case never lose a file. */
export const pathCases: readonly BadInput[] = [
  {
    group: 'paths',
    name: 'a symlink loop (a link to itself and a folder link to its parent)',
    setup: async (f) => {
      await synced(f, { 'a.md': '# A\n\nx\n' });
      await symlink('loop.md', join(f.root, 'loop.md'));
      await mkdir(join(f.root, 'sub'));
      await symlink('..', join(f.root, 'sub', 'up'));
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [/symlink loop; not followed/, /symlinked folder .*never followed/],
    check: async (f, run) => {
      assert.deepEqual(skippedPaths(run), ['loop.md', 'sub/up']);
      assert.deepEqual(f.remoteDocs().map((d) => d.title), ['A']);
    },
  },
  {
    group: 'paths',
    name: 'a symlink to a file outside the root',
    setup: async (f) => {
      await synced(f, { 'a.md': '# A\n\nx\n' });
      await writeFile(join(f.dir, 'secret.md'), '# Secret\n\nOutside the root.\n');
      await symlink('../secret.md', join(f.root, 'secret.md'));
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [/symlink to a file outside the sync folder; symlinks are never followed \(move or copy the file into the folder to sync it\)/],
    check: async (f) => assert.deepEqual(f.remoteDocs().map((d) => d.title), ['A']),
  },
  {
    group: 'paths',
    name: 'a symlinked folder pointing out of the root, and a remote folder of the same name',
    setup: async (f) => {
      await synced(f, { 'a.md': '# A\n\nx\n' });
      await mkdir(join(f.dir, 'elsewhere'));
      await writeFile(join(f.dir, 'elsewhere', 'theirs.md'), '# Theirs\n\nNot ours to sync.\n');
      await symlink('../elsewhere', join(f.root, 'linked'));
      const folder = f.remoteCreate('linked', undefined, { folder: true });
      f.remoteCreate('Planted', '# Planted\n\nWould land outside the root.\n', { parent: folder });
    },
    run: (f) => f.sync(),
    exit: 1,
    says: [/Refusing to touch \\?"linked\\?": that folder is a symlink/, /Replace the symlink with a real folder, or exclude the path/],
    check: async (f, run) => {
      assert.doesNotMatch(printed(run), /linked\/_/, 'the message names the folder, not an internal probe path');
      const outside = await snapshotTree(join(f.dir, 'elsewhere'));
      assert.deepEqual([...outside.keys()], ['theirs.md']);
      assert.deepEqual(f.remoteDocs().map((d) => d.title).sort(), ['A', 'Planted']);
    },
  },
  {
    group: 'paths',
    name: 'a remote document named like a symlinked file in the root',
    setup: async (f) => {
      await writeFile(join(f.dir, 'victim.md'), '# Victim\n\nOutside the root.\n');
      await symlink('../victim.md', join(f.root, 'victim.md'));
      f.remoteCreate('victim', '# Victim\n\nFrom the knowledge base.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [/victim\.md.*symlink to a file outside the sync folder/],
    changes: 'local',
    check: async (f) => {
      // It lands beside the link under another name, instead of failing on the link at every run.
      assert.equal(await f.read('victim (2).md'), '# Victim\n\nFrom the knowledge base.\n');
      assert.equal(await readFile(join(f.dir, 'victim.md'), 'utf8'), '# Victim\n\nOutside the root.\n');
      await assertSteady(f);
    },
  },
  {
    group: 'paths',
    name: 'a file name with a backslash (a folder separator on Windows)',
    setup: async (f) => f.write('a\\b.md', '# Slashed\n\nText.\n'),
    run: (f) => f.sync(),
    exit: 1,
    says: [/a\\+b\.md/, /its name holds a backslash, a folder separator on Windows; rename it to sync it/, /NAME_UNPORTABLE/],
    check: async (f) => {
      assert.equal(f.remoteDocs().length, 0, 'refused before any create');
      const again = await f.sync();
      assert.equal(again.code, 1);
      assert.doesNotMatch(`${again.stdout}${again.stderr}`, /kbsync bug/);
      assert.equal(f.remoteDocs().length, 0);
    },
  },
  {
    group: 'paths',
    name: 'the same name in NFC and NFD forms',
    setup: async (f) => {
      await f.write('caf\u00e9.md', '# Composed\n\nNFC.\n');
      await f.write('cafe\u0301.md', '# Decomposed\n\nNFD.\n');
    },
    run: (f) => f.sync(),
    // A file that cannot sync until it is renamed: the run is not complete (exit 1), every run says so.
    exit: 1,
    says: [/same name as .* after Unicode normalisation \(NFC\), so the two would be one document; rename one of them/, /NAME_TWIN/],
    changes: 'remote',
    check: async (f, run) => {
      // One document, from one of the two spellings; the other file is reported and both stay untouched.
      const docs = f.remoteDocs();
      assert.equal(docs.length, 1);
      const skipped = skippedPaths(run);
      assert.equal(skipped.length, 1);
      assert.ok(['caf\u00e9.md', 'cafe\u0301.md'].includes(skipped[0] ?? ''));
      assert.equal(docs[0]?.title, skipped[0] === 'caf\u00e9.md' ? 'Decomposed' : 'Composed');
      assert.equal(await readFile(join(f.root, 'caf\u00e9.md'), 'utf8'), '# Composed\n\nNFC.\n');
      assert.equal(await readFile(join(f.root, 'cafe\u0301.md'), 'utf8'), '# Decomposed\n\nNFD.\n');
      // A person at a terminal is told too, not only a script reading --json.
      const human = await f.cli(['sync']);
      assert.equal(human.code, 1);
      assert.match(human.stdout, /✗ .*: not synced: same name as .* after Unicode normalisation/);
      const again = await f.sync();
      assert.deepEqual(again.report?.results.filter((r) => !r.ok || r.result !== 'unchanged'), [], 'nothing else changes');
      assert.equal(f.remoteDocs().length, 1);
    },
  },
  {
    group: 'paths',
    name: 'two files whose names differ only in case (Notes.md, notes.md)',
    setup: async (f) => {
      await f.write('Notes.md', 'Upper case file.\n');
      await f.write('notes.md', 'Lower case file.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'remote',
    check: async (f) => {
      const bodies = f.remoteDocs().map((d) => d.markdown).sort();
      assert.deepEqual(bodies, ['Lower case file.\n', 'Upper case file.\n']);
      await assertSteady(f);
      assert.equal(f.remoteDocs().length, 2);
    },
  },
];
