import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CaseFixture } from '../../helpers/bad-input.js';
import { assertSteady, synced, type BadInput } from './case.js';

const TEN = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nText ${i}.\n`]));
const ledgerFile = (f: CaseFixture): string => join(f.root, '.kbsync', 'ledger.sqlite');

/** Missing knowledge never becomes a delete (rule 4): the run is refused whole and both sides stay as they are. */
export const guardCases: readonly BadInput[] = [
  {
    group: 'root',
    name: 'the root folder deleted (or a drive not mounted)',
    setup: async (f) => {
      await synced(f, TEN);
      await rename(f.root, `${f.root}-moved-away`);
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/The sync folder .*notes does not exist/, /Is the drive unmounted or the folder moved\? Mount or restore it/],
    check: async (f) => assert.equal(f.remoteDocs().length, 10),
  },
  {
    group: 'root',
    name: 'a root of / (an unset variable in KBSYNC_ROOT)',
    run: (f) => f.sync([], { KBSYNC_ROOT: '/' }),
    exit: 2,
    says: [/The sync folder \/ is the top of the file system: kbsync would publish every Markdown file under it/, /allowBroadRoot/, /ROOT_TOO_BROAD/],
    check: async (f, run) => {
      assert.equal(run.report, undefined);
      assert.equal(f.remoteDocs().length, 0);
    },
  },
  {
    group: 'root',
    name: 'a root that is the home folder, or holds it; allowed only when the config says so',
    setup: async (f) => f.write('note.md', '# Note\n'),
    run: (f) => f.sync([], { HOME: f.root }),
    exit: 2,
    says: [/is your home folder/, /"allowBroadRoot": true in the config \(or KBSYNC_ALLOW_BROAD_ROOT=true\)/],
    check: async (f) => {
      const above = await f.sync([], { HOME: join(f.root, 'inner') });
      assert.equal(above.code, 2);
      assert.match(above.stderr, /a folder that holds your home folder/);
      assert.equal(f.remoteDocs().length, 0);
      const allowed = await f.sync([], { HOME: f.root, KBSYNC_ALLOW_BROAD_ROOT: 'true' });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.equal(f.remoteDocs().length, 1);
    },
    changes: 'both',
  },
  {
    group: 'root',
    name: 'the root replaced by a file',
    setup: async (f) => {
      await synced(f, TEN);
      await rename(f.root, `${f.root}-aside`);
      await writeFile(f.root, 'not a folder\n');
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/The sync folder .*notes is not a folder/, /Point "root" in sync\.config\.json at the folder/],
  },
  {
    group: 'guards',
    name: '`rm` of most files (8 of 10): the mass-delete guard',
    setup: async (f) => {
      await synced(f, TEN);
      for (let i = 0; i < 8; i += 1) await unlink(join(f.root, `n${i}.md`));
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [/would delete 8 of 10 synced documents/, /restore them; if the deletions are intended, run again with --force/, /MASS_DELETE/],
  },
  {
    group: 'guards',
    name: 'a colleague deletes most documents (8 of 10): the mass-delete guard, no local trashing',
    setup: async (f) => {
      await synced(f, TEN);
      for (const doc of f.remoteDocs().slice(0, 8)) f.em.admin.deleteNode(doc.dentryUuid);
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [/would delete 8 of 10 synced documents/, /--force/, /MASS_DELETE/],
  },
  {
    group: 'guards',
    name: 'the whole local folder emptied',
    setup: async (f) => {
      await synced(f, TEN);
      for (const name of Object.keys(TEN)) await unlink(join(f.root, name));
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [/The local folder holds no Markdown files, but 10 were synced before/, /mount it; if you really removed every file, run again with --force/, /EMPTY_LOCAL/],
  },
  {
    group: 'guards',
    name: 'the remote emptied by a colleague',
    setup: async (f) => {
      await synced(f, TEN);
      for (const doc of f.remoteDocs()) f.em.admin.deleteNode(doc.dentryUuid);
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [/shows no documents under the synced folder, but 10 were synced before/, /Check workspaceId and remoteFolder/, /EMPTY_REMOTE/],
  },
  {
    group: 'ledger',
    name: 'the ledger deleted: documents adopted, none duplicated',
    setup: async (f) => {
      await synced(f, TEN);
      await rm(join(f.root, '.kbsync'), { recursive: true });
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
    check: async (f) => {
      assert.equal(f.remoteDocs().length, 10);
      await assertSteady(f);
    },
  },
  {
    group: 'ledger',
    name: 'the ledger corrupted (garbage bytes)',
    setup: async (f) => {
      await synced(f, TEN);
      await writeFile(join(f.root, 'n1.md'), '# Note 1\n\nEdited after the ledger broke.\n');
      await writeFile(ledgerFile(f), Buffer.from('this is not a SQLite database, just garbage '.repeat(200)));
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [/ledger/i, /ledger\.sqlite/, /damaged|corrupt|not a kbsync ledger/i, /move it aside|restore|backup/i],
  },
  {
    group: 'ledger',
    name: 'the ledger locked by a live process',
    setup: async (f) => {
      await synced(f, TEN);
      await writeFile(join(f.root, 'n1.md'), '# Note 1\n\nEdited while locked.\n');
      const holder = { pid: process.pid, hostname: hostname(), startedAt: Date.now(), command: 'kbsync watch', token: 'held-by-the-test' };
      await writeFile(`${ledgerFile(f)}.lock`, `${JSON.stringify(holder)}\n`);
    },
    run: (f) => f.sync(),
    exit: 3,
    says: [new RegExp(`pid ${process.pid}`), /kbsync watch/, /stop|wait|finish/i],
    check: async (f) => {
      await rm(`${ledgerFile(f)}.lock`);
      assert.equal(f.remoteDoc('Note 1').markdown, '# Note 1\n\nText 1.\n');
    },
  },
];
