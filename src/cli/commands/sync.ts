import { Option, type Command } from 'commander';
import { redactValue } from '../../secrets.js';
import { runSync } from '../../sync/engine.js';
import { fullySynced } from '../../sync/report.js';
import type { SyncMode } from '../../sync/decide/types.js';
import type { CliCommand } from '../command.js';
import { ExitCode, exitCodeForSignal } from '../exit-codes.js';
import { trapStopSignals } from '../stop-signal.js';
import { createProgress, resultLine, summaryLines } from '../output/sync-output.js';
import { openSession, openSyncLedger, syncOptionsOf } from '../session.js';

type SyncFlags = { config?: string; push?: boolean; pull?: boolean; dryRun?: boolean; json?: boolean; force?: boolean; retitle?: boolean };

export const syncCommand: CliCommand = {
  name: 'sync',
  register(program: Command) {
    program
      .command('sync')
      .description('Sync the folder and the knowledge base once, in both directions (or one with --push / --pull).')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addOption(new Option('--push', 'only send local changes to the knowledge base').conflicts('pull'))
      .addOption(new Option('--pull', 'only bring knowledge-base changes into the files').conflicts('push'))
      .option('-n, --dry-run', 'print exactly what would change, and change nothing')
      .option('--json', 'print a machine-readable report on stdout')
      .option('--force', 'allow what a safety guard refused (mass delete, empty side, pushing an emptied file, replacing a remote edit in --push)')
      .option('--retitle', 'a file whose title changed gets a new document under the new title (a new URL; the old document is deleted)')
      .addHelpText(
        'after',
        `
Examples:
  kbsync sync                      two-way sync with ./sync.config.json
  kbsync sync --dry-run            show the plan, change nothing
  kbsync sync --push --json        docs-as-code: publish the folder, report as JSON
  kbsync sync --config ~/notes/sync.config.json --pull

Exit codes: 0 everything synced, 1 some files did not sync (each is reported),
2 bad usage or config, 3 a safety guard refused, 4 the service could not be used,
130 stopped by Ctrl+C (SIGINT), 143 stopped by SIGTERM: the work under way is finished and
reported, and the next sync does the rest.`,
      )
      .action(async (flags: SyncFlags) => {
        const mode: SyncMode = flags.push ? 'push' : flags.pull ? 'pull' : 'two-way';
        const session = await openSession({ config: flags.config, quiet: Boolean(flags.json) });
        const ledger = openSyncLedger(session);
        const progress = createProgress(!flags.json && Boolean(process.stderr.isTTY));
        const lines: string[] = [];
        const stop = trapStopSignals((signal) => {
          progress.stop();
          console.error(`kbsync: ${signal}: finishing the work under way, then stopping (again to stop at once; the next sync finishes the rest)`);
        }, exitCodeForSignal);
        try {
          const report = await runSync(
            { client: session.client, ledger, logger: session.logger },
            {
              ...syncOptionsOf(session.config, { mode, dryRun: Boolean(flags.dryRun), force: Boolean(flags.force) }),
              retitle: Boolean(flags.retitle),
              signal: stop.signal,
              onPlanned: (count) => progress.start(count),
              onResult: (result) => {
                progress.tick();
                const line = resultLine(result);
                if (line) lines.push(line);
              },
            },
          );
          progress.stop();
          if (flags.json) process.stdout.write(`${JSON.stringify(redactValue(report))}\n`);
          else for (const line of [...lines, ...summaryLines(report)]) console.log(line);
          const signal = stop.received();
          process.exitCode = signal ? exitCodeForSignal(signal) : fullySynced(report) ? ExitCode.ok : ExitCode.partial;
        } finally {
          stop.release();
          progress.stop();
          ledger.close();
        }
      });
  },
};
