import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Option, type Command } from 'commander';
import { InputError, KbsyncError } from '../../errors.js';
import type { Ledger } from '../../ledger/index.js';
import { commandEnv, redactValue } from '../../secrets.js';
import { acceptHiddenEdit, hasHiddenEdit, openConflicts, resolved, settle, type Choice, type OpenConflict } from '../../sync/resolve.js';
import type { CliCommand } from '../command.js';
import { openSession, openSyncLedger, type Session } from '../session.js';

const CHOICES: Readonly<Record<string, Choice>> = { m: 'mine', mine: 'mine', t: 'theirs', theirs: 'theirs', b: 'both', both: 'both' };

type Flags = { readonly config?: string; readonly json?: boolean; readonly mine?: boolean; readonly theirs?: boolean; readonly tool?: string };

/** What `kbsync resolve --json` prints when it lists. */
export type ResolveReport = {
  readonly conflicts: readonly { readonly path: string; readonly copy: string; readonly clashes: readonly { readonly line: number; readonly base: string; readonly mine: string; readonly theirs: string }[] }[];
};

/** `path` from the command line: relative to the current folder when it points into the root, else to the root. */
const relativeToRoot = (root: string, wanted: string): string => {
  const fromCwd = path.relative(root, path.resolve(wanted));
  return (fromCwd.startsWith('..') || path.isAbsolute(fromCwd) ? wanted : fromCwd).split(path.sep).join('/');
};

const clashesOf = (conflict: OpenConflict) =>
  conflict.regions.flatMap((region) => (region.kind === 'clash' ? [{ line: region.line, base: region.base.join('\n'), mine: region.mine.join('\n'), theirs: region.theirs.join('\n') }] : []));

function listLines(conflicts: readonly OpenConflict[]): string[] {
  if (conflicts.length === 0) return ['No open conflicts.'];
  return [
    ...conflicts.flatMap((conflict) => [
      `${conflict.path}  (the knowledge base's version: ${conflict.copy})`,
      ...clashesOf(conflict).map((clash) => `  line ${clash.line}: yours and theirs differ`),
    ]),
    'Settle one with `kbsync resolve FILE --mine`, `--theirs`, `--tool "meld $LOCAL $REMOTE $MERGED"`, or block by block: `kbsync resolve FILE`.',
  ];
}

