import { mkdir, rename } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { SyncFixture } from '../helpers/sync-fixture.js';
import { isConflictCopy, localFiles } from '../helpers/reliability.js';
import type { Random } from './random.js';
import type { Texts } from './text.js';

/**
 * What the two users do between syncs: the local user edits the folder, the other user edits the
 * knowledge base through the emulator's admin API (as the web editor would). Each action returns a
 * line for the step log, or undefined when it had nothing to act on (the driver then syncs instead).
 */
export type UserAction = (world: World) => Promise<string | undefined>;

export type World = { readonly f: SyncFixture; readonly rng: Random; readonly texts: Texts; readonly next: () => number };

const FOLDERS = ['', 'a', 'b', 'a/deep'];

const inFolder = (folder: string, name: string): string => (folder === '' ? name : `${folder}/${name}`);

/** Local files the user works on: conflict copies are only ever deleted (tidied up), never edited. */
async function userFiles(f: SyncFixture): Promise<string[]> {
  return [...(await localFiles(f.root)).keys()].filter((path) => !isConflictCopy(path)).sort();
}

async function freePath(f: SyncFixture, folder: string, stem: string): Promise<string> {
  for (let n = 1; ; n++) {
    const path = inFolder(folder, `${stem}${n === 1 ? '' : `-${n}`}.md`);
    if (!(await f.exists(path))) return path;
  }
}

export const USER_ACTIONS: Readonly<Record<string, UserAction>> = {
  async 'local-create'({ f, rng, texts, next }) {
    const k = next();
    const path = await freePath(f, rng.pick(FOLDERS), `n${k}`);
    await f.write(path, texts.document(`Note ${k}`));
    return `local create ${path}`;
  },

  async 'local-edit'({ f, rng, texts }) {
    const files = await userFiles(f);
    if (files.length === 0) return undefined;
    const path = rng.pick(files);
    const edit = texts.edit(await f.read(path));
    await f.write(path, edit.text);
    return `local edit ${path} (${edit.what})`;
  },

  async 'local-delete'({ f, rng }) {
    const all = [...(await localFiles(f.root)).keys()].sort();
    if (all.length === 0) return undefined;
    const path = rng.pick(all);
    await f.remove(path);
    return `local delete ${path}`;
  },

  async 'local-rename'({ f, rng, next }) {
    const files = await userFiles(f);
    if (files.length === 0) return undefined;
    const from = rng.pick(files);
    const dir = posix.dirname(from);
    const to = await freePath(f, dir === '.' ? '' : dir, `renamed${next()}`);
    await rename(join(f.root, from), join(f.root, to));
    return `local rename ${from} -> ${to}`;
  },

  async 'local-move'({ f, rng }) {
    const files = await userFiles(f);
    if (files.length === 0) return undefined;
    const from = rng.pick(files);
    const folder = rng.pick(FOLDERS);
    const to = await freePath(f, folder, posix.basename(from, '.md'));
    if (to === from) return undefined;
    await mkdir(dirname(join(f.root, to)), { recursive: true });
    await rename(join(f.root, from), join(f.root, to));
    return `local move ${from} -> ${to}`;
  },

  async 'remote-create'({ f, rng, texts, next }) {
    const k = next();
    const folders = f.em.admin.dump().nodes.filter((node) => node.docType === 'FOLDER' && node.workspaceId === f.em.seed.workspaceId);
    const parent = rng.chance(0.5) && folders.length > 0 ? rng.pick(folders) : undefined;
    const title = `Remote ${k}`;
    f.em.admin.createDocument({ name: title, markdown: texts.document(title).replace(/^---\n[\s\S]*?\n---\n/, ''), ...(parent ? { parentNodeId: parent.dentryUuid } : {}) });
    return `remote create "${title}"${parent ? ` in "${parent.title}"` : ''}`;
  },

  async 'remote-edit'({ f, rng, texts }) {
    const docs = f.remoteDocs().filter((doc) => (doc.markdown ?? '') !== '');
    if (docs.length === 0) return undefined;
    const doc = rng.pick(docs);
    const edit = texts.edit(doc.markdown ?? '');
    f.em.admin.editDocument(doc.dentryUuid, edit.text);
    return `remote edit "${doc.title}" (${edit.what})`;
  },

  async 'remote-delete'({ f, rng }) {
    const docs = f.remoteDocs();
    if (docs.length < 3) return undefined;
    const doc = rng.pick(docs);
    f.em.admin.deleteNode(doc.dentryUuid);
    return `remote delete "${doc.title}"`;
  },
};
