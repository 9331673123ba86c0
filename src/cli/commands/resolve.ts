import path from 'node:path';
import { Option, type Command } from 'commander';
import { InputError, KbsyncError } from '../../errors.js';
import { openLedgerBeside, readLockHolder, type Ledger, type LockStatus } from '../../ledger/index.js';
import { redactedJson } from '../../secrets.js';
import { shellQuote } from '../../shell/quote.js';
import { HELD_REASONS, heldMessage, type HeldCode } from '../../sync/decide/held.js';
import { releaseHold, standingHold, type Released, type Side } from '../../sync/settle/release.js';
import { openConflicts, resolved, settle, type OpenConflict } from '../../sync/settle/conflict-regions.js';
import type { CliCommand } from '../command.js';
import { chooseEach, clashesOf } from '../resolve/choose-each.js';
import { mergeWithTool } from '../resolve/merge-tool.js';
import { exitCodeForSignal } from '../exit-codes.js';
import { ledgerPath, openSession, openSyncLedger, type Session } from '../session.js';
import { childEnv } from '../../shell/child-env.js';
import { isDaemon } from '../../setup/lock-holder.js';
import type { TokenSourceConfig } from '../../config/index.js';
import { invocation } from '../../invocation.js';
import { readWaits, WAITS_KEY, type WaitRecord } from '../../daemon/activity.js';
import { waitSentence } from '../../daemon/wait-words.js';
import { terminal } from '../../terminal.js';

type Flags = { readonly config?: string; readonly json?: boolean; readonly mine?: boolean; readonly theirs?: boolean; readonly tool?: string | false };

/** What `kbsync resolve --json` prints when it lists. */
export type ResolveReport = {
  readonly conflicts: readonly { readonly path: string; readonly copy: string; readonly clashes: readonly { readonly line: number; readonly base: string; readonly mine: string; readonly theirs: string }[] }[];
  /** Files held until a person answers (kbsync resolve --mine or --theirs FILE); `until`: when the running daemon sends a waiting delete or move itself. */
  readonly held: readonly { readonly path: string; readonly code: string; readonly message: string; readonly until?: string }[];
};

type HeldFile = { readonly path: string; readonly code: Exclude<HeldCode, 'CONFLICT_OPEN'> };

/** `path` from the command line: relative to the current folder when it points into the root, else to the root. */
const relativeToRoot = (root: string, wanted: string): string => {
  const fromCwd = path.relative(root, path.resolve(invocation().cwd, wanted));
  return (fromCwd.startsWith('..') || path.isAbsolute(fromCwd) ? wanted : fromCwd).split(path.sep).join('/');
};

function listLines(conflicts: readonly OpenConflict[], held: readonly HeldFile[], waits: ReadonlyMap<string, WaitRecord>): string[] {
  if (conflicts.length === 0 && held.length === 0) return ['No open conflicts, and nothing held.'];
  const lines = conflicts.flatMap((conflict) => [
    `${conflict.path}  (the knowledge base's version: ${conflict.copy})`,
    ...clashesOf(conflict).map((clash) => `  line ${clash.line}: yours and theirs differ`),
  ]);
  for (const file of held) {
    const wait = waits.get(file.path);
    lines.push(`${file.path}  held (${file.code}): ${heldMessage({ message: HELD_REASONS[file.code] }, file.path)}${wait ? ` Now: ${waitSentence(wait, Date.now())}.` : ''}`);
  }
  if (conflicts.length > 0) {
    lines.push("Settle a conflict block by block with `kbsync resolve FILE`, or with `--mine`, `--theirs` or a merge tool (`--tool meld`; any command works: `--tool 'mytool \"$LOCAL\" \"$REMOTE\" \"$MERGED\"'`).");
  }
  if (held.length > 0) lines.push('Release a held file with `kbsync resolve --mine FILE` (publish it as it is) or `kbsync resolve --theirs FILE` (take the knowledge base\'s version).');
  return lines;
}

/**
 * Held files, from the ledger: all of them, or those named. A file whose document holds a hidden edit is listed
 * too, held or not yet (its notice said to settle it here): read whole, as the summary does not carry the edit.
 */
function heldFiles(ledger: Ledger, only: readonly string[], conflicted: ReadonlySet<string>): HeldFile[] {
  const candidates =
    only.length > 0
      ? only.flatMap((wanted) => ledger.documents.get(wanted) ?? [])
      : ledger.documents.allSummaries().flatMap((summary) => (summary.heldCode !== null ? [summary] : summary.inexact ? (ledger.documents.get(summary.path) ?? []) : []));
  return candidates.flatMap((record) => {
    const hiddenEdit = 'hiddenEdit' in record && typeof record.hiddenEdit === 'string' ? record.hiddenEdit : null;
    const code = conflicted.has(record.path) ? undefined : standingHold({ heldCode: record.heldCode, hiddenEdit });
    return code ? [{ path: record.path, code }] : [];
  });
}

