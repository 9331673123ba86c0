import { readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/*
 * A note vault's own settings, read from its settings folder (`.obsidian/`) the way the editor reads them.
 * kbsync needs three: where attachments go (an embed's file is looked for there first), how new links are
 * written (which reading of an ambiguous `[[folder/Note]]` comes first), and the templates folder (templates
 * are the editor's, not notes to publish). The settings and trash folders start with a dot, so they are
 * never synced anyway.
 */

/** The settings folder that makes a folder a vault. */
const VAULT_SETTINGS_FOLDER = '.obsidian';

export type LinkFormat = 'shortest' | 'relative' | 'absolute';

export type VaultSettings = {
  /** Where the editor puts attachments: `''` the vault's top, `./` beside the note, `./sub` under it, else a folder from the top. */
  readonly attachmentFolder: string;
  readonly linkFormat: LinkFormat;
  /** The templates folder, relative to the vault's top (POSIX); undefined when the vault has none. */
  readonly templatesFolder: string | undefined;
};

type Dialect = 'auto' | 'commonmark' | 'obsidian';

/**
 * The vault `root` is, by config `markdown.dialect`: `obsidian` always, `commonmark` never, `auto` when the
 * folder has a vault settings folder. Undefined: plain CommonMark + GFM. A settings file that cannot be read
 * leaves its settings at the editor's defaults and says so in `warnings` (the vault still syncs).
 */
export function vaultOf(root: string, dialect: Dialect, warnings: string[]): VaultSettings | undefined {
  if (dialect === 'commonmark') return undefined;
  const settings = join(root, VAULT_SETTINGS_FOLDER);
  if (dialect === 'auto' && !isFolder(settings)) return undefined;
  const app = readSettings(join(settings, 'app.json'), warnings);
  const templates = readSettings(join(settings, 'templates.json'), warnings);
  const attachmentFolder = typeof app['attachmentFolderPath'] === 'string' ? app['attachmentFolderPath'].replace(/^\/+|\/+$/g, '') : '';
  const format = app['newLinkFormat'];
  const folder = typeof templates['folder'] === 'string' ? posix.normalize(templates['folder'].replace(/^\/+|\/+$/g, '')) : '';
  return {
    attachmentFolder: attachmentFolder === '.' ? './' : attachmentFolder,
    linkFormat: format === 'relative' || format === 'absolute' ? format : 'shortest',
    templatesFolder: folder === '' || folder === '.' || folder.startsWith('..') ? undefined : folder,
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** One settings file's JSON object; `{}` when it is absent, and when it is unreadable or not an object (said in `warnings`). */
function readSettings(file: string, warnings: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`cannot read the vault setting file ${file} (${(error as Error).message}); its settings are taken as the editor's defaults`);
    return {};
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // said below
  }
  warnings.push(`the vault setting file ${file} is not a JSON object; its settings are taken as the editor's defaults`);
  return {};
}
