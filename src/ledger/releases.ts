import type { Statements } from '../sqlite-statements.js';

/**
 * A person's answer to a hold on one file: `mine` publishes the file as it is (an emptied file, an overwrite
 * held over a hidden edit or a flat base, a delete that waits), `theirs` takes the knowledge base's version.
 * It stands for the file and document it was given for: `localHash` is the file's hash ('' when it is gone),
 * `remoteTime` the document's modifiedTime ('' when unknown).
 */
export type Release = {
  readonly path: string;
  readonly side: 'mine' | 'theirs';
  readonly localHash: string;
  readonly remoteTime: string;
  /** ms since epoch. */
  readonly requestedAt: number;
};

const SELECT = 'SELECT path, side, local_hash AS localHash, remote_time AS remoteTime, requested_at AS requestedAt FROM releases';

/** Releases waiting for the next run. Written by `kbsync resolve` (also beside a running daemon); deleted by the run that acts on them. */
export class ReleasesRepo {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  /** A new answer for a file replaces the one before it. */
  put(release: Release): void {
    this.#sql
      .get('INSERT OR REPLACE INTO releases (path, side, local_hash, remote_time, requested_at) VALUES (?, ?, ?, ?, ?)')
      .run(release.path, release.side, release.localHash, release.remoteTime, release.requestedAt);
  }

  all(): Release[] {
    return this.#sql.get(`${SELECT} ORDER BY path`).all() as Release[];
  }

  count(): number {
    return (this.#sql.get('SELECT count(*) AS n FROM releases').get() as { n: number }).n;
  }

  /** Removes the release of `path` if it is still `requestedAt`'s (a newer answer given meanwhile stays). */
  done(path: string, requestedAt: number): void {
    this.#sql.get('DELETE FROM releases WHERE path = ? AND requested_at = ?').run(path, requestedAt);
  }
}
