import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { VaultSettings } from './settings.js';

/*
 * How the editor finds the file a wiki link names. Links are written by name, not by path: `[[Note]]` is
 * the note called Note wherever it is, `![[diagram.png]]` the attachment wherever it is. A name the vault
 * holds twice is told apart by a path (`[[guides/Setup]]`), read from the linking note's folder or from the
 * vault's top; an ambiguous one goes to the file nearest the linking note. Case does not matter, and a note's
 * `.md` may be left out. A name no file has may be one of a note's `aliases`.
 */

export type VaultNames = {
  /** The file (relative to the vault's top, POSIX) a wiki target names when written in `from`; undefined when none. */
  resolve(target: string, from: string): string | undefined;
  /** Is there a file at exactly this path (case and all)? */
  exists(path: string): boolean;
};

type VaultNamesInput = {
  readonly root: string;
  readonly settings: VaultSettings;
  /** Folder names never looked into (kbsync's state folder): the editor's own folders start with a dot and are skipped anyway. */
  readonly skip: (folder: string) => boolean;
  /** The notes' aliases (front matter `aliases`), asked for only when a name matches no file. */
  readonly aliases: () => ReadonlyMap<string, string>;
};

/** Every file under the vault's top, relative POSIX, no dot-named file or folder (the editor hides them too). */
function listFiles(root: string, skip: (folder: string) => boolean): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true });
    } catch {
      return; // a folder that cannot be read holds nothing a link can reach
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skip(path)) walk(path);
      } else if (entry.isFile() || entry.isSymbolicLink()) files.push(path);
    }
  };
  walk('');
  return files;
}

const key = (path: string): string => path.normalize('NFC').toLowerCase();
const folderOf = (path: string): string => (posix.dirname(path) === '.' ? '' : posix.dirname(path));

/** The vault's names, listed on the first question (a run that sends no wiki link lists nothing). */
export function vaultNames(input: VaultNamesInput): VaultNames {
  let byPath: Map<string, string> | undefined;
  let byName: Map<string, string[]> | undefined;
  const index = (): { byPath: Map<string, string>; byName: Map<string, string[]> } => {
    if (!byPath || !byName) {
      byPath = new Map();
      byName = new Map();
      for (const file of listFiles(input.root, input.skip)) {
        byPath.set(key(file), file);
        const name = key(posix.basename(file));
        byName.set(name, [...(byName.get(name) ?? []), file]);
      }
    }
    return { byPath, byName };
  };
  /** A target as written names a note (`.md` left out) before a file of that exact name. */
  const spellings = (target: string): string[] => (/\.md$/i.test(target) ? [target] : [`${target}.md`, target]);
  const nearest = (found: readonly string[], from: string): string => {
    const here = folderOf(from);
    const attachments = attachmentFolderFor(input.settings, from);
    const rank = (file: string): number => (folderOf(file) === here ? 0 : folderOf(file) === attachments ? 1 : 2);
    return [...found].sort((a, b) => rank(a) - rank(b) || a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))[0] as string;
  };
  return {
    exists: (path) => index().byPath.get(key(path)) === path,
    resolve(target, from) {
      const written = target.replace(/\\/g, '/').replace(/^\/+/, '');
      if (written === '') return undefined;
      const { byPath: paths, byName: names } = index();
      const relative = posix.normalize(posix.join(folderOf(from), written));
      const explicit = /^\.\.?\//.test(written);
      const places = explicit ? [relative] : input.settings.linkFormat === 'relative' ? [relative, written] : [written, relative];
      for (const place of places) {
        for (const spelling of spellings(place)) {
          const found = paths.get(key(spelling));
          if (found !== undefined) return found;
        }
      }
      if (explicit) return undefined;
      // By name anywhere: a file whose path ends with what is written.
      for (const spelling of spellings(written)) {
        const wanted = key(spelling);
        const found = (names.get(key(posix.basename(spelling))) ?? []).filter((file) => key(file) === wanted || key(file).endsWith(`/${wanted}`));
        if (found.length > 0) return nearest(found, from);
      }
      return /\.[^./]+$/.test(written) && !/\.md$/i.test(written) ? undefined : input.aliases().get(key(written));
    },
  };
}

/** The folder the editor puts a note's attachments in (relative to the vault's top). */
function attachmentFolderFor(settings: VaultSettings, from: string): string {
  const folder = settings.attachmentFolder;
  if (folder === './' || folder.startsWith('./')) return posix.normalize(posix.join(folderOf(from), folder)).replace(/^\.$/, '');
  return folder;
}

/** A note's aliases as front matter gives them: a list, or one name. */
export function aliasesIn(frontMatter: Readonly<Record<string, unknown>>): string[] {
  const value = frontMatter['aliases'] ?? frontMatter['alias'];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((alias): alias is string => typeof alias === 'string' && alias.trim() !== '').map((alias) => alias.trim());
}

/** The alias index: each alias (case folded) → the note that has it; an alias two notes share goes to the first by path. */
export function aliasIndex(notes: Iterable<readonly [path: string, aliases: readonly string[]]>): Map<string, string> {
  const index = new Map<string, string>();
  for (const [path, aliases] of [...notes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) for (const alias of aliases) if (!index.has(key(alias))) index.set(key(alias), path);
  return index;
}
