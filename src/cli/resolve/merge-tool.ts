import { spawn } from 'node:child_process';
import { mkdtempSync, promises as fsp, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { findProgram } from '../../shell/find-program.js';
import { markedText, markerLine, type OpenConflict } from '../../sync/settle/conflict-regions.js';
import { ask, isInteractive } from '../prompt.js';
import { KNOWN_TOOLS, parseTool, type MergeFiles } from './merge-tools.js';
import { invocation } from '../../invocation.js';

/** How a merge ended: the text to settle with, or a stop by a signal (nothing is settled). */
type MergeOutcome = { readonly kind: 'merged'; readonly text: string } | { readonly kind: 'stopped'; readonly signal: NodeJS.Signals };

const PREFIX = 'resolve-';
/** Signals the terminal sends to the tool and kbsync alike: kbsync waits for the tool, then cleans up. */
const WAITED_ON: readonly NodeJS.Signals[] = ['SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGHUP'];
/** The signals a terminal sends its whole foreground group (the tool and kbsync). */
const TERMINAL_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGINT', 'SIGQUIT']);

const failed = (conflict: OpenConflict, what: string, hint: string): InputError =>
  new InputError('MERGE_TOOL_FAILED', `The merge tool ${what} for ${conflict.path}; nothing was changed.`, { hint });

const unsettled = (conflict: OpenConflict, what: string): InputError =>
  new InputError('MERGE_TOOL_UNSETTLED', `${conflict.path} is not settled: ${what}. Nothing was changed.`, {
    hint: 'Run it again and save the merged result (in vimdiff the bottom window, in meld the middle pane), or settle with --mine or --theirs.',
  });

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Work folders a kbsync resolve left when it was killed outright (nothing else can end it without cleaning up). */
function removeLeftovers(stateDir: string): void {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^resolve-(\d+)-/.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !processAlive(pid)) rmSync(path.join(stateDir, name), { recursive: true, force: true });
  }
}

/**
 * Runs a merge tool the way git mergetool does: attached to this terminal (its stdin, stdout and stderr), on
 * BASE, LOCAL (yours), REMOTE (the knowledge base's) and MERGED (what both agree on, each clash between
 * conflict markers), in a private work folder in the state folder that is removed however it ends. The
 * result is MERGED as the tool left it; left as it was, or with markers, it settles nothing.
 */
