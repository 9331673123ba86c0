import type { JsonValue, Ledger } from '../ledger/index.js';

/**
 * The month's calls against the plan's quota (config `service.callsPerMonth`; 0: no budget). Small
 * organisations' plans allow a few thousand calls a month, which a daemon polling at its own pace, or one
 * first publish of a large folder, would spend before anyone noticed. So every run counts its calls in the
 * ledger (this folder, this machine: a CI job, whose ledger goes with its checkout, counts its own run only),
 * the daemon's remote polling lives on a share of what is left, spread over the hours left in the month, and
 * kbsync says when half, four fifths, nine tenths and all of it is spent, once each a month. A spent budget
 * makes work wait, never lose anything: the daemon sends and polls nothing more until the month turns (the
 * files keep every edit), and a one-shot run is refused before its first call unless told to go over it
 * (`kbsync sync --over-budget`).
 * Months are the calendar's, in UTC.
 */

/** Ledger meta key of the month's count: `{ month: 'YYYY-MM', calls, said }` (`said`: the largest share said). */
const MONTH_KEY = 'calls.month';

/** Shares of the budget at which kbsync says how much is left, once each a month. */
const THRESHOLDS = [0.5, 0.8, 0.9, 1] as const;

/** What remote polling keeps off: the last tenth of the budget is left for the edits people save and the runs they start. */
export const RESERVE_SHARE = 0.1;

type MonthCount = { readonly month: string; readonly calls: number; readonly said: number };

/** The month a moment is in (UTC), as the ledger keeps it. */
const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The moment the month of `at` ends (the first of the next month, 00:00 UTC). */
export const monthEnd = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

export type BudgetNotice = {
  /** The share of the budget just reached (0.5, 0.8, 0.9 or 1). */
  readonly share: number;
  /** Spent: the daemon stops, a one-shot run is refused (see above). */
  readonly spent: boolean;
  readonly message: string;
};

export class CallBudget {
  readonly #ledger: Ledger;
  readonly #perMonth: number;
  readonly #now: () => Date;

  constructor(ledger: Ledger, perMonth: number, now: () => Date = () => new Date()) {
    this.#ledger = ledger;
    this.#perMonth = perMonth;
    this.#now = now;
  }

  /** Whether the user stated a budget at all. */
  get stated(): boolean {
    return this.#perMonth > 0;
  }

  /** Calls counted this month. */
  get used(): number {
    return this.#count().calls;
  }

  /** The budget is stated and this month's calls have reached it. */
  get spent(): boolean {
    return this.stated && this.used >= this.#perMonth;
  }

  /**
   * Adds `calls` to the month's count (a new month starts from them). Returns what to say when they took the
   * month past a share of the budget not said yet this month; said once, whichever run or cycle crossed it.
   */
  count(calls: number): BudgetNotice | undefined {
    if (!(calls > 0)) return undefined;
    const before = this.#count();
    const total = before.calls + calls;
    const reached = this.stated ? THRESHOLDS.filter((share) => total >= share * this.#perMonth).at(-1) : undefined;
    const fresh = reached !== undefined && reached > before.said;
    this.#write({ month: before.month, calls: total, said: fresh ? reached : before.said });
    return fresh ? this.#notice(reached, total) : undefined;
  }

  /**
   * Calls an hour the daemon's polling may spend: the configured `watch.pollBudgetPerHour`, or less when the
   * month's budget would not last at that pace: what is left beyond the reserve, spread over the hours left.
   */
  pollingPerHour(configured: number): number {
    if (!this.stated) return configured;
    const left = this.#perMonth * (1 - RESERVE_SHARE) - this.used;
    const hours = Math.max(1, (monthEnd(this.#now()).getTime() - this.#now().getTime()) / 3_600_000);
    return Math.max(0, Math.min(configured, Math.floor(left / hours)));
  }

  /** When a spent budget is whole again: the month's end. */
  renewsAt(): Date {
    return monthEnd(this.#now());
  }

  /** The refusal a one-shot run gets when the month's budget is spent before it starts. */
  spentMessage(): string {
    return (
      `This month's call budget is spent: ${this.used.toLocaleString('en-US')} calls from this folder since the 1st, against service.callsPerMonth = ${this.#perMonth.toLocaleString('en-US')}. ` +
      `Nothing was sent and no file changed; the budget renews on ${this.renewsAt().toISOString().slice(0, 10)}.`
    );
  }

  #notice(share: number, used: number): BudgetNotice {
    const spent = share >= 1;
    const what = `${used.toLocaleString('en-US')} of the ${this.#perMonth.toLocaleString('en-US')} calls this month's budget allows (service.callsPerMonth) are spent`;
    const then = spent
      ? `so kbsync sends nothing more until it renews on ${this.renewsAt().toISOString().slice(0, 10)}: kbsync watch keeps your edits in the files and sends them then, and kbsync sync asks for --over-budget`
      : `kbsync watch now polls only as much as lets the rest last the month, keeping the last tenth for your edits and runs`;
    return { share, spent, message: `${Math.round(share * 100)}% of the month's call budget: ${what}; ${then}` };
  }

  #count(): MonthCount {
    const month = monthOf(this.#now());
    const stored = this.#ledger.meta.get(MONTH_KEY);
    const value = typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? (stored as Record<string, JsonValue>) : {};
    if (value['month'] !== month) return { month, calls: 0, said: 0 };
    const number = (v: JsonValue | undefined): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
    return { month, calls: number(value['calls']), said: number(value['said']) };
  }

  #write(count: MonthCount): void {
    this.#ledger.meta.set(MONTH_KEY, { month: count.month, calls: count.calls, said: count.said });
  }
}
