import type { Command } from 'commander';
import type { Ledger } from '../../ledger/index.js';
import { describeJunk, hasJunk, type StateJunk } from '../../remote-state/junk.js';
import { STATE_FOLDER, type RemoteStateStore } from '../../remote-state/store.js';
import { redactValue } from '../../secrets.js';
import { workspaceRoot } from '../../sync/observe/observe.js';
import { unpublishedPaths } from '../../sync/state/publish.js';
import { rewriteState } from '../../sync/state/rewrite.js';
import { openStateStore } from '../../sync/state/store.js';
import { describeTeam, followTeam, teamOf } from '../../sync/state/team.js';
import { keyFingerprint } from '../../remote-state/token.js';
import type { CliCommand } from '../command.js';
import { withReadOnlyLedger } from '../read-only.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from '../session.js';
import { invocation } from '../../invocation.js';
import { terminal } from '../../terminal.js';

type Flags = { readonly config?: string; readonly json?: boolean };

/** What `kbsync state --json` prints. */
export type StateReport = {
  readonly folder: string;
  /** `chars`: null for a sources document, which `kbsync state` does not read (only the index is read). */
  readonly documents: readonly { readonly title: string; readonly family: string; readonly chars: number | null; readonly retired: boolean }[];
  readonly entries: number;
  readonly indexChars: number;
  /** Read with the team's key (every record used was verified). */
  readonly authenticated: boolean;
  /** What the state holds that was left out (not whole, not verified, out of bounds, not read). */
  readonly junk: StateJunk;
  /** Files this machine's ledger knows that the state lacks or holds an older record of (the next sync publishes them). */
  readonly stale: readonly string[];
};

/** The store of the folder's state, with this machine's key; `adopting`: written anew with it (rewrite), which an unsigned state does not refuse. */
async function storeOf(session: Session, ledger: Ledger | undefined, adopting = false): Promise<RemoteStateStore> {
  const options = syncOptionsOf(session.config, { mode: 'two-way', dryRun: true, force: false });
  const rootId = await workspaceRoot(session.client, ledger, options, false);
  const secret = await session.stateKey.get();
  return openStateStore({ client: session.client, ledger, logger: session.logger }, { workspaceId: options.workspaceId, rootId }, secret, { keySource: session.stateKey.description, adopting });
}

async function show(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const report = await withReadOnlyLedger(session, async (ledger) => {
    const loaded = await (await storeOf(session, ledger)).load();
    return {
      folder: STATE_FOLDER,
      documents: loaded.docs.map((doc) => ({ title: doc.title, family: doc.family, chars: doc.family === 'state' ? doc.chars : null, retired: loaded.state.retired.has(doc.docKey) })),
      entries: loaded.state.entries.size,
      indexChars: loaded.chars,
      authenticated: loaded.authenticated,
      junk: loaded.junk,
      stale: ledger ? unpublishedPaths(ledger, loaded) : [],
    } satisfies StateReport;
  });
  if (flags.json) {
    invocation().stdout.write(`${JSON.stringify(redactValue(report))}\n`);
  } else {
    terminal.out(`kbsync's state lives in the knowledge base, in the folder ${STATE_FOLDER} at the synced root: ${report.documents.length} document(s).`);
    for (const doc of report.documents) terminal.out(`  ${doc.title}  ${doc.chars === null ? "sources (not read here: they are read only when a file's text is needed)" : `index, ${doc.chars} characters`}${doc.retired ? ' (retired by a compaction: deleted soon)' : ''}`);
    terminal.out(`${report.entries} file(s) recorded; the index (read by runs that need it) holds ${report.indexChars} characters.`);
    terminal.out(
      report.authenticated
        ? "Authenticated: only records signed with the team's state key were read."
        : "Not authenticated: this machine has no state key (state.key), so the state's records are used only where a forged one can do no harm; kbsync deletes nothing on their word.",
    );
    if (hasJunk(report.junk)) terminal.out(describeJunk(report.junk));
    if (report.stale.length > 0) {
      const shown = report.stale.slice(0, 10).join(', ');
      terminal.out(`Stale: the state lacks, or holds an older record of, ${report.stale.length} file(s) this machine's ledger knows (${shown}${report.stale.length > 10 ? ', ...' : ''}); the next sync publishes them.`);
    }
  }
  if (hasJunk(report.junk) || report.stale.length > 0) invocation().exitCode = 1;
}

async function rewrite(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const ledger = openSyncLedger(session);
  try {
    const store = await storeOf(session, ledger, true);
    const options = syncOptionsOf(session.config, { mode: 'two-way', dryRun: false, force: false });
    const secret = await session.stateKey.get();
    const done = await rewriteState(ledger, store, (held) => ({ ...held, t: 'team', ...teamOf(followTeam(options, held), secret ? keyFingerprint(secret) : null) }));
    const summary = { entries: done.entries, sources: done.sources, leftOut: done.junk ?? null };
    if (flags.json) invocation().stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      terminal.out(`Wrote kbsync's state anew: ${done.entries} file(s), ${done.sources} source(s), from this machine's ledger and the verified part of the old state.`);
      terminal.out(`Every machine now reads the folder with ${describeTeam(done.team)}.`);
      terminal.out('The old state documents are retired: the first sync after ten minutes deletes them (what was appended to them meanwhile is kept).');
      if (done.junk) terminal.out(`Left out of the new state: ${done.junk}`);
    }
  } finally {
    ledger.close();
  }
}

export const stateCommand: CliCommand = {
  name: 'state',
  register(program: Command) {
    const state = program
      .command('state')
      .description(`Show kbsync's state kept in the knowledge base (the ${STATE_FOLDER} folder), or write it anew (rewrite).`)
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable report on stdout')
      .addHelpText(
        'after',
        `
Every workstation and CI run shares this state: which file is which document, the ids the service gives
only when a document is created (needed to delete it), and each file's Markdown as last synced (so another
machine gets the files back exactly). It is read when a run needs it and written only when it changed.
With the team's state key (state.key, default KBSYNC_STATE_KEY) every record is signed and verified.

Exits 1 when the state holds something left out (not kbsync's, not verified, damaged) or lacks what this
machine's ledger knows.

Examples:
  kbsync state                 where it lives, its size, what was left out, what is stale
  kbsync state rewrite         write it anew from this machine's ledger (after STATE_JUNK, or to adopt a key)`,
      )
      .action(show);
    state
      .command('rewrite')
      .description("Write the shared state anew from this machine's ledger and the verified part of the old state; the old documents are retired.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable summary on stdout')
      .action(rewrite);
  },
};
