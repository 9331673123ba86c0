import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SyncFixture } from '../helpers/sync-fixture.js';
import { localFiles, normaliseBody, remoteReadings } from '../helpers/reliability.js';

/**
 * The chaos test's central invariant: kbsync never destroys a version of a document.
 *
 * What is a version? The body of a document at a moment kbsync could see it: the text of every
 * local Markdown file and of every remote document, taken right before each sync (`noteCurrent`).
 * A version the user overwrote before any sync ran was never kbsync's to keep, so it is not tracked.
 *
 * What does "exists" mean? Some place holds the same body, compared with `normaliseBody` (front
 * matter dropped, line endings, trailing spaces and blank-line runs unified; kbsync keeps front
 * matter locally and never sends it, and the service's Markdown may differ in those details only):
 * - a Markdown file of the folder, conflict copies included;
 * - a backup (`.kbsync/backups/...`: every body kbsync overwrote, on either side);
 * - the trash (`.kbsync/trash/...`: every file kbsync removed);
 * - a remote document (its stored Markdown, or the Markdown kbsync makes of its blocks).
 *
 * Who may destroy one? Only a user. After each user action, versions no longer found anywhere are
 * forgotten (the user overwrote or deleted the only copy); after a sync, a missing version is a bug.
 */
export class VersionBook {
  /** Normalised body → where it was first seen (for the failure message). */
  readonly #mustExist = new Map<string, string>();
  /** Backups and trash are written once and never changed: read each file once. */
  readonly #stateFiles = new Map<string, string>();
  #forgotten = 0;

  get tracked(): number {
    return this.#mustExist.size;
  }

  /** Versions the users themselves destroyed so far (their only copy edited or deleted). */
  get forgotten(): number {
    return this.#forgotten;
  }

  /** Records every body on both sides as a version that must survive the coming sync. */
  async noteCurrent(f: SyncFixture, step: number): Promise<void> {
    for (const [path, text] of await localFiles(f.root)) this.#note(normaliseBody(text), `step ${step}: file ${path}`);
    for (const doc of f.remoteDocs()) {
      const [stored] = remoteReadings(doc);
      this.#note(stored ?? '', `step ${step}: remote "${doc.title}"`);
    }
  }

  /** The versions that exist nowhere now, each with where it was first seen. */
  async missing(f: SyncFixture): Promise<string[]> {
    const present = await this.#present(f);
    return [...this.#mustExist].filter(([body]) => !present.has(body)).map(([body, seen]) => `${seen}:\n${indent(body)}`);
  }

  /** After a user action: whatever the user destroyed is no longer kbsync's to keep. */
  async forgetDestroyed(f: SyncFixture): Promise<void> {
    const present = await this.#present(f);
    for (const body of [...this.#mustExist.keys()]) {
      if (!present.has(body)) {
        this.#mustExist.delete(body);
        this.#forgotten++;
      }
    }
  }

  #note(body: string, seen: string): void {
    // An empty body (a document created, not written yet) holds nothing to lose.
    if (body !== '' && !this.#mustExist.has(body)) this.#mustExist.set(body, seen);
  }

  async #present(f: SyncFixture): Promise<Set<string>> {
    const present = new Set<string>();
    for (const text of (await localFiles(f.root)).values()) present.add(normaliseBody(text));
    for (const doc of f.remoteDocs()) for (const reading of remoteReadings(doc)) present.add(reading);
    for (const dir of ['backups', 'trash']) for (const body of await this.#stateBodies(join(f.root, '.kbsync', dir))) present.add(body);
    return present;
  }

  async #stateBodies(dir: string): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(dir, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const bodies: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const abs = join(entry.parentPath, entry.name);
      let body = this.#stateFiles.get(abs);
      if (body === undefined) {
        body = normaliseBody(await readFile(abs, 'utf8'));
        this.#stateFiles.set(abs, body);
      }
      bodies.push(body);
    }
    return bodies;
  }
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
