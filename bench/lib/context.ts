import { performance } from 'node:perf_hooks';
import type { Row } from './row.js';
import { createSettledSite, createSite, type SettleReport, type Site } from './site.js';
import type { Note } from './table.js';
import type { TreeShape } from './tree.js';

/** 10,000 short notes: 10 areas × 10 topics × 100 files (211 listing pages of 50). */
export const TEN_K: TreeShape = { top: 10, sub: 10, perFolder: 100, notes: 'short' };
/** 1,000 realistic ~3 KB notes (lists, a table, code, links): 4 areas × 5 topics × 50 files (25 listing pages). */
export const ONE_K: TreeShape = { top: 4, sub: 5, perFolder: 50, notes: 'realistic' };

/**
 * What sections share: the trees (built once, reused across rows), the notes under the table, and
 * progress lines on stderr.
 */
export class BenchContext {
  readonly notes: Note[] = [];
  readonly #started = performance.now();
  #tenK: Promise<{ site: Site; setup: SettleReport }> | undefined;
  #oneK: Promise<Site> | undefined;
  /** A 1k site whose first push and next run a section has measured: settled. */
  #settledOneK: Site | undefined;

  note(id: string, text: string): void {
    this.notes.push({ id, text });
  }

  log(message: string): void {
    const at = ((performance.now() - this.#started) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`[bench ${at}s] ${message}\n`);
  }

  /** The 10,000-note tree, synced and settled (nothing pending), on the real disk. */
  async tenK(): Promise<Site> {
    return (await this.#tenKBuilt()).site;
  }

  /** How the 10,000-note tree was built: its first push and the run after it (times, read-backs, peak RSS). */
  async tenKSetup(): Promise<SettleReport> {
    return (await this.#tenKBuilt()).setup;
  }

  #tenKBuilt(): Promise<{ site: Site; setup: SettleReport }> {
    this.#tenK ??= this.#settled('10k', TEN_K);
    return this.#tenK;
  }

  /** A fresh 1,000-note tree, never synced (for the measured first push). */
  async freshOneK(): Promise<Site> {
    const site = await createSite('1k', ONE_K);
    return site;
  }

  /** Hands over a 1k site after its measured first push and the run after it, so the 1k daemon rows reuse it. */
  keepSettledOneK(site: Site): void {
    this.#settledOneK = site;
  }

  /** The 1,000-note tree, synced and settled: the one a section pushed, else built fast. */
  oneK(): Promise<Site> {
    this.#oneK ??= this.#settledOneK ? Promise.resolve(this.#settledOneK) : this.#settled('1k', ONE_K).then(({ site }) => site);
    return this.#oneK;
  }

  async #settled(name: string, shape: TreeShape): Promise<{ site: Site; setup: SettleReport }> {
    this.log(`building the ${name} tree, synced and settled (emulator limit off)…`);
    const built = await createSettledSite(name, shape);
    const { setup } = built;
    this.log(`${name} tree ready: push ${setup.pushS.toFixed(1)} s, settle ${setup.settleS.toFixed(1)} s (${setup.checks} read-backs), copy + re-stat ${setup.moveS.toFixed(1)} s`);
    return built;
  }
}

/** A group of rows measured together on shared state; `--only N` runs the sections holding row N. */
export type Section = {
  readonly name: string;
  readonly rows: readonly string[];
  readonly timeoutMs: number;
  run(ctx: BenchContext): Promise<Row[]>;
};

