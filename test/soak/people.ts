import { mkdir, open, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { DumpedNode } from '../../src/emulator/index.js';
import type { Random } from '../chaos/random.js';
import { isConflictCopy } from '../helpers/reliability.js';
import type { CorpusDoc } from '../model/corpus.js';
import type { Edit } from '../model/mutate.js';
import type { Tokens } from '../model/tokens.js';
import type { Machine, World } from '../model/world.js';
import { COLLEAGUE, editFor, type EditLog } from './edits.js';
import { proseVariant } from './pages.js';
import type { Pages } from './rules.js';

/**
 * The people of a soak: a user at each machine, who edits, creates, renames, moves and deletes files while
 * that machine's daemon runs, and a colleague who edits the documents in the web editor. Each action returns
 * a line for the step log, or undefined when it found nothing to act on.
 */
export type Cast = {
  readonly world: World;
  readonly rng: Random;
  readonly tokens: Tokens;
  readonly log: EditLog;
  readonly pages: Pages;
  /** Corpus documents not in the workspace yet: what the users create files from. */
  readonly pool: CorpusDoc[];
  /** The share of documents made prose pages (proseVariant); the rest keep their code, tables and images. */
  readonly proseShare: number;
};

const FOLDERS = ['', 'guides', 'ref'];

/** A corpus document as this soak writes it: a prose page or the document as it is, by the seed. */
export const asWritten = (cast: Pick<Cast, 'rng' | 'proseShare'>, doc: CorpusDoc): CorpusDoc => (cast.rng.chance(cast.proseShare) ? proseVariant(doc) : doc);

async function userFiles(m: Machine): Promise<string[]> {
  return [...(await m.files()).keys()].filter((path) => !isConflictCopy(path)).sort();
}

const exists = (m: Machine, path: string): Promise<boolean> => stat(join(m.root, path)).then(
  () => true,
  () => false,
);

/**
 * Saves an edit as an editor that writes in place does, and only if the file is still the one read: a daemon
 * that replaced it meanwhile (its atomic write renames a new file over the path) would take the edit with the
 * old inode, so it is made again on what the daemon wrote (at most three tries). Undefined: nothing to edit.
 */
async function editInPlace(abs: string, change: (text: string) => Edit | undefined): Promise<{ readonly before: string; readonly edit: Edit; readonly tries: number } | undefined> {
  for (let tries = 1; tries <= 3; tries++) {
    const handle = await open(abs, 'r+').catch(() => undefined);
    if (!handle) return undefined;
    try {
      const before = await handle.readFile('utf8');
      const edit = change(before);
      if (!edit) return undefined;
      const bytes = Buffer.from(edit.text);
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.truncate(bytes.length);
      const [mine, there] = await Promise.all([handle.stat(), stat(abs).catch(() => undefined)]);
      if (there?.ino === mine.ino) return { before, edit, tries };
    } finally {
      await handle.close();
    }
  }
  return undefined;
}

export async function userEdit(cast: Cast, m: Machine): Promise<string | undefined> {
  const files = await userFiles(m);
  if (files.length === 0) return undefined;
  const path = cast.rng.pick(files);
  const saved = await editInPlace(join(m.root, path), (text) => editFor(text, 'user', cast.rng, cast.tokens));
  if (!saved) return undefined;
  cast.log.record(m.name, saved.before, saved.edit.text, saved.edit);
  cast.log.count(m.name, `edit:${saved.edit.what.split(':')[0] ?? ''}`);
  if (saved.tries > 1) cast.log.count(m.name, 'save raced a daemon write');
  return `${m.name} edits ${path}: ${saved.edit.what}${saved.tries > 1 ? ` (saved on try ${saved.tries}: the daemon wrote the file meanwhile)` : ''}`;
}

export async function userCreate(cast: Cast, m: Machine): Promise<string | undefined> {
  const doc = cast.pool.shift();
  if (!doc) return undefined;
  const written = asWritten(cast, doc);
  const path = posix.join(cast.rng.pick(FOLDERS), doc.name);
  await mkdir(dirname(join(m.root, path)), { recursive: true });
  const made = await writeFile(join(m.root, path), written.text, { flag: 'wx' }).then(
    () => true,
    () => false,
  );
  if (!made) return undefined;
  cast.log.count(m.name, 'create');
  return `${m.name} creates ${path} (${written === doc ? 'as it is' : 'a prose page'})`;
}

/** A new name in the same folder, or (`move`) the same name in another folder. */
export async function userRename(cast: Cast, m: Machine, step: number, move: boolean): Promise<string | undefined> {
  const files = await userFiles(m);
  if (files.length === 0) return undefined;
  const from = cast.rng.pick(files);
  const folder = posix.dirname(from) === '.' ? '' : posix.dirname(from);
  const to = move ? posix.join(cast.rng.pick(FOLDERS.filter((f) => f !== folder)), posix.basename(from)) : posix.join(folder, `r${step}-${posix.basename(from)}`);
  if (await exists(m, to)) return undefined;
  await mkdir(dirname(join(m.root, to)), { recursive: true });
  const done = await rename(join(m.root, from), join(m.root, to)).then(
    () => true,
    () => false,
  );
  if (!done) return undefined;
  cast.log.count(m.name, move ? 'move' : 'rename');
  return `${m.name} ${move ? 'moves' : 'renames'} ${from} -> ${to}`;
}

export async function userDelete(cast: Cast, m: Machine): Promise<string | undefined> {
  const files = await userFiles(m);
  if (files.length < 6) return undefined;
  const path = cast.rng.pick(files);
  const text = await m.read(path).catch(() => undefined);
  if (text === undefined) return undefined;
  await m.remove(path).catch(() => undefined);
  // The user deleted what they saw: its words are theirs to drop.
  cast.log.record(m.name, text, '');
  cast.log.count(m.name, 'delete');
  return `${m.name} deletes ${path}`;
}

/** Documents in an order that does not depend on the order the service made them in. */
const byTitle = (docs: readonly DumpedNode[]): DumpedNode[] => [...docs].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));

/**
 * The colleague edits a document in the web editor, a minute after anything kbsync did (so never in the minute
 * of kbsync's last reading of it: the one window the service's minute-precision times leave, README "What is
 * safe"). The admin edit and the clock's step happen at once, between two of the service's answers.
 */
export function colleagueEdit(cast: Cast): string | undefined {
  const { world } = cast;
  const docs = byTitle(world.docs()).filter((doc) => (doc.markdown ?? '') !== '');
  if (docs.length === 0) return undefined;
  const before = cast.rng.pick(docs);
  const edit = editFor(before.markdown ?? '', 'colleague', cast.rng, cast.tokens);
  if (!edit) return undefined;
  world.tick(1);
  world.em.admin.editDocument(before.dentryUuid, edit.text);
  const after = world.docs().find((doc) => doc.dentryUuid === before.dentryUuid) ?? before;
  cast.pages.colleagueEdited(
    before,
    after,
    edit.snippets.filter((s) => s.kind === 'paragraph').map((s) => s.text),
  );
  cast.log.record(COLLEAGUE, before.markdown ?? '', edit.text, edit);
  cast.log.count(COLLEAGUE, `edit:${edit.what.split(':')[0] ?? ''}`);
  return `colleague edits "${before.title}": ${edit.what}`;
}
