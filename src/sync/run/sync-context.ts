import type { Linker } from '../../links/index.js';
import { ScannedFiles } from '../../local/index.js';
import type { SyncContext } from './context.js';
import { StateJournal } from '../state/journal.js';
import { FolderListings } from '../act/listed-again.js';
import type { Run } from './inputs.js';
import type { Observed } from './observe-phase.js';

/** The context every action of this run works with (context.ts), made once from what the run observed. */
export function syncContext(run: Run, observed: Observed, linker: Linker | undefined): SyncContext {
  const { deps, options } = run;
  const { client, ledger, logger } = deps;
  const { observation, rootId, store } = observed;
  const { scan, local, remote, plan: planned } = observation;
  // A push that starts with no synced document (a CI job's fresh checkout) keeps its intents in a ledger that is
  // thrown away with the checkout. (A first two-way sync is a workstation's: its ledger stays.)
  const ledgerless = options.mode === 'push' && ledger.documents.count() === 0;
  const serverNow = (): Date => client.serverTime() ?? new Date();
  return {
    root: scan.root,
    stateDir: options.stateDir,
    mode: options.mode,
    layout: options.layout,
    force: options.guards.force,
    webEdits: options.webEdits ?? 'merge',
    released: planned.released ?? new Map(),
    urlOf: options.mode !== 'pull' ? linker : undefined,
    client,
    ledger,
    logger,
    workspaceId: options.workspaceId,
    rootId,
    remote,
    texts: local.texts,
    scanned: new ScannedFiles(scan.files),
    listedAgain: new FolderListings(client, serverNow),
    folderPromises: new Map(),
    shared: observed.shared(),
    store,
    // Each new document's creation id goes to the shared state before anything depends on it; so does, in a
    // run that started without a ledger, what each write is about to make a document hold.
    announceWrites: ledgerless,
    journal: new StateJournal(async (records, sources) => store.publish(records, [...new Map(sources.map((source) => [source.hash, source])).values()].filter((source) => !store.hasSource(source.hash))), {
      ledgerKeepsIds: !ledgerless,
    }),
    stopping: () => options.signal?.aborted === true,
    now: deps.now ?? (() => new Date()),
    serverNow,
  };
}
