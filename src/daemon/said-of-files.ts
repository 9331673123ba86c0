import type { Ledger } from '../ledger/index.js';
import type { SyncReport } from '../sync/views/report.js';
import { newsOfSentFiles, type SaidOfFiles } from './cycle-log.js';

/**
 * What the daemon said of each file's broken links and unpublished images (cycle-log.ts), kept in the ledger by the
 * file's document row, so that a restart (a crash, a reboot, a service manager's) does not say again what still
 * stands: two-daemon soaks said each file's standing links again at its first send after every restart (issue 44).
 * A cycle's changes wait here until `keep` writes them, in one transaction after the cycle (a failed write is tried
 * again at the next); what is said of a file with no row yet (its create has not gone through) is held here only.
 */
export class LedgerSaidOfFiles implements SaidOfFiles {
  readonly #ledger: Ledger;
  /** Not in the ledger (yet): the path's latest, which the ledger's is not. */
  readonly #held = new Map<string, ReadonlySet<string>>();

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
  }

  get(path: string, from?: string): ReadonlySet<string> {
    const row = this.#rowOf(path, from);
    return this.#held.get(row) ?? this.#ledger.noticesSaid.of(row);
  }

  set(path: string, said: ReadonlySet<string>, from?: string): void {
    // A file sent with the same links broken changes nothing: no write (each is a durable commit).
    if (!sameKeys(this.get(path, from), said)) this.#held.set(this.#rowOf(path, from), said);
  }

  /**
   * The path of the row that keeps what is said of the file at `path`: its own; but a file whose move waits (held,
   * moved from `from`) has no row at its new path, and its row, still at the old one, is the file's all the same (soak
   * 745: what was said by the new path was in memory only, and said again at each restart while the move waited).
   */
  #rowOf(path: string, from: string | undefined): string {
    const { documents } = this.#ledger;
    return from !== undefined && documents.summary(path) === undefined && documents.summary(from) !== undefined ? from : path;
  }

  /** Writes what changed since the last call; throws (and keeps it for the next call) when the ledger cannot be written. */
  keep(): void {
    if (this.#held.size === 0) return;
    const kept = this.#ledger.transaction(() => [...this.#held].filter(([path, said]) => this.#ledger.noticesSaid.record(path, said) || said.size === 0));
    for (const [path] of kept) this.#held.delete(path);
  }
}

const sameKeys = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((key) => b.has(key));

/**
 * A one-shot run's report said the broken links and unpublished images of the files it sent: kept as said, so that a
 * daemon started after it does not say them again, and forgets those the run found fixed (else a link fixed by
 * `kbsync sync` while no daemon ran, and broken again, was no news to the next daemon).
 */
export function keepWhatARunSaid(ledger: Ledger, report: SyncReport): void {
  const said = new LedgerSaidOfFiles(ledger);
  newsOfSentFiles(report, said);
  said.keep();
}
