import { Option, type Command } from 'commander';
import { messageOf, KbsyncError, SafetyError } from '../../errors.js';
import { CallBudget, type BudgetNotice } from '../../budget/call-budget.js';
import { STATE_FOLDER } from '../../remote-state/documents.js';
import { redact } from '../../secrets.js';
import type { Ledger } from '../../ledger/index.js';
import { keepWhatARunSaid } from '../../daemon/said-of-files.js';
import { runSync } from '../../sync/engine.js';
import type { ActionResult } from '../../sync/run/executor.js';
import { fullySynced, stoppedReport, type SyncReport } from '../../sync/views/report.js';
import { terminal } from '../../terminal.js';
import type { SyncMode } from '../../sync/decide/types.js';
import type { CliCommand, Entry } from '../command.js';
import { ExitCode, exitCodeForSignal, exitCodeOf, exitCodeOfCode, exitCodesHelp } from '../exit-codes.js';
import { printError, printStack } from '../print-error.js';
import { trapStopSignals } from '../stop-signal.js';
import { checkLinksLocally } from '../local-links.js';
import { outputFormatOf, outputFormatOption, type OutputFormat } from '../output/format.js';
import { printReport } from '../output/print-report.js';
import { createProgress, resultLine, type Verdict } from '../output/sync-output.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from '../session.js';
import { invocation } from '../../invocation.js';

type SyncFlags = { config?: string; push?: boolean; pull?: boolean; dryRun?: boolean; json?: boolean; outputFormat?: string; force?: boolean; overBudget?: boolean; checkLinks?: boolean; retitle?: boolean };

/**
 * After the first Ctrl+C or SIGTERM, how long the work under way may take before whatever is still pending
 * (a call awaiting its answer, a wait the service asked for, an upload) is cut: one signal always stops the
 * run within a few seconds, and what was cut is journalled for the next run.
 */
const STOP_GRACE_MS = 3000;

/** --check-links fails on a broken link; otherwise a run is whole when every file synced. */
function exitCodeOfReport(report: SyncReport, checkLinks: boolean): ExitCode {
  if (checkLinks && report.links.length > 0) return exitCodeOfCode('LINK_BROKEN');
  return fullySynced(report) ? ExitCode.ok : ExitCode.partial;
}

/**
 * A link check needs only the local files: without service settings or a token (a pull request from a
 * fork gets neither), `--check-links --dry-run` checks them alone instead of failing for want of a plan.
 */
async function localOnlyReason(session: Session): Promise<string | undefined> {
  if (session.unconfigured.length > 0) return `no ${session.unconfigured.join(', ')} configured`;
  try {
    await session.token.get();
    return undefined;
  } catch (error) {
    if (error instanceof KbsyncError && error.code.startsWith('TOKEN_')) return `no token (${session.token.description} gave none)`;
    throw error;
  }
}

/**
 * What one run has done so far. Results are kept as each file finishes, so that a run stopped by an
 * error or a second Ctrl+C still reports them: the report is complete whatever the exit code.
 */
class RunRecord {
  readonly started = Date.now();
  readonly results: ActionResult[] = [];
  session: Session | undefined;
  /** The first SIGINT or SIGTERM, once received. */
  stopSignal: NodeJS.Signals | undefined;
  constructor(
    readonly mode: SyncMode,
    readonly flags: SyncFlags,
    readonly format: OutputFormat,
  ) {}

  /** The report of a run that ended before runSync returned one. */
  stopped(interrupted: boolean): SyncReport {
    const stats = this.session?.client.queue.stats();
    return stoppedReport({
      options: { mode: this.mode, dryRun: Boolean(this.flags.dryRun) },
      results: this.results,
      endpointCalls: stats?.endpoints ?? {},
      calls: stats?.totals.calls ?? 0,
      durationMs: Date.now() - this.started,
      interrupted,
    });
  }

  print(report: SyncReport, verdict: Verdict): void {
    printReport(report, { format: this.format, verdict, checkLinks: Boolean(this.flags.checkLinks), root: this.session?.config.root ?? invocation().cwd });
  }
}