/**
 * The ledger, locked as usual; or, while `kbsync watch` (or a sync) holds it, opened beside that process:
 * settling a conflict then only writes the file and removes the copy, and releasing a hold writes one row
 * the daemon reads (it notices at once and acts on it in its next cycle).
 */
function openLedgerForResolve(session: Session): { readonly ledger: Ledger; readonly holder?: LockStatus } {
  try {
    return { ledger: openSyncLedger(session) };
  } catch (error) {
    if (!(error instanceof KbsyncError) || (error.code !== 'DAEMON_RUNNING' && error.code !== 'LEDGER_LOCKED')) throw error;
    const file = ledgerPath(session.config);
    const holder = readLockHolder(file);
    return { ledger: openLedgerBeside(file), ...(holder ? { holder } : {}) };
  }
}

/** The variables a token may be read from, which a merge tool must not get. */
const tokenVariables = (source: TokenSourceConfig): string[] => ('env' in source ? [source.env] : []);

/** Who carries a settled conflict or a release out: the running daemon at once, or the next sync. */
const whoActs = (holder: LockStatus | undefined): string =>
  holder === undefined ? 'the next `kbsync sync`' : isDaemon(holder) ? `the running daemon (pid ${holder.pid})` : `the next sync after pid ${holder.pid} finishes`;

function releasedLine(done: Released, holder: LockStatus | undefined): string {
  const who = whoActs(holder);
  if (done.side === 'mine') {
    const what = done.code === 'DELETE_WAITING' ? 'deletes its document' : 'publishes the file as it is';
    return `${done.path}: released (--mine): ${who} ${what} (the document's body is backed up first).`;
  }
  const back = done.rewrote ? 'the file is back to the text last synced (what it held is in the backups); ' : '';
  const caveat =
    done.code === 'HIDDEN_EDIT'
      ? ' The file cannot receive what the service does not show: if the hidden edit was in a code block or a table, copy it into the file too, or a later overwrite from the file undoes it.'
      : '';
  return `${done.path}: released (--theirs): ${back}${who} takes the knowledge base's version.${caveat}`;
}

async function run(files: readonly string[], flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const { ledger, holder } = openLedgerForResolve(session);
  try {
    const { root, stateDir } = session.config;
    const wanted = files.map((file) => relativeToRoot(root, file));
    const conflicts = await openConflicts(ledger, root, wanted.length > 0 ? new Set(wanted) : undefined);
    const held = heldFiles(ledger, wanted, new Set(conflicts.map((conflict) => conflict.path)));
    // The deletes and moves the running daemon keeps waiting, with when each goes (it writes them as its cycles end).
    const waits = holder && holder.alive && isDaemon(holder) ? readWaits(ledger.meta.get(WAITS_KEY)) : new Map<string, WaitRecord>();
    for (const file of wanted) {
      if (!conflicts.some((c) => c.path === file) && !held.some((h) => h.path === file)) {
        throw new InputError('RESOLVE_NOTHING_OPEN', `${file} has no open conflict and nothing held.`, { hint: 'Run `kbsync resolve` without a file to list what waits for you.' });
      }
    }
    const side: Side | undefined = flags.mine ? 'mine' : flags.theirs ? 'theirs' : undefined;
    // --tool, else the configured merge tool (merge.tool, KBSYNC_MERGE_TOOL); --no-tool chooses block by block.
    const tool = flags.tool === false ? undefined : (flags.tool ?? session.config.merge.tool ?? undefined);
    // Nothing named and no way to settle given: list (a configured merge tool is for the files you name).
    if (side === undefined && wanted.length === 0 && typeof flags.tool !== 'string') {
      if (flags.json) {
        const report: ResolveReport = {
          conflicts: conflicts.map((c) => ({ path: c.path, copy: c.copy, clashes: clashesOf(c) })),
          held: held.map((file) => {
            const wait = waits.get(file.path);
            return { path: file.path, code: file.code, message: heldMessage({ message: HELD_REASONS[file.code] }, file.path), ...(wait ? { until: new Date(wait.dueAt).toISOString() } : {}) };
          }),
        };
        invocation().stdout.write(`${redactedJson(report)}\n`);
      } else for (const line of listLines(conflicts, held, waits)) terminal.out(line);
      return;
    }
    // A held file named without a side: which version wins is the person's to say.
    if (side === undefined && wanted.length > 0 && held.length > 0) {
      const names = held.map((file) => shellQuote(file.path)).join(' ');
      throw new InputError('USAGE', `${held.map((file) => `${file.path} is held (${file.code})`).join('; ')}: say which version wins.`, {
        hint: `\`kbsync resolve --mine ${names}\` publishes it as it is; \`kbsync resolve --theirs ${names}\` takes the knowledge base's version.`,
      });
    }
    for (const file of side === undefined ? [] : held) terminal.out(releasedLine(await releaseHold({ ledger, root, stateDir }, file.path, side as Side), holder));
    const toolEnv = childEnv(invocation().env, tokenVariables(session.config.service.token));
    for (const conflict of conflicts) {
      const how = side ?? (tool !== undefined ? 'tool' : 'block by block');
      let text: string;
      if (side === 'mine') text = conflict.mine;
      // Their side of each clash; your edits elsewhere (made since the conflict, too) stay.
      else if (side === 'theirs') text = resolved(conflict.regions, () => 'theirs');
      else if (tool === undefined) text = await chooseEach(conflict);
      else {
        const merged = await mergeWithTool(tool, conflict, stateDir, toolEnv);
        if (merged.kind === 'stopped') {
          terminal.out(`${conflict.path}: not settled: the merge was stopped (${merged.signal}); nothing was changed.`);
          invocation().exitCode = exitCodeForSignal(merged.signal);
          return;
        }
        text = merged.text;
      }
      await settle({ ledger, root, stateDir, readonly: holder !== undefined }, conflict, text);
      terminal.out(`${conflict.path}: settled (${how}); the conflict copy is removed and ${whoActs(holder)} publishes the file.`);
    }
  } finally {
    ledger.close();
  }
}

