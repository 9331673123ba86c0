import { CallBudget } from '../budget/call-budget.js';
import { runSync } from '../sync/engine.js';
import type { SyncReport } from '../sync/views/report.js';
import type { SyncMode } from '../sync/decide/types.js';
import { resultLine, summaryLines } from './output/sync-output.js';
import { openSyncLedger, syncOptionsOf, type Session } from './session.js';

/** One sync with the session's config, printing a line per changed file and the summary (clone and demo). */
export async function syncAndPrint(session: Session, mode: SyncMode, print: (line: string) => void): Promise<SyncReport> {
  const ledger = openSyncLedger(session);
  try {
    const report = await runSync(
      { client: session.client, ledger, logger: session.logger },
      {
        ...syncOptionsOf(session.config, { mode, dryRun: false, force: false }),
        stateKey: session.stateKey,
        onResult: (result) => {
          const line = resultLine(result);
          if (line) print(line);
        },
      },
    );
    for (const line of summaryLines(report)) print(line);
    return report;
  } finally {
    // The month's count (service.callsPerMonth): what it comes to is said as kbsync sync says it.
    const notice = new CallBudget(ledger, session.config.service.callsPerMonth).count(session.client.queue.stats().totals.calls);
    if (notice) print(`${notice.message} [${notice.spent ? 'BUDGET_SPENT' : 'BUDGET_LOW'}]`);
    ledger.close();
  }
}
