import type { KbClient } from '../api/index.js';
import type { Ledger } from '../ledger/index.js';
import type { BudgetNotice, CallBudget } from '../budget/call-budget.js';

/** Ledger meta key of the running total of calls kbsync spent on this folder (`kbsync status` shows it). */
const CALLS_TOTAL_KEY = 'calls.total';

const HOUR_MS = 3_600_000;

/**
 * Counts the daemon's calls from the queue's exact accounting: persists the running total in the
 * ledger, and keeps the last hour of polling spend so a probe-triggered sweep can stay in budget.
 */
export class CallMeter {
  readonly #client: KbClient;
  readonly #ledger: Ledger;
  #persisted: number;
  /** [time, calls] of each polling step in the last hour; bounded by the policy's spacing. */
  #polling: Array<readonly [number, number]> = [];

  constructor(client: KbClient, ledger: Ledger) {
    this.#client = client;
    this.#ledger = ledger;
    this.#persisted = this.total();
  }

  total(): number {
    return this.#client.queue.stats().totals.calls;
  }

  endpointCalls(endpoint: string): number {
    return this.#client.queue.stats().endpoints[endpoint]?.calls ?? 0;
  }

  /**
   * Adds the calls made since the last persist to `calls.total` and to the month's count (`budget`); returns the
   * new total, and what the month's budget came to when those calls took it past a share not said yet.
   */
  persist(budget?: CallBudget): { readonly total: number | undefined; readonly notice?: BudgetNotice } {
    const now = this.total();
    const delta = now - this.#persisted;
    if (delta <= 0 || !this.#ledger.isOpen) return { total: undefined };
    this.#persisted = now;
    const total = this.#ledger.meta.increment(CALLS_TOTAL_KEY, delta);
    const notice = budget?.count(delta);
    return notice ? { total, notice } : { total };
  }

  recordPolling(calls: number, at: number): void {
    if (calls > 0) this.#polling.push([at, calls]);
  }

  /** Calls spent on polling in the hour before `at`. */
  pollingLastHour(at: number): number {
    this.#polling = this.#polling.filter(([time]) => at - time < HOUR_MS);
    return this.#polling.reduce((sum, [, calls]) => sum + calls, 0);
  }
}
