import { readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import type { Lowering } from '../../links/index.js';
import { isAlwaysIgnoredDirName } from '../../local/names.js';
import { parseDocument } from '../../markdown/index.js';
import { lowerBody } from '../../vault/lower.js';
import { aliasesIn, aliasIndex, vaultNames } from '../../vault/names.js';
import type { Observation } from '../observe/observe.js';
import { whyUnsynced } from './unsynced.js';

/** A run's lowering of a vault's bodies, and the note embeds it sent as links (said once by the run). */
type RunLowering = { readonly lower: Lowering; readonly noteEmbeds: () => ReadonlyMap<string, number> };

/** By the run's local observation: one lowering a run. */
const made = new WeakMap<Observation['local'], RunLowering>();

/**
 * The lowering of the run that made `observation` (src/vault), when its folder is a vault: one for the
 * run, so its links, images and previews share one listing of the vault's names and one lowering per body.
 */
export function runLowering(observation: Pick<Observation, 'scan' | 'local'>, options: Parameters<typeof whyUnsynced>[1]): RunLowering | undefined {
  const settings = options.vault;
  if (!settings) return undefined;
  const known = made.get(observation.local);
  if (known) return known;
  const root = observation.scan.root;
  const synced = new Set(observation.local.entries.keys());
  const stateDir = relative(root, options.stateDir).split(sep).join('/');
  const textOf = (path: string): string | undefined => {
    const seen = observation.local.texts.get(path)?.text;
    if (seen !== undefined) return seen;
    try {
      return readFileSync(join(root, path), 'utf8');
    } catch {
      return undefined; // a note that cannot be read now has no aliases to offer
    }
  };
  let aliases: ReadonlyMap<string, string> | undefined;
  const names = vaultNames({
    root,
    settings,
    skip: (folder) => folder === stateDir || isAlwaysIgnoredDirName(posix.basename(folder)),
    aliases: () => (aliases ??= aliasIndex([...synced].map((path) => [path, aliasesOf(textOf(path))] as const))),
  });
  const unsynced = whyUnsynced(observation, options);
  const lowered = new Map<string, { body: string; result: ReturnType<typeof lowerBody> }>();
  const lowering: RunLowering = {
    lower(body, path) {
      const before = lowered.get(path);
      if (before?.body === body) return before.result;
      const result = lowerBody(body, path, { names, synced, unsynced });
      lowered.set(path, { body, result });
      return result;
    },
    noteEmbeds: () => new Map([...lowered].flatMap(([path, { result }]) => (result.noteEmbeds > 0 ? [[path, result.noteEmbeds] as const] : []))),
  };
  made.set(observation.local, lowering);
  return lowering;
}

function aliasesOf(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    return aliasesIn(parseDocument(text).frontMatter.extra);
  } catch {
    return []; // bad front matter is that note's own problem, reported when it is synced
  }
}
