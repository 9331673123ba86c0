import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { fullySynced, type SyncReport } from '../../sync/views/report.js';
import type { CliCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { addedLines } from '../output/unified-diff.js';
import { withReadOnlyLedger } from '../read-only.js';
import { syncAndPrint } from '../run-sync.js';
import { openSession, type Session } from '../session.js';
import { waitForStopSignal } from '../stop-signal.js';
import { writeNewConfig } from '../write-config.js';
import { packageRoot } from '../../package-root.js';
import { shellQuote } from '../../shell/quote.js';
import { selfCommand } from '../../shell/self-command.js';
// Types only: the emulator is loaded lazily, so no other command ever loads it.
import type { RunningEmulator } from '../../emulator/index.js';
import { terminal } from '../../terminal.js';
import { invocation } from '../../invocation.js';

type Flags = { readonly keep?: boolean; readonly open: boolean };

/** The example notes shipped with kbsync (the `files` of package.json include them). */
const EXAMPLES = path.join(packageRoot(), 'examples', 'demo-notes');
const CHECKLIST = 'guides/release-checklist.md';
const LOCAL_EDIT = 'welcome.md';
const COLLEAGUE_LINE = '- Write the release notes (added by Grace in the web editor)';

const say = (line = ''): void => terminal.out(line);
const indent = (line: string): void => terminal.out(`    ${line}`);

async function demoFolder(keep: boolean): Promise<string> {
  if (!keep) return fsp.mkdtemp(path.join(tmpdir(), 'kbsync-demo-'));
  const dir = path.resolve(invocation().cwd, 'kbsync-demo');
  const entries = await fsp.readdir(dir).catch(() => []);
  if (entries.length > 0) {
    throw new InputError('DEMO_FOLDER_EXISTS', `${dir} already exists and is not empty.`, { hint: 'Remove it (rm -r kbsync-demo), or run the demo without --keep.' });
  }
  await fsp.mkdir(dir, { recursive: true });
  return dir;
}

/** A colleague adds a line to the release checklist in the web editor (the emulator's admin acts as another user). */
function colleagueEdits(em: RunningEmulator): void {
  const doc = em.admin.dump().nodes.find((node) => node.docType === 'DOC' && node.title === 'Release checklist');
  if (!doc) throw new Error('the demo notes lost their release checklist; restore examples/demo-notes');
  const markdown = doc.markdown ?? '';
  const anchor = '- Update the changelog\n';
  const edited = markdown.includes(anchor) ? markdown.replace(anchor, `${anchor}${COLLEAGUE_LINE}\n`) : `${markdown.trimEnd()}\n${COLLEAGUE_LINE}\n`;
  em.admin.editDocument(doc.dentryUuid, edited);
}

/** Best effort: a browser on the desktop; silently nothing on a server. */
function openInBrowser(url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

async function documentUrls(session: Session): Promise<{ path: string; url: string }[]> {
  return withReadOnlyLedger(session, async (ledger) => (ledger?.documents.allSummaries() ?? []).map((s) => ({ path: s.path, url: s.url })).sort((a, b) => a.path.localeCompare(b.path)));
}

async function tour(em: RunningEmulator, dir: string, flags: Flags): Promise<SyncReport[]> {
  const notes = path.join(dir, 'notes');
  await fsp.cp(EXAMPLES, notes, { recursive: true });
  // The demo's own environment: a user's KBSYNC_* settings for a real service must not redirect it.
  const env = { HOME: invocation().env['HOME'], KBSYNC_TOKEN: em.seed.token };
  const { configPath } = await writeNewConfig(
    dir,
    { root: './notes', workspaceId: em.seed.workspaceId, service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } },
    { force: false },
  );
  const session = await openSession({ config: configPath ?? undefined, quiet: true, env, cwd: dir });
  say(`kbsync demo: a sandbox knowledge base (the built-in emulator) at ${em.seed.baseUrl}`);
  say(`Notes folder: ${notes} (a copy of examples/demo-notes)`);
  say();
  say('1. First sync: each Markdown file becomes a document in the knowledge base.');
  const first = await syncAndPrint(session, 'two-way', indent);

  say();
  say('2. Meanwhile, on both sides:');
  const before = await fsp.readFile(path.join(notes, CHECKLIST), 'utf8');
  colleagueEdits(em);
  indent(`Grace edits "Release checklist" in the web editor: adds "${COLLEAGUE_LINE}"`);
  await fsp.appendFile(path.join(notes, LOCAL_EDIT), '\nEdited in my own editor during the demo: this paragraph goes up.\n');
  indent(`you edit ${LOCAL_EDIT} in your editor: add a paragraph at the end`);

  say();
  say('3. Second sync: both edits arrive, nothing is lost.');
  const second = await syncAndPrint(session, 'two-way', indent);
  const after = await fsp.readFile(path.join(notes, CHECKLIST), 'utf8');
  say(`   ${CHECKLIST} now has:`);
  for (const line of addedLines(before, after)) indent(`+ ${line}`);

  say();
  say('4. Open them in a browser (read-only pages served by the emulator):');
  const workspaceUrl = em.seed.workspaceUrl;
  indent(`workspace  ${workspaceUrl}`);
  for (const doc of await documentUrls(session)) indent(`${doc.path.padEnd(28)} ${doc.url}`);
  if (invocation().stdout.isTTY && flags.open) openInBrowser(workspaceUrl);
  return [first, second];
}

async function run(flags: Flags): Promise<void> {
  const keep = Boolean(flags.keep);
  const dir = await demoFolder(keep);
  const { startEmulator } = await import('../../emulator/index.js');
  const em = await startEmulator();
  try {
    const reports = await tour(em, dir, flags);
    say();
    if (keep) say(`The folder stays: ${dir}`);
    if (invocation().stdin.isTTY && invocation().stdout.isTTY) {
      say('The emulator keeps running so you can browse and edit; press Ctrl+C to stop it.');
      if (keep) say(`In another terminal: cd ${shellQuote(dir)} && KBSYNC_TOKEN=${em.seed.token} ${selfCommand()} status`);
      await waitForStopSignal();
    } else {
      say('Not at a terminal, so the demo ends here and stops the emulator.');
    }
    const kbsync = selfCommand();
    say(`Next: \`${kbsync} emulator\` for a sandbox that keeps running, then \`${kbsync} init\` and \`${kbsync} sync\` (see README.md).`);
    invocation().exitCode = reports.every(fullySynced) ? ExitCode.ok : ExitCode.partial;
  } finally {
    await em.close();
    if (!keep) await fsp.rm(dir, { recursive: true, force: true });
  }
}

export const demoCommand: CliCommand = {
  name: 'demo',
  register(program: Command) {
    program
      .command('demo')
      .description('See kbsync work end to end on the built-in emulator: sync example notes, edit on both sides, sync again.')
      .option('--keep', 'work in ./kbsync-demo and keep it afterwards (default: a temporary folder, removed at the end)')
      .option('--no-open', 'do not open the workspace page in a browser')
      .addHelpText(
        'after',
        `
Needs nothing but this package: no account, no token, no network beyond 127.0.0.1. At a terminal the
emulator keeps running until Ctrl+C so you can open the printed pages; elsewhere (CI) the demo ends by itself.

Examples:
  kbsync demo
  kbsync demo --keep --no-open         keep ./kbsync-demo to look at the files afterwards
  npm run demo                         the same, after building`,
      )
      .action(run);
  },
};
