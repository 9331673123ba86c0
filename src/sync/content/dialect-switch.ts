import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ledger } from '../../ledger/index.js';
import type { VaultSettings } from '../../vault/settings.js';
import type { ActionResult } from '../run/executor.js';

/*
 * The dialect a folder is read in (config `markdown.dialect`) decides what a push sends for the same bytes:
 * read as CommonMark, `[[Note]]` went to the knowledge base as words; read as a vault, it goes as a link. A
 * folder synced before it was read as a vault (kbsync before vaults, `commonmark`, no settings folder yet)
 * has documents holding what the old dialect sent, and its files have not changed, so no run would send
 * them. The ledger remembers the dialect its documents were sent in; when it is not the one the files are
 * read in now, the recorded files that hold wiki syntax are sent again, once.
 */

const KEY = 'markdown.dialect';
/** The recorded files owed a send in the dialect KEY names that no run has sent yet (a hold, a conflict, a failure). */
const LEFT_KEY = 'markdown.dialectOwed';

type Dialect = 'gfm' | 'wiki';
const dialectOf = (vault: VaultSettings | undefined): Dialect => (vault ? 'wiki' : 'gfm');

/** `[[`, `![[` or a quote's `[!`: a file the dialects read differently (a false alarm costs one send, once). */
const READ_DIFFERENTLY = /\[\[|^[ \t]*>[ \t>]*\[!/m;

/**
 * The recorded files whose documents hold what another dialect sent: a push sends them again. Those a
 * run owed and did not send stay owed (LEFT_KEY) until one does, and no other file is sent again for them.
 */
export function dialectOwed(ledger: Pick<Ledger, 'meta'> | undefined, vault: VaultSettings | undefined, root: string, recorded: Iterable<string>): ReadonlySet<string> {
  if (!ledger) return NONE;
  if ((ledger.meta.get(KEY) ?? 'gfm') === dialectOf(vault)) {
    const left = ledger.meta.get(LEFT_KEY);
    if (!Array.isArray(left)) return NONE;
    const still = new Set(recorded);
    return new Set(left.filter((path): path is string => typeof path === 'string' && still.has(path)));
  }
  const owed = new Set<string>();
  for (const path of recorded) {
    let text: string;
    try {
      text = readFileSync(join(root, path), 'utf8');
    } catch {
      continue; // gone or unreadable: its own decision says so
    }
    if (READ_DIFFERENTLY.test(text)) owed.add(path);
  }
  return owed;
}

/**
 * After a run that could send (a push or two-way run, not stopped): the documents now hold what this dialect
 * sends, but for the owed files this run did not push or merge, which stay owed. The meta is written only
 * when it changes (a write drops the settled-tree fingerprint).
 */
export function rememberDialect(ledger: Pick<Ledger, 'meta'>, vault: VaultSettings | undefined, owed: ReadonlySet<string>, results: readonly ActionResult[]): void {
  const dialect = dialectOf(vault);
  if ((ledger.meta.get(KEY) ?? 'gfm') !== dialect) ledger.meta.set(KEY, dialect);
  const sent = new Set(results.flatMap((result) => (result.ok && (result.result === 'pushed' || result.result === 'merged') ? [result.path] : [])));
  const left = [...owed].filter((path) => !sent.has(path)).sort();
  const before = ledger.meta.get(LEFT_KEY);
  if (left.length > 0 && JSON.stringify(before) !== JSON.stringify(left)) ledger.meta.set(LEFT_KEY, left);
  else if (left.length === 0 && before !== undefined) ledger.meta.delete(LEFT_KEY);
}

const NONE: ReadonlySet<string> = new Set();
