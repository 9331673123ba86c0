import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ledger } from '../ledger/index.js';
import type { VaultSettings } from '../vault/settings.js';

/*
 * The dialect a folder is read in (config `markdown.dialect`) decides what a push sends for the same bytes:
 * read as CommonMark, `[[Note]]` went to the knowledge base as words; read as a vault, it goes as a link. A
 * folder synced before it was read as a vault (kbsync before vaults, `commonmark`, no settings folder yet)
 * has documents holding what the old dialect sent, and its files have not changed, so no run would send
 * them. The ledger remembers the dialect its documents were sent in; when it is not the one the files are
 * read in now, the recorded files that hold wiki syntax are sent again, once.
 */

const KEY = 'markdown.dialect';

type Dialect = 'gfm' | 'wiki';
const dialectOf = (vault: VaultSettings | undefined): Dialect => (vault ? 'wiki' : 'gfm');

/** `[[`, `![[` or a quote's `[!`: a file the dialects read differently (a false alarm costs one send, once). */
const READ_DIFFERENTLY = /\[\[|^[ \t]*>[ \t>]*\[!/m;

/** The recorded files whose documents hold what another dialect sent: a push sends them again. */
export function dialectOwed(ledger: Pick<Ledger, 'meta'> | undefined, vault: VaultSettings | undefined, root: string, recorded: Iterable<string>): ReadonlySet<string> {
  const sent = ledger?.meta.get(KEY) ?? 'gfm';
  if (!ledger || sent === dialectOf(vault)) return NONE;
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
 * After a run that sent (a push or two-way run, not stopped): the documents now hold what this dialect sends,
 * unless a file owed to them failed (the next run sends it again).
 */
export function rememberDialect(ledger: Pick<Ledger, 'meta'>, vault: VaultSettings | undefined, owed: ReadonlySet<string>, failed: ReadonlySet<string>): void {
  const dialect = dialectOf(vault);
  if ((ledger.meta.get(KEY) ?? 'gfm') === dialect || [...owed].some((path) => failed.has(path))) return;
  ledger.meta.set(KEY, dialect);
}

const NONE: ReadonlySet<string> = new Set();
