import picomatch from 'picomatch';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { DeferDeletes } from '../sync/decide/types.js';
import type { ActionResult } from '../sync/run/executor.js';
import { DeleteDelays, type Waiting } from './delete-delays.js';
import { branchOf, GitBranch } from './git-head.js';
import { backLine, checkoutLine, deleteLine, resumedLine } from './wait-words.js';
import type { WaitRecord } from './activity.js';

type WatchSettings = Config['watch'];

/** What one cycle may do: publish (two-way) or only take in (pull, on a branch watch.publishBranches does not name), and remove what is due. */
type CycleLeave = { readonly mode: 'two-way' | 'pull'; readonly deferDeletes?: DeferDeletes };

/** Does the daemon publish from HEAD as it is (watch.publishBranches)? Outside a repository, or with no list, always. */
export function publishesFrom(patterns: readonly string[] | null, head: string | undefined): boolean {
  if (patterns === null || head === undefined) return true;
  const branch = branchOf(head);
  return branch !== undefined && picomatch.isMatch(branch, [...patterns]);
}

/**
 * The daemon's side of a git repository around its folder and of the removals that wait: before each cycle, HEAD
 * is read (a switch makes what the cycle finds removed or moved the checkout's) and the cycle is told what it may
 * publish and remove; after it, what waits now is said once, with when it goes and how to keep it or send it now.
 */
export class RemovalWaits {
  readonly #logger: Logger;
  readonly #branch: GitBranch;
  readonly #delays: DeleteDelays;
  #settings: WatchSettings;
  /** The switch seen before the coming cycle, said once a cycle has gone through. */
  #switched: { readonly from: string; readonly to: string } | undefined;
  /** Whether the branch was said to be one the daemon publishes from (undefined: nothing said yet). */
  #saidPublishing: boolean | undefined;

  /** `resumed`: what the last daemon here kept waiting (the ledger's record), which waits again from `now`. */
  constructor(root: string, settings: WatchSettings, logger: Logger, resumed: readonly WaitRecord[], now: number) {
    this.#logger = logger;
    this.#branch = new GitBranch(root);
    this.#settings = settings;
    this.#delays = new DeleteDelays(settings);
    this.#delays.resume(resumed, now);
    if (resumed.length > 0) logger.info({ files: resumed.map((wait) => wait.path).slice(0, 100) }, resumedLine(this.#delays.list(), now));
    if (settings.publishBranches !== null && !this.#branch.inRepository) {
      logger.warn({ code: 'CONFIG_INVALID' }, `watch.publishBranches names git branches, but ${root} is in no git repository: it has no effect here, and every change is published`);
    }
  }

  update(settings: WatchSettings): void {
    this.#settings = settings;
    this.#delays.update(settings);
  }

  /** Removals that wait now, each with when it goes (for `kbsync status` and `kbsync resolve`). */
  list(): Waiting[] {
    return this.#delays.list();
  }

  /** When the next waiting removal comes due (ms since epoch), or undefined. */
  nextDue(): number | undefined {
    return this.#delays.nextDue();
  }

  /** Before a cycle: HEAD read, and what the cycle may do. */
  before(now: number): CycleLeave {
    const switched = this.#branch.switched();
    if (switched) {
      // Two switches before one cycle went through are one, from where the first began.
      this.#switched = { from: this.#switched?.from ?? switched.from, to: switched.to };
      this.#delays.checkout(now);
    }
    if (!publishesFrom(this.#settings.publishBranches, this.#branch.current)) return { mode: 'pull' };
    const deferDeletes = this.#delays.deferral(now);
    return { mode: 'two-way', ...(deferDeletes ? { deferDeletes } : {}) };
  }

  /** After a cycle that went through (`leave`: what it was told it may do): what waits now, said once. */
  after(leave: CycleLeave, results: readonly ActionResult[], now: number): void {
    const switched = this.#switched;
    this.#switched = undefined;
    const head = switched ? `git checkout: the branch is now ${switched.to} (was ${switched.from})` : undefined;
    const publishing = leave.mode === 'two-way';
    const policyChanged = this.#saidPublishing !== publishing && (this.#saidPublishing !== undefined || !publishing);
    this.#saidPublishing = publishing;
    if (!publishing) {
      // Nothing was removed, nor could be: the waits stand as they were until a branch it publishes from.
      const branch = this.#branch.current ?? '';
      if (policyChanged || head) this.#logger.info({ ...switched, branch }, `${head ?? `the branch is ${branch}`}, which watch.publishBranches does not name: nothing is published from it (no new document, edit, move or delete) until HEAD is on a branch it names; the knowledge base's changes still come in`);
      return;
    }
    const news = this.#delays.observe(results, now);
    const settings = this.#settings;
    for (const wait of news.deleted) this.#logger.info({ path: wait.path, code: 'DELETE_WAITING', deleteAt: new Date(wait.dueAt).toISOString() }, deleteLine(wait, settings, now));
    if (news.checkout) {
      const { brought, extended, dueAt, burst } = news.checkout;
      const event = burst ? `${brought.length} files are gone at once (a checkout, or a folder moved away?)` : (head ?? 'git checkout');
      const again = policyChanged ? `${event}, a branch watch.publishBranches names: its changes are published again` : event;
      this.#logger.info({ ...switched, files: [...brought, ...extended].map((wait) => wait.path).slice(0, 100), deleteAt: new Date(dueAt).toISOString() }, checkoutLine(again, news.checkout, settings, now));
    } else if (head) this.#logger.info({ ...switched }, head);
    for (const wait of news.back) this.#logger.info({ path: wait.path }, backLine(wait));
  }
}
