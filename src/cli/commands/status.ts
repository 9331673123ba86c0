import { Option, type Command } from 'commander';
import type { Notice, SyncMode } from '../../sync/decide/types.js';
import { QUEUE_LENGTH_KEY } from '../../daemon/work-gauge.js';
import { readWaits, WAITS_KEY, type WaitRecord } from '../../daemon/activity.js';
import { waitSentence } from '../../daemon/wait-words.js';
import { isDaemon } from '../../setup/index.js';
import { shellQuote } from '../../shell/quote.js';
import { readLockHolder, type LockStatus, type OpenIntent } from '../../ledger/index.js';
import { backupsSize } from '../../local/index.js';
import { STATE_FOLDER } from '../../remote-state/store.js';
import { redactedJson } from '../../secrets.js';
import { openConflicts } from '../../sync/settle/conflict-regions.js';
import { fileStates, type FileState, type FileStatus } from '../../sync/views/status.js';
import { knownWorkspaceName, workspaceLabel } from '../../sync/observe/observe.js';
import { asWorkspaceId } from '../../model/ids.js';
import type { Ledger } from '../../ledger/index.js';
import type { CliCommand } from '../command.js';
import { describeDecision, pathShown, wouldDo } from '../../sync/views/vocabulary.js';
import { withInspection } from '../read-only.js';
import { ledgerPath } from '../session.js';
import { terminal } from '../../terminal.js';
import { invocation } from '../../invocation.js';

type Flags = { readonly config?: string; readonly json?: boolean; readonly offline?: boolean; readonly all?: boolean; readonly push?: boolean; readonly pull?: boolean };

/** What `kbsync status --json` prints. */
export type StatusReport = {
  readonly root: string;
  readonly workspaceId: string;
  /** The workspace's name, as the ledger last learnt it (null: not known yet). */
  readonly workspaceName: string | null;
  readonly offline: boolean;
  /** `waitsUntil`: when the running daemon deletes the file's document, or moves it, unless the file comes back first. */
  readonly files: readonly (FileStatus & { readonly waitsUntil?: string })[];
  readonly counts: Readonly<Partial<Record<FileState, number>>>;
  readonly conflictCopies: readonly string[];
  /** What a sync would say once without changing anything (a title the service cannot rename): the run's own notices. */
  readonly notices: readonly Notice[];
  /** Work an interrupted run began and did not record; the next sync finishes it. */
  readonly openIntents: readonly Pick<OpenIntent, 'kind' | 'subject' | 'createdAt' | 'pid'>[];
  /** The process using the ledger now (a daemon or a sync), if any. */
  readonly lock: LockStatus | null;
  /** Work waiting in the running daemon (files changed since its cycle began, actions of the cycle not done); null when no daemon runs. */
  readonly queue: number | null;
  /** kbsync's state in the knowledge base: its folder, and how many index and sources documents (null offline). */
  readonly remoteState: { readonly folder: string; readonly index: number; readonly sources: number; readonly entries: number | null } | null;
  /** Backups of replaced bodies kept in the state folder, and the retention that bounds them. */
  readonly backups: { readonly files: number; readonly bytes: number; readonly keepPerFile: number; readonly maxAgeDays: number };
  readonly calls: { readonly thisCommand: number; readonly recorded: number | null };
  /** Why a sync now would refuse to act (mass delete, empty side), if it would. */
  readonly refusal: string | null;
};

const numberOr = (value: unknown, fallback: number | null): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** Each open conflict names the lines that clash, so the person knows where to look (only conflicts are read). */
async function withClashLines(files: FileStatus[], ledger: Ledger | undefined, root: string): Promise<FileStatus[]> {
  if (!ledger || !files.some((file) => file.state === 'conflict')) return files;
  const open = new Map((await openConflicts(ledger, root)).map((conflict) => [conflict.path, conflict]));
  return files.map((file) => {
    const conflict = file.state === 'conflict' ? open.get(file.path) : undefined;
    if (!conflict) return file;
    const lines = conflict.regions.flatMap((region) => (region.kind === 'clash' ? [region.line] : []));
    const where = lines.length === 0 ? '' : lines.length === 1 ? `line ${lines[0]} clashes; ` : `lines ${lines.join(', ')} clash; `;
    return { ...file, detail: `${where}the knowledge base's version is in ${conflict.copy}; run \`kbsync resolve ${file.path}\`` };
  });
}

