import type { Command } from 'commander';
import { STATE_FOLDER, RemoteStateStore } from '../../remote-state/store.js';
import { redactValue } from '../../secrets.js';
import { workspaceRoot } from '../../sync/observe/observe.js';
import { rewriteState } from '../../sync/rewrite-state.js';
import type { CliCommand } from '../command.js';
import { withReadOnlyLedger } from '../read-only.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from '../session.js';

type Flags = { readonly config?: string; readonly json?: boolean };

/** What `kbsync state --json` prints. */
export type StateReport = {
  readonly folder: string;
  /** `chars`: null for a sources document, which `kbsync state` does not read (only the index is read). */
  readonly documents: readonly { readonly title: string; readonly family: string; readonly chars: number | null }[];
  readonly entries: number;
  readonly indexChars: number;
  readonly damaged: readonly string[];
};

async function storeOf(session: Session, ledger: Parameters<typeof workspaceRoot>[1]): Promise<RemoteStateStore> {
  const options = syncOptionsOf(session.config, { mode: 'two-way', dryRun: true, force: false });
  const rootId = await workspaceRoot(session.client, ledger, options, false);
  return new RemoteStateStore({ client: session.client, workspaceId: options.workspaceId, rootId, logger: session.logger });
}

async function show(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const report = await withReadOnlyLedger(session, async (ledger) => {
    const inspected = await (await storeOf(session, ledger)).inspect();
    return {
      folder: STATE_FOLDER,
      documents: inspected.docs.map((doc) => ({ title: doc.title, family: doc.family, chars: doc.family === 'state' ? doc.chars : null })),
      entries: inspected.state.entries.size,
      indexChars: inspected.chars,
      damaged: inspected.damaged,
    } satisfies StateReport;
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(redactValue(report))}\n`);
    return;
  }
  console.log(`kbsync's state lives in the knowledge base, in the folder ${STATE_FOLDER} at the synced root: ${report.documents.length} document(s).`);
  for (const doc of report.documents) console.log(`  ${doc.title}  ${doc.chars === null ? "sources (not read here: they are read only when a file's text is needed)" : `index, ${doc.chars} characters`}`);
  console.log(`${report.entries} file(s) recorded; the index (read by runs that need it) holds ${report.indexChars} characters.`);
  if (report.damaged.length > 0) {
    console.log(`Damaged (edited by hand?): ${report.damaged.join(', ')}. Run \`kbsync state rewrite\` on a machine whose ledger is intact.`);
    process.exitCode = 1;
  }
}

async function rewrite(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const ledger = openSyncLedger(session);
  try {
    const done = await rewriteState(ledger, await storeOf(session, ledger));
    const summary = { entries: done.entries, sources: done.sources, superseded: done.damaged };
    if (flags.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      console.log(`Wrote kbsync's state anew: ${done.entries} file(s), ${done.sources} source(s), from this machine's ledger and the readable part of the old state.`);
      if (done.damaged.length > 0) console.log(`The damaged documents (${done.damaged.join(', ')}) are superseded and no longer read.`);
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

Examples:
  kbsync state                 where it lives, its size, and whether it is damaged
  kbsync state rewrite         after "REMOTE_STATE_DAMAGED": write it anew from this machine's ledger`,
      )
      .action(show);
    state
      .command('rewrite')
      .description("Write the shared state anew from this machine's ledger; damaged state documents are superseded and never read again.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable summary on stdout')
      .action(rewrite);
  },
};
