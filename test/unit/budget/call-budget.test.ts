import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallBudget, monthEnd, RESERVE_SHARE } from '../../../src/budget/call-budget.js';
import { tempLedger } from '../ledger/helpers.js';

/** A clock the test moves. */
function clock(iso: string): { now: () => Date; set(iso: string): void } {
  let at = new Date(iso);
  return { now: () => at, set: (next) => (at = new Date(next)) };
}

describe('the monthly call budget', () => {
  test('counts a month of calls in the ledger, says each share once (whichever run crossed it), and is spent at the budget', (t) => {
    const ledger = tempLedger(t);
    const time = clock('2026-11-10T12:00:00Z');
    const budget = new CallBudget(ledger, 1000, time.now);
    assert.equal(budget.count(400), undefined, 'under half: nothing to say');
    assert.equal(budget.count(100)?.share, 0.5, 'half reached');
    assert.equal(budget.count(50), undefined, 'said once');
    // Another run (another CallBudget on the same ledger) crossing two shares at once says the larger.
    const notice = new CallBudget(ledger, 1000, time.now).count(360);
    assert.equal(notice?.share, 0.9);
    assert.match(notice?.message ?? '', /^90% of the month's call budget: 910 of the 1,000 calls/);
    assert.equal(budget.spent, false);
    const spent = budget.count(90);
    assert.equal(spent?.share, 1);
    assert.equal(spent?.spent, true);
    assert.match(spent?.message ?? '', /renews on 2026-12-01/);
    assert.equal(budget.spent, true);
    assert.match(budget.spentMessage(), /1,000 calls from this folder since the 1st, against service.callsPerMonth = 1,000\. Nothing was sent and no file changed; the budget renews on 2026-12-01\./);
    // A new month starts from nothing, and says its shares again.
    time.set('2026-12-01T00:00:01Z');
    assert.equal(budget.used, 0);
    assert.equal(budget.spent, false);
    assert.equal(budget.count(600)?.share, 0.5);
    assert.equal(budget.used, 600);
  });

  test('without a budget the month is still counted, nothing is said and polling keeps its own pace', (t) => {
    const ledger = tempLedger(t);
    const budget = new CallBudget(ledger, 0, () => new Date('2026-11-10T12:00:00Z'));
    assert.equal(budget.count(1_000_000), undefined);
    assert.equal(budget.used, 1_000_000);
    assert.equal(budget.spent, false);
    assert.equal(budget.pollingPerHour(600), 600);
  });

  test("polling lives on what is left beyond the reserve, spread over the month's hours left, never more than configured", (t) => {
    const ledger = tempLedger(t);
    const time = clock('2026-11-01T00:00:00Z');
    const budget = new CallBudget(ledger, 5000, time.now);
    const hours = (monthEnd(time.now()).getTime() - time.now().getTime()) / 3_600_000;
    assert.equal(hours, 720);
    // 4,500 calls (the budget less its tenth) over 720 hours: 6 an hour, well under the daemon's own 600.
    assert.equal(budget.pollingPerHour(600), Math.floor((5000 * (1 - RESERVE_SHARE)) / 720));
    assert.equal(budget.pollingPerHour(3), 3, 'never more than watch.pollBudgetPerHour');
    // Late in the month with most of it left, polling may spend more; once the reserve is reached, none.
    time.set('2026-11-30T22:00:00Z');
    assert.equal(budget.pollingPerHour(600), 600);
    budget.count(4500);
    assert.equal(budget.pollingPerHour(600), 0, 'the last tenth is kept for edits and runs');
  });

  test('a month count the ledger holds in another shape is read as none (never a crash)', (t) => {
    const ledger = tempLedger(t);
    ledger.meta.set('calls.month', 'garbage');
    const budget = new CallBudget(ledger, 10, () => new Date('2026-11-10T12:00:00Z'));
    assert.equal(budget.used, 0);
    assert.equal(budget.count(5)?.share, 0.5);
  });
});