export async function mergeWithTool(given: string, conflict: OpenConflict, stateDir: string, env: NodeJS.ProcessEnv): Promise<MergeOutcome> {
  const run = parseTool(given);
  if (run.kind === 'unknown') {
    throw failed(conflict, `"${run.word}" is not a tool kbsync knows, and the command names none of $BASE, $LOCAL, $REMOTE, $MERGED`,
      `Use a known name (${Object.keys(KNOWN_TOOLS).join(', ')}), or a command in single quotes that names the files: --tool 'mytool "$LOCAL" "$REMOTE" "$MERGED"'.`);
  }
  if (run.kind === 'known' && !findProgram(run.tool.program, env)) {
    throw failed(conflict, `${run.name} cannot start: ${run.tool.program} is not found on this machine's PATH`, `Install ${run.tool.program}, or choose another tool.`);
  }
  removeLeftovers(stateDir);
  const dir = mkdtempSync(path.join(stateDir, `${PREFIX}${process.pid}-`));
  // Even a process.exit elsewhere must not leave the folder (it holds both versions of the text).
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    const name = path.posix.basename(conflict.path, '.md');
    const files: MergeFiles = {
      BASE: path.join(dir, `${name}.BASE.md`),
      LOCAL: path.join(dir, `${name}.LOCAL.md`),
      REMOTE: path.join(dir, `${name}.REMOTE.md`),
      MERGED: path.join(dir, `${name}.md`),
    };
    const start = markedText(conflict.regions);
    await fsp.writeFile(files.BASE, conflict.base);
    await fsp.writeFile(files.LOCAL, conflict.mine);
    await fsp.writeFile(files.REMOTE, conflict.theirs);
    await fsp.writeFile(files.MERGED, start);
    const before = await fsp.stat(files.MERGED);
    const [program, args, pipeOut] =
      run.kind === 'known' ? [run.tool.program, [...run.extra, ...run.tool.args(files)], run.tool.waitsOnPipe === true] : ['/bin/sh', ['-c', run.command], false];
    const ended = await attached(program, args, { ...env, ...files }, pipeOut);
    if (ended.signal) return { kind: 'stopped', signal: ended.signal };
    if (ended.error) throw failed(conflict, `did not finish (${ended.error})`, 'Check the --tool command (or merge.tool in the config).');
    if (ended.code !== 0) throw failed(conflict, `ended with exit code ${ended.code}`, 'Check the --tool command (it gets $BASE $LOCAL $REMOTE $MERGED, like git mergetool), or settle with --mine or --theirs.');
    const after = await fsp.stat(files.MERGED).catch(() => undefined);
    if (!after) throw unsettled(conflict, 'the merge tool removed the merged file');
    const text = await fsp.readFile(files.MERGED, 'utf8');
    if (text === start && after.mtimeMs === before.mtimeMs && !(await confirmedUntouched(conflict))) throw unsettled(conflict, 'the merge tool left the merged file as it was');
    const marker = markerLine(text);
    if (marker !== undefined) throw unsettled(conflict, `the merged file still holds conflict markers (line ${marker})`);
    return { kind: 'merged', text };
  } finally {
    process.off('exit', cleanup);
    cleanup();
  }
}

/** Like git, asks at a terminal whether an untouched result is the merge all the same; elsewhere it is not. */
async function confirmedUntouched(conflict: OpenConflict): Promise<boolean> {
  if (!isInteractive()) return false;
  const answer = await ask(`${conflict.path}: the merge tool left the merged file as it was. Was the merge successful? [y/N] `);
  return /^y(es)?$/i.test(answer);
}

type Ended = { readonly code: number | null; readonly signal?: NodeJS.Signals; readonly error?: string };

/**
 * Runs the tool with this terminal as its own. Ctrl+C (and a hang-up, a SIGTERM) reaches the tool too: kbsync
 * waits for it to end instead of dying first, and reports the stop.
 */
function attached(program: string, args: readonly string[], env: NodeJS.ProcessEnv, pipeOut: boolean): Promise<Ended> {
  return new Promise((resolve) => {
    let received: NodeJS.Signals | undefined;
    const child = spawn(program, args, { stdio: ['inherit', pipeOut ? 'pipe' : 'inherit', 'inherit'], env });
    child.stdout?.pipe(invocation().stdout, { end: false });
    const onSignal = (signal: NodeJS.Signals): void => {
      received ??= signal;
      // The terminal's own signals reach the tool already; one sent to kbsync alone is passed on.
      if (signal === 'SIGTERM' || signal === 'SIGHUP') child.kill(signal);
    };
    for (const signal of WAITED_ON) process.on(signal, onSignal);
    const done = (ended: Ended): void => {
      for (const signal of WAITED_ON) process.off(signal, onSignal);
      resolve(ended);
    };
    child.on('error', (error) => done({ code: null, error: error.message }));
    child.on('close', (code, signal) => {
      // Ctrl+C (or Ctrl+backslash) reaches the tool and kbsync at once, and the tool's end may be seen before kbsync's own
      // signal (a loaded machine, a full test run): a tool ended by the terminal's signal was stopped, not failed.
      const stoppedBy = received ?? (signal !== null && TERMINAL_SIGNALS.has(signal) ? signal : undefined);
      if (stoppedBy) done({ code, signal: stoppedBy });
      else done(signal ? { code, error: `it was killed by ${signal}` } : { code });
    });
  });
}