/** A delete or a move the running daemon keeps waiting is said where its file is: what goes, and when. */
function withWaits(files: FileStatus[], waits: ReadonlyMap<string, WaitRecord>): StatusReport['files'] {
  if (waits.size === 0) return files;
  const byFile = new Map([...waits.values()].map((wait) => [wait.kind === 'move' ? (wait.to ?? wait.path) : wait.path, wait]));
  return files.map((file) => {
    const wait = byFile.get(file.path);
    if (!wait) return file;
    const now = `\`kbsync resolve --mine ${shellQuote(wait.path)}\` ${wait.kind === 'move' ? 'moves' : 'deletes'} it now`;
    return { ...file, detail: [file.detail, waitSentence(wait, Date.now()), now].filter(Boolean).join('; '), waitsUntil: new Date(wait.dueAt).toISOString() };
  });
}

async function run(flags: Flags): Promise<void> {
  const offline = Boolean(flags.offline);
  const mode: SyncMode = flags.push ? 'push' : flags.pull ? 'pull' : 'two-way';
  await withInspection({ config: flags.config, mode, offline }, async ({ session, ledger, inspection }) => {
    const lock = readLockHolder(ledgerPath(session.config));
    const daemon = lock?.alive === true && isDaemon(lock);
    const files = withWaits(await withClashLines(fileStates(inspection), ledger, session.config.root), daemon ? readWaits(ledger?.meta.get(WAITS_KEY)) : new Map());
    const counts: Partial<Record<FileState, number>> = {};
    for (const file of files) counts[file.state] = (counts[file.state] ?? 0) + 1;
    const report: StatusReport = {
      root: session.config.root,
      workspaceId: session.config.workspaceId,
      workspaceName: knownWorkspaceName(ledger, asWorkspaceId(session.config.workspaceId)) ?? null,
      offline,
      files,
      counts,
      conflictCopies: inspection.scan.conflictCopies.map((file) => file.path),
      notices: inspection.plan.notices,
      openIntents: (ledger?.intents.open() ?? []).map(({ kind, subject, createdAt, pid }) => ({ kind, subject, createdAt, pid })),
      lock,
      queue: daemon ? numberOr(ledger?.meta.get(QUEUE_LENGTH_KEY), 0) : null,
      backups: { ...(await backupsSize(session.config.stateDir)), ...session.config.backups },
      remoteState: inspection.stateDocs
        ? {
            folder: STATE_FOLDER,
            index: inspection.stateDocs.filter((doc) => doc.family === 'state').length,
            sources: inspection.stateDocs.filter((doc) => doc.family === 'sources').length,
            entries: inspection.shared ? inspection.shared.state.entries.size : null,
          }
        : null,
      calls: { thisCommand: session.client.queue.stats().totals.calls, recorded: numberOr(ledger?.meta.get('calls.total'), null) },
      refusal: inspection.plan.refusal ? `${inspection.plan.refusal.message} [${inspection.plan.refusal.code}]` : null,
    };
    if (flags.json) invocation().stdout.write(`${redactedJson(report)}\n`);
    else for (const line of statusLines(report, Boolean(flags.all))) terminal.out(line);
  });
}

