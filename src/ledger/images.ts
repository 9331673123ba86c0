import type { ImageUrlCache } from '../images/types.js';
import type { Statements } from '../sqlite-statements.js';

/**
 * Image URLs by content (`sha256:…` of a file, `diagram:…` of a diagram's source): an image is uploaded once,
 * ever. `published` says whether the knowledge base's shared state has the entry too, so other machines and
 * CI runs reuse it.
 */
export class ImagesRepo implements ImageUrlCache {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  get(key: string): string | undefined {
    const row = this.#sql.get('SELECT url FROM image_urls WHERE key = ?').get(key) as { url: string } | undefined;
    return row?.url;
  }

  /** An upload of this machine's: to be published to the shared state. */
  put(key: string, url: string): void {
    this.#sql.get('INSERT INTO image_urls (key, url, published) VALUES (?, ?, 0) ON CONFLICT (key) DO UPDATE SET url = excluded.url, published = 0').run(key, url);
  }

  /** Entries read from the shared state: known there already. */
  learn(entries: Iterable<readonly [string, string]>): void {
    const insert = this.#sql.get('INSERT INTO image_urls (key, url, published) VALUES (?, ?, 1) ON CONFLICT (key) DO NOTHING');
    for (const [key, url] of entries) insert.run(key, url);
  }

  all(): { readonly key: string; readonly url: string }[] {
    return this.#sql.get('SELECT key, url FROM image_urls ORDER BY key').all() as { key: string; url: string }[];
  }

  unpublished(): { readonly key: string; readonly url: string }[] {
    return this.#sql.get('SELECT key, url FROM image_urls WHERE published = 0 ORDER BY key').all() as { key: string; url: string }[];
  }

  markPublished(keys: readonly string[]): void {
    const mark = this.#sql.get('UPDATE image_urls SET published = 1 WHERE key = ?');
    for (const key of keys) mark.run(key);
  }

  count(): number {
    return (this.#sql.get('SELECT count(*) AS n FROM image_urls').get() as { n: number }).n;
  }
}