export const resolveCommand: CliCommand = {
  name: 'resolve',
  register(program: Command) {
    program
      .command('resolve')
      .argument('[files...]', 'files with an open conflict or a hold (default: list them all)')
      .description("List open conflicts and held files, or settle them: keep yours, keep the knowledge base's, choose block by block, or use a merge tool.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addOption(new Option('--mine', 'keep your version: the file as it is (for a hold: publish it, or send the delete)').conflicts(['theirs', 'tool']))
      .addOption(new Option('--theirs', "keep the knowledge base's version (the conflict copy; for a hold: the document)").conflicts(['mine', 'tool']))
      .addOption(new Option('--tool <command>', 'settle conflicts with a merge tool: a name (meld, vimdiff, kdiff3, code, …) or a command using $BASE $LOCAL $REMOTE $MERGED').conflicts(['mine', 'theirs']))
      .option('--no-tool', 'choose block by block even when merge.tool is configured')
      .option('--json', 'list the open conflicts and held files as JSON')
      .addHelpText(
        'after',
        `
When both sides change the same part of a document differently, the file keeps your version, the
knowledge base's goes beside it as NAME.conflict-WHEN.md, and the knowledge base keeps its version until
you settle it here. Settling writes the file (both versions are backed up in the state folder first),
removes the copy, and the next sync publishes the result.

A held file (an emptied file, an overwrite held over an edit the service hides or over a plain-text
base, a delete that waits) is released with --mine FILE (publish the file as it is, or send the delete)
or --theirs FILE (take the knowledge base's version: the file goes back to the text last synced, backed
up first, and the next sync brings the document's version in). Without FILE, --mine and --theirs apply
to everything listed.

All of it works while \`kbsync watch\` runs: the daemon then does the rest at once.

Merge tools run attached to your terminal, the way git mergetool runs them: a name from git's list gets
the files in its usual order (meld, vimdiff, nvimdiff, gvimdiff, emerge, kdiff3, opendiff, vscode, bc,
p4merge, tkdiff, smerge, diffmerge); anything else is a shell command that uses $BASE $LOCAL $REMOTE
$MERGED (quote it in single quotes, so your shell leaves the variables for kbsync). Set merge.tool in the
config (or KBSYNC_MERGE_TOOL) and \`kbsync resolve FILE\` uses it. A tool that leaves the merged file as it
was, or with conflict markers, settles nothing.

Examples:
  kbsync resolve                          list open conflicts (and the lines that clash) and held files
  kbsync resolve notes/plan.md            choose yours, theirs or both for each clash (or the merge tool)
  kbsync resolve notes/plan.md --theirs   take the knowledge base's version
  kbsync resolve notes/plan.md --tool meld
  kbsync resolve notes/plan.md --tool 'vimdiff "$LOCAL" "$MERGED" "$REMOTE"'
  kbsync resolve --mine notes/emptied.md  publish a file held as EMPTIED, as it is`,
      )
      .action(run);
  },
};