async function runOnce(run: RunRecord, entry: Entry): Promise<void> {
  const { mode, flags, format } = run;
  const checkLinks = Boolean(flags.checkLinks);
  const linkCheckOnly = checkLinks && Boolean(flags.dryRun);
  const session = await openSession({ config: flags.config, quiet: format === 'json', localOnly: linkCheckOnly });
  run.session = session;
  const offline = linkCheckOnly ? await localOnlyReason(session) : undefined;
  if (offline !== undefined) {
    terminal.err(`kbsync: ${offline}: the links were checked from the local files alone (a plan of what would be sent needs the service).`);
    const report = await checkLinksLocally(session.config, mode);
    const exitCode = exitCodeOfReport(report, true);
    run.print(report, { exitCode });
    invocation().exitCode = exitCode;
    return;
  }
  const progress = createProgress(terminal, format !== 'json');
  let cut: NodeJS.Timeout | undefined;
  const stop = trapStopSignals(
    (signal) => {
      run.stopSignal = signal;
      progress.stop();
      terminal.err(`kbsync: ${signal}: finishing the work under way, then stopping (again to stop at once; the next sync finishes the rest)`);
      cut = setTimeout(() => session.client.queue.close(), STOP_GRACE_MS).unref();
    },
    (signal) => {
      const exitCode = exitCodeForSignal(signal);
      run.print(run.stopped(true), { exitCode });
      return entry.exit(exitCode);
    },
  );
  let ledger: Ledger | undefined;
  let budget: CallBudget | undefined;
  try {
    ledger = openSyncLedger(session, { dryRun: Boolean(flags.dryRun) });
    // A preview writes nothing (not even the month's count); a run counts its calls whatever becomes of it.
    budget = flags.dryRun ? undefined : new CallBudget(ledger, session.config.service.callsPerMonth);
    if (budget?.spent && !flags.overBudget) throw budgetSpent(budget);
    const ran = await runSync(
      { client: session.client, ledger, logger: session.logger },
      {
        ...syncOptionsOf(session.config, { mode, dryRun: Boolean(flags.dryRun), force: Boolean(flags.force), checkLinks }),
        stateKey: session.stateKey,
        retitle: Boolean(flags.retitle),
        signal: stop.signal,
        onPhase: (phase) => progress.phase(phase),
        onPlanned: (count, checks) => progress.start(count, checks),
        onResult: (result) => {
          run.results.push(result);
          progress.done(result);
          // Said as soon as the file is done, on a terminal and piped alike: a long run shows its progress, and
          // a run stopped by a second Ctrl+C has already said what it did.
          const line = format === 'json' ? undefined : resultLine(result);
          if (line) terminal.out(line);
        },
      },
    );
    progress.stop();
    const report = withBudgetNotice(ran, budget?.count(session.client.queue.stats().totals.calls));
    budget = undefined;
    const signal = stop.received();
    const exitCode = signal ? exitCodeForSignal(signal) : exitCodeOfReport(report, checkLinks);
    run.print(report, { exitCode });
    invocation().exitCode = exitCode;
    // A preview, or a link check that stopped the run, sent nothing: what it said stands for no sent version.
    if (!flags.dryRun && !(checkLinks && report.links.length > 0)) keepSaid(ledger, report);
  } finally {
    clearTimeout(cut);
    stop.release();
    progress.stop();
    // A run that ended early (an error, a signal) spent calls all the same.
    const notice = budget?.count(session.client.queue.stats().totals.calls);
    if (notice) terminal.err(`kbsync: ${notice.message} [${notice.spent ? 'BUDGET_SPENT' : 'BUDGET_LOW'}]`);
    ledger?.close();
  }
}

/** What the run said of its sent files' links and images, for the next daemon; a failure to keep it changes nothing else. */
function keepSaid(ledger: Ledger, report: SyncReport): void {
  try {
    keepWhatARunSaid(ledger, report);
  } catch (error) {
    terminal.err(`kbsync: could not record in the ledger what this run said of broken links and images (${messageOf(error)}): \`kbsync watch\` may say them again.`);
  }
}

/** The report with what the month's call budget came to, when this run took it past a share not said yet. */
const withBudgetNotice = (report: SyncReport, notice: BudgetNotice | undefined): SyncReport =>
  notice ? { ...report, notices: [...report.notices, { path: STATE_FOLDER, code: notice.spent ? 'BUDGET_SPENT' : 'BUDGET_LOW', message: notice.message }] } : report;

function budgetSpent(budget: CallBudget): SafetyError {
  return new SafetyError('BUDGET_SPENT', budget.spentMessage(), {
    hint: 'Wait for the month to turn, raise service.callsPerMonth, or run `kbsync sync --over-budget` to go over it this once.',
  });
}