const formatBytes = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`);

function statusLines(report: StatusReport, all: boolean): string[] {
  const lines = [`${report.root} ⇄ ${workspaceLabel(report.workspaceId, report.workspaceName ?? undefined)}${report.offline ? ' (offline: remote not checked)' : ''}`];
  if (report.lock) {
    lines.push(report.lock.alive ? `In use by pid ${report.lock.pid} on ${report.lock.hostname}: ${report.lock.command}` : `A stale lock of pid ${report.lock.pid} (no longer running) is left; the next sync takes it over.`);
  }
  const shown = report.files.filter((file) => all || file.state !== 'clean');
  const width = Math.max(0, ...shown.map((file) => file.state.length));
  for (const file of shown) {
    const next = file.action && file.action !== 'held' ? `  → ${describeDecision(file.action)}` : '';
    lines.push(`  ${file.state.padEnd(width)}  ${pathShown(file)}${next}${file.detail ? `  (${file.detail})` : ''}`);
  }
  const counts = Object.entries(report.counts).map(([state, n]) => `${n} ${state}`).join(', ');
  lines.push(report.files.length === 0 ? 'No files and no documents yet.' : `${counts}.`);
  // What a sync would do, counted as `sync --dry-run` counts it (nothing to say offline: the decisions need reads).
  const decided = report.files.flatMap((file) => (file.action ? [{ kind: file.action }] : []));
  if (decided.length > 0 && !report.offline) lines.push(`A sync now ${wouldDo(decided)}.`);
  if (report.refusal) lines.push(`A sync now would refuse: ${report.refusal}`);
  for (const notice of report.notices) lines.push(`i ${notice.path}: ${notice.message} [${notice.code}]`);
  if (report.conflictCopies.length > 0) lines.push(`Conflict copies waiting (merge, then delete them): ${report.conflictCopies.join(', ')}`);
  if (report.openIntents.length > 0) {
    lines.push(`Interrupted work: ${report.openIntents.length} operation(s) begun and not recorded (${report.openIntents.map((i) => `${i.kind} ${i.subject}`).join(', ')}); the next sync finishes them.`);
  }
  if (report.queue !== null) lines.push(`Waiting in the daemon: ${report.queue} change(s).`);
  if (report.remoteState) {
    const { folder, index, sources, entries } = report.remoteState;
    lines.push(
      index + sources === 0
        ? `Remote state: none yet (the next sync that changes something writes it in ${folder} at the synced root).`
        : `Remote state: ${folder} at the synced root, ${index} index and ${sources} sources document(s)${entries === null ? '' : `, ${entries} file(s)`} (kbsync state shows more).`,
    );
  }
  const { backups } = report;
  lines.push(`Backups: ${backups.files} file(s), ${formatBytes(backups.bytes)} (kept: ${backups.keepPerFile} per file, ${backups.maxAgeDays} days; backups in the config).`);
  lines.push(`Calls: ${report.calls.thisCommand} by this command${report.calls.recorded === null ? '' : `, ${report.calls.recorded} recorded by kbsync`}.`);
  return lines;
}

export const statusCommand: CliCommand = {
  name: 'status',
  register(program: Command) {
    program
      .command('status')
      .description('Show each file as clean, local-changed, remote-changed, diverged, conflict or held, with what a sync would do, plus interrupted work; changes nothing.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable report on stdout')
      .option('--offline', 'do not call the service: local changes only')
      .addOption(new Option('--push', 'show what `sync --push` would do with each file').conflicts('pull'))
      .addOption(new Option('--pull', 'show what `sync --pull` would do with each file').conflicts('push'))
      .option('--all', 'list clean files too')
      .addHelpText(
        'after',
        `
Reads the ledger without locking it, so it works while \`kbsync watch\` runs. The remote side comes from one
listing, made as the sync would make it (a push lists only what it must); each file that a sync would touch
is decided exactly as the sync decides it (reading its document once), so what status says a sync would do
is what it does.

Examples:
  kbsync status                  what changed where, and what a sync would do
  kbsync status --offline        local changes only, no calls
  kbsync status --json | jq '.files[] | select(.state != "clean")'`,
      )
      .action(run);
  },
};