/** Runs a merge tool the way git mergetool does: $BASE $LOCAL $REMOTE $MERGED in the command, and in the environment. */
async function mergeWithTool(tool: string, conflict: OpenConflict, stateDir: string): Promise<string> {
  const dir = await mkdtemp(path.join(stateDir, 'resolve-'));
  try {
    const name = path.posix.basename(conflict.path, '.md');
    const files = { BASE: `${name}.BASE.md`, LOCAL: `${name}.LOCAL.md`, REMOTE: `${name}.REMOTE.md`, MERGED: `${name}.md` };
    const abs = Object.fromEntries(Object.entries(files).map(([key, file]) => [key, path.join(dir, file)])) as Record<keyof typeof files, string>;
    await writeFile(abs.BASE, conflict.base);
    await writeFile(abs.LOCAL, conflict.mine);
    await writeFile(abs.REMOTE, conflict.theirs);
    await writeFile(abs.MERGED, conflict.mine);
    await new Promise<void>((resolve, reject) => {
      execFile('/bin/sh', ['-c', tool], { env: { ...commandEnv(process.env), ...abs }, timeout: 0 }, (error) => {
        if (!error) return resolve();
        reject(
          new InputError('MERGE_TOOL_FAILED', `The merge tool ended with an error for ${conflict.path} (${error.message.split('\n')[0] ?? ''}); nothing was changed.`, {
            hint: 'Check the --tool command (it gets $BASE $LOCAL $REMOTE $MERGED, like git mergetool), or settle with --mine or --theirs.',
          }),
        );
      });
    });
    return await readFile(abs.MERGED, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Block by block on a terminal (or from answers piped in): yours, theirs, or both. */
async function chooseEach(conflict: OpenConflict): Promise<string> {
  const rl = createInterface({ input: process.stdin, terminal: false });
  // Read as a stream of lines: it ends when the input does (a question left waiting would hang the process).
  const answers = rl[Symbol.asyncIterator]();
  const choices: Choice[] = [];
  try {
    for (const clash of clashesOf(conflict)) {
      process.stdout.write(`\n${conflict.path}, line ${clash.line}:\n--- as agreed before\n${clash.base}\n--- yours\n${clash.mine}\n--- theirs (the knowledge base)\n${clash.theirs}\n`);
      for (;;) {
        process.stdout.write('Keep [m]ine, [t]heirs or [b]oth? ');
        const next = await answers.next();
        if (next.done) {
          throw new InputError('RESOLVE_NO_ANSWER', `No answer for ${conflict.path}, line ${clash.line}: nothing was changed.`, {
            hint: 'Answer on a terminal, pipe the answers in (one of m, t, b per line), or choose for the whole file with --mine, --theirs or --tool.',
          });
        }
        const choice = CHOICES[next.value.trim().toLowerCase()];
        if (choice) {
          choices.push(choice);
          break;
        }
      }
    }
  } finally {
    rl.close();
  }
  return resolved(conflict.regions, (_clash, index) => choices[index] ?? 'mine');
}

/**
 * The ledger, locked as usual; or, while `kbsync watch` (or a sync) holds it, read without the lock: settling
 * a conflict then only writes the file and removes the copy, and the daemon's next cycle publishes it.
 * `busy` is the lock error, for the one thing that needs the ledger written (ending a HIDDEN_EDIT hold).
 */
function openLedgerForResolve(session: Session): { readonly ledger: Ledger; readonly busy?: KbsyncError } {
  try {
    return { ledger: openSyncLedger(session) };
  } catch (error) {
    if (!(error instanceof KbsyncError) || (error.code !== 'DAEMON_RUNNING' && error.code !== 'LEDGER_LOCKED')) throw error;
    return { ledger: openSyncLedger(session, { readonly: true }), busy: error };
  }
}

async function run(files: readonly string[], flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const { ledger, busy } = openLedgerForResolve(session);
  try {
    const root = session.config.root;
    const only = files.length > 0 ? new Set(files.map((file) => relativeToRoot(root, file))) : undefined;
    const conflicts = await openConflicts(ledger, root, only);
    for (const wanted of only ?? []) {
      const record = ledger.documents.get(wanted);
      // Ending that hold writes the ledger, which the running daemon holds: say so rather than fail inside SQLite.
      if (busy && flags.theirs && record && hasHiddenEdit(record)) throw busy;
      if (flags.theirs && !conflicts.some((conflict) => conflict.path === wanted) && (await acceptHiddenEdit({ ledger, root, stateDir: session.config.stateDir }, wanted))) {
        console.log(
          `${wanted}: your unpublished change is dropped (it is in the backups) and the next sync takes the knowledge base's version. ` +
            'The file cannot receive what the service does not show: if the hidden edit was in a code block or a table, copy it into the file too, or a later overwrite from the file undoes it.',
        );
        only?.delete(wanted);
        continue;
      }
      if (!conflicts.some((conflict) => conflict.path === wanted)) {
        throw new InputError('RESOLVE_NOTHING_OPEN', `${wanted} has no open conflict.`, { hint: 'Run `kbsync resolve` without a file to list the open ones.' });
      }
    }
    if (only?.size === 0) return;
    const settleWith = flags.mine ? 'mine' : flags.theirs ? 'theirs' : flags.tool !== undefined ? 'tool' : files.length > 0 ? 'each' : undefined;
    if (settleWith === undefined) {
      if (flags.json) {
        const report: ResolveReport = { conflicts: conflicts.map((c) => ({ path: c.path, copy: c.copy, clashes: clashesOf(c) })) };
        process.stdout.write(`${JSON.stringify(redactValue(report))}\n`);
      } else for (const line of listLines(conflicts)) console.log(line);
      return;
    }
    for (const conflict of conflicts) {
      const text =
        settleWith === 'mine'
          ? conflict.mine
          : settleWith === 'theirs'
            ? // Their side of each clash; your edits elsewhere (made since the conflict, too) stay.
              resolved(conflict.regions, () => 'theirs')
            : settleWith === 'tool'
              ? await mergeWithTool(flags.tool ?? '', conflict, session.config.stateDir)
              : await chooseEach(conflict);
      await settle({ ledger, root, stateDir: session.config.stateDir, readonly: busy !== undefined }, conflict, text);
      console.log(`${conflict.path}: settled (${settleWith === 'each' ? 'block by block' : settleWith}); the conflict copy is removed and the next sync publishes the file.`);
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
      .argument('[files...]', 'files with an open conflict (default: list them all)')
      .description("List open conflicts, or settle them: keep yours, keep the knowledge base's, choose block by block, or use a merge tool.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addOption(new Option('--mine', 'keep your version (the file)').conflicts(['theirs', 'tool']))
      .addOption(new Option('--theirs', "keep the knowledge base's version (the conflict copy)").conflicts(['mine', 'tool']))
      .addOption(new Option('--tool <command>', 'run a merge tool: $BASE $LOCAL $REMOTE $MERGED as in git mergetool').conflicts(['mine', 'theirs']))
      .option('--json', 'list the open conflicts as JSON')
      .addHelpText(
        'after',
        `
When both sides change the same part of a document differently, the file keeps your version, the
knowledge base's goes beside it as NAME.conflict-WHEN.md, and the knowledge base keeps its version until
you settle it here. Settling writes the file (both versions are backed up in the state folder first),
removes the copy, and the next sync publishes the result. It works while \`kbsync watch\` runs: the
daemon then publishes it.

--theirs FILE also ends a HIDDEN_EDIT hold (someone edited a code block or a table, which the service
does not show): after you merged your change in the web editor, it drops the file's unpublished change
(backed up) so the next sync takes the knowledge base's version.

Examples:
  kbsync resolve                          list open conflicts and the lines that clash
  kbsync resolve notes/plan.md            choose yours, theirs or both for each clash
  kbsync resolve notes/plan.md --theirs   take the knowledge base's version
  kbsync resolve notes/plan.md --tool 'meld "$LOCAL" "$MERGED" "$REMOTE"'`,
      )
      .action(run);
  },
};
