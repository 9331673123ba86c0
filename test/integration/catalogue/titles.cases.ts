import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { snapshotTree, type CaseFixture } from '../../helpers/bad-input.js';
import { assertSteady, type BadInput } from './case.js';

/** The Markdown files inside the root (state folder aside), with their text. */
async function localNotes(f: CaseFixture): Promise<Map<string, string>> {
  const tree = await snapshotTree(f.root, (rel) => rel === '.kbsync');
  const notes = new Map<string, string>();
  for (const [rel, kind] of tree) if (kind !== 'dir') notes.set(rel, await f.read(rel));
  return notes;
}

const exists = (abs: string): Promise<boolean> =>
  access(abs).then(
    () => true,
    () => false,
  );

/**
 * A hostile remote title becomes one safe file inside the root (the runner checks that nothing
 * outside the root changed; this also looks one and two levels above the fixture's folder).
 */
function hostileTitle(name: string, title: string, expected: RegExp): BadInput {
  const body = `Body of a document with a hostile title.\n`;
  return {
    group: 'remote titles',
    name,
    setup: async (f) => {
      f.remoteCreate(title, body);
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'local',
    check: async (f) => {
      const notes = await localNotes(f);
      assert.equal(notes.size, 1, [...notes.keys()].join(', '));
      const [path, text] = [...notes][0] as [string, string];
      assert.match(path, expected);
      assert.ok(!path.includes('/'), `one path component, got ${path}`);
      assert.equal(text, body);
      for (const above of [dirname(f.dir), dirname(dirname(f.dir))]) assert.equal(await exists(join(above, '.bashrc')), false, `written to ${above}`);
      await assertSteady(f);
      assert.equal(f.remoteDocs().length, 1);
    },
  };
}

/** Folders: the folder and the document in it both land inside the root, under safe names. */
function hostileFolder(name: string, folderTitle: string, expectedFolder: RegExp): BadInput {
  return {
    group: 'remote titles',
    name,
    setup: async (f) => {
      const folder = f.remoteCreate(folderTitle, undefined, { folder: true });
      f.remoteCreate('Inside', '# Inside\n\nIn a folder with a hostile name.\n', { parent: folder });
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'local',
    check: async (f) => {
      const notes = [...(await localNotes(f)).keys()];
      assert.equal(notes.length, 1, notes.join(', '));
      const [folder, file, ...rest] = (notes[0] ?? '').split('/');
      assert.deepEqual(rest, []);
      assert.match(folder ?? '', expectedFolder);
      assert.equal(file, 'Inside.md');
      await assertSteady(f);
    },
  };
}

export const titleCases: readonly BadInput[] = [
  hostileTitle('a title of `..`', '..', /^untitled\.md$/),
  hostileTitle('a title containing `/`', 'plans/2024', /^plans-2024\.md$/),
  hostileTitle('a title containing `\\`', 'C:\\Windows\\notes', /^C_-Windows-notes\.md$/),
  hostileTitle('a title containing NUL', 'nul\u0000byte', /^nulbyte\.md$/),
  hostileTitle('a title with control characters (bell, escape, newline)', 'ring\u0007 \u001b[31mred\u001b[0m\nline', /^ring \[31mred\[0m line\.md$/),
  hostileTitle('a reserved device name (CON)', 'CON', /^_CON\.md$/),
  hostileTitle('a reserved device name with an extension (nul.txt)', 'nul.txt', /^_nul\.txt\.md$/),
  hostileTitle('a title ending in a dot', 'The end.', /^The end\.md$/),
  hostileTitle('a title ending in a space', 'Trailing ', /^Trailing\.md$/),
  hostileTitle('a 255-character title (the service maximum), multi-byte', '長'.repeat(255), /^長{30,40}\.md$/),
  hostileTitle('a title of `../../.bashrc`', '../../.bashrc', /bashrc\.md$/),
  hostileFolder('a remote folder titled `..`', '..', /^untitled$/),
  {
    group: 'remote titles',
    name: "a remote folder titled `.kbsync` at the root (kbsync's own state folder): its documents are said, never synced",
    setup: async (f) => {
      const folder = f.remoteCreate('.kbsync', undefined, { folder: true });
      f.remoteCreate('Inside', '# Inside\n\nIn a folder with a hostile name.\n', { parent: folder });
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [/\\?"Inside\\?" is in the \.kbsync folder at the synced root, which is kbsync's own/, /Move it to another folder to sync it/, /STATE_FOLDER_SHARED/],
    check: async (f) => {
      assert.deepEqual([...(await localNotes(f)).keys()], [], 'nothing pulled from it');
      const docs = f.em.admin.dump().nodes.filter((n) => n.workspaceId === f.workspaceId && n.title === 'Inside');
      assert.equal(docs.length, 1, 'and nothing deleted');
    },
  },
  {
    group: 'remote titles',
    name: 'two remote documents whose titles map to the same file name (a/b, a-b)',
    setup: async (f) => {
      f.remoteCreate('a/b', 'Slash.\n');
      f.remoteCreate('a-b', 'Dash.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'local',
    check: async (f) => {
      const notes = await localNotes(f);
      assert.deepEqual([...notes.keys()].sort(), ['a-b (2).md', 'a-b.md']);
      assert.deepEqual([...notes.values()].sort(), ['Dash.\n', 'Slash.\n']);
      await assertSteady(f);
      assert.equal(f.remoteDocs().length, 2);
    },
  },
  {
    group: 'remote titles',
    name: 'two remote documents whose titles differ only in case (Plan, plan)',
    setup: async (f) => {
      f.remoteCreate('Plan', 'Upper.\n');
      f.remoteCreate('plan', 'Lower.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'local',
    check: async (f) => {
      const notes = await localNotes(f);
      assert.equal(notes.size, 2, [...notes.keys()].join(', '));
      assert.equal(new Set([...notes.keys()].map((k) => k.toLowerCase())).size, 2, 'names must differ ignoring case');
      assert.deepEqual([...notes.values()].sort(), ['Lower.\n', 'Upper.\n']);
      await assertSteady(f);
      assert.equal(f.remoteDocs().length, 2);
    },
  },
  {
    group: 'remote titles',
    name: 'a remote folder and a document with the same name (Plans/ and Plans)',
    setup: async (f) => {
      const folder = f.remoteCreate('Plans', undefined, { folder: true });
      f.remoteCreate('Q1', 'First quarter.\n', { parent: folder });
      f.remoteCreate('Plans', 'The plan of plans.\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    changes: 'local',
    check: async (f) => {
      const notes = await localNotes(f);
      assert.deepEqual([...notes.keys()].sort(), ['Plans.md', 'Plans/Q1.md']);
      assert.equal(notes.get('Plans.md'), 'The plan of plans.\n');
      await assertSteady(f);
      assert.equal(f.remoteDocs().length, 2);
    },
  },
];