/**
 * `sync --json` refused by its command line (`--push --pull`, an unknown option): commander stops before
 * the command runs, so main prints the refused run's report here, for scripts that read stdout.
 */
export function printUsageReport(args: readonly string[], message: string): void {
  if (args[0] !== 'sync' || !(args.includes('--json') || args.join(' ').includes('--output-format json') || args.includes('--output-format=json'))) return;
  const mode: SyncMode = args.includes('--push') && !args.includes('--pull') ? 'push' : args.includes('--pull') && !args.includes('--push') ? 'pull' : 'two-way';
  const run = new RunRecord(mode, { dryRun: args.includes('--dry-run') || args.includes('-n') }, 'json');
  run.print(run.stopped(false), { exitCode: ExitCode.usage, error: { code: 'USAGE', message: redact(message.replace(/^error: /, '')) } });
}

export const syncCommand: CliCommand = {
  name: 'sync',
  register(program: Command, entry: Entry) {
    program
      .command('sync')
      .description('Sync the folder and the knowledge base once, in both directions (or one with --push / --pull).')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addOption(new Option('--push', 'only send local changes to the knowledge base').conflicts('pull'))
      .addOption(new Option('--pull', 'only bring knowledge-base changes into the files').conflicts('push'))
      .option('-n, --dry-run', 'print exactly what would change, and change nothing')
      .option('--check-links', 'check the links of every file first; a broken one stops the run (exit 5). With --dry-run it needs no token')
      .option('--json', 'print a machine-readable report on stdout (same as --output-format json)')
      .addOption(outputFormatOption())
      .option('--force', 'allow what a safety guard refused (mass delete, empty side, pushing an emptied file, replacing a remote edit in --push); never a push or move over kbsync placeholders')
      .option('--over-budget', "run although this month's call budget (service.callsPerMonth) is spent")
      .option('--retitle', 'a file whose title changed gets a new document under the new title (a new URL; the old document is deleted)')
      .addHelpText(
        'after',
        `
Examples:
  kbsync sync                                 two-way sync with ./sync.config.json
  kbsync sync --dry-run                       show the plan, change nothing
  kbsync sync --push --json                   docs-as-code: publish the folder, report as JSON
  kbsync sync --push --check-links --dry-run  check every link (no token needed), e.g. on each pull request
  kbsync sync --config ~/notes/sync.config.json --pull

Links to other synced files (relative, site-absolute, with or without .md, folder indexes, #anchors) are
sent as their documents' URLs; links that cannot work in the knowledge base are reported (LINK_BROKEN) as
written, with file, line, column and why. --check-links says how many files and links it checked.
Local images are published by images.upload (or mapped under images.baseUrl) and sent as their URLs,
once per content, ever; the files keep their own references. Without either: IMAGE_NOT_PUBLISHED.
Under GitHub Actions (GITHUB_ACTIONS=true) the output format is github: annotations on the files and a
job summary in $GITHUB_STEP_SUMMARY.

${exitCodesHelp()}`,
      )
      .action(async (flags: SyncFlags) => {
        const mode: SyncMode = flags.push ? 'push' : flags.pull ? 'pull' : 'two-way';
        const run = new RunRecord(mode, flags, outputFormatOf(flags));
        try {
          await runOnce(run, entry);
        } catch (error) {
          const code = error instanceof KbsyncError ? error.code : 'UNEXPECTED';
          // Cut short by the stop it was asked for (a signal, then the grace was over): stopped, not failed.
          if (run.stopSignal && code === 'QUEUE_CLOSED') {
            const exitCode = exitCodeForSignal(run.stopSignal);
            run.print(run.stopped(true), { exitCode });
            invocation().exitCode = exitCode;
            return;
          }
          // Refused or stopped: the message once on stderr, then the report all the same, with the code.
          // A failure that stops the run (a scope missing) was met on a file, whose line already said it.
          const said = run.format !== 'json' && run.results.some((r) => !r.ok && r.code === code && r.error === messageOf(error));
          if (!said) printError(error);
          else printStack(error);
          run.print(run.stopped(false), { exitCode: exitCodeOf(error), error: { code, message: redact(messageOf(error)) } });
          invocation().exitCode = exitCodeOf(error);
        }
      });
  },
};
