import type { KbClient } from '../../api/index.js';
import { SafetyError } from '../../errors.js';
import type { DocumentSummary, Ledger, Release } from '../../ledger/index.js';
import { scanLocal, type LocalScan } from '../../local/index.js';
import { asCreationNodeId, asDocKey, asTreeNodeId, type TreeNodeId, type WorkspaceId } from '../../model/ids.js';
import type { RemoteStateStore, LoadedState } from '../../remote-state/store.js';
import { explainsFound, type SharedState, type StateEntry } from '../../remote-state/state.js';
import { HELD_REASONS, type HeldCode, type HeldState } from '../decide/held.js';
import { plan } from '../decide/plan.js';
import type { LocalEntry, Plan, RecordEntry, RemoteSnapshot } from '../decide/types.js';
import type { SentImage } from '../../images/types.js';
import { observeLocal, readChanged, stillOnDisk, type LocalObservation } from './observe-local.js';
import { observeRemote } from './observe-remote.js';
import { readRows, readsNarrow, recordedRows, settlePlace } from './recorded.js';
import { stateSeenKey, stateUnchanged } from '../state/seen.js';
import { movedAway, renamedElsewhere, replacementsOf, sharedRecords, supersededListed, usableState } from './shared-entries.js';
import { witnessRenamed } from './rename-witness.js';
import { renameTexts } from './rename-texts.js';
import type { ObserveOptions } from './options.js';
import { treeFingerprint } from './settled-tree.js';
import { interruptedPulls } from '../run/interrupted.js';
import { dialectOwed } from '../content/dialect-switch.js';
import { listNext } from '../state/list-next.js';
import { packageVersion } from '../../package-root.js';
import { decodeSentImages } from '../../images/sent.js';
import { useMarkdownDialect } from '../../markdown/parse.js';

export type { ObserveOptions, ObservePhase } from './options.js';

export type Observation = {
  readonly scan: LocalScan;
  readonly local: LocalObservation;
  readonly summaries: ReadonlyMap<string, DocumentSummary>;
  readonly records: ReadonlyMap<string, RecordEntry>;
  /** Recorded files planned as nothing to do without their records (PlanInput.settled): not in `summaries` or `records`. */
  readonly settled: ReadonlySet<string>;
  readonly remote: RemoteSnapshot | undefined;
  /** The knowledge base's shared state, read with the listing (undefined: not listed this run). */
  readonly shared: LoadedState | undefined;
  /** The listed index documents when the state was read: the run remembers them, and reads it next only when they change. */
  readonly stateSeen?: string;
  /** The plan paired files from the shared state's entries (files this ledger has no row for). */
  readonly sharedUsed?: boolean;
  readonly plan: Plan;
  /** The releases the ledger held (kbsync resolve --mine / --theirs); the plan says which it honours. */
  readonly releases: readonly Release[];
  /**
   * The scan's fingerprint (settled-tree.ts) when every file was settled and every row's file was there: a
   * run that then plans and does nothing records it, and the next push with the same scan plans nothing again
   * without reading a row.
   */
  readonly settledTree?: { readonly fingerprint: string; readonly recorded: boolean };
  /** Recorded files whose documents hold what another dialect sent (dialect-switch.ts): their push sends the body even if the service's reading agrees. */
  readonly dialectOwed?: ReadonlySet<string>;
};

/**
 * Steps 1 and 2 of every run: observe both sides and decide, in the pure planner, against the ledger.
 * It writes nothing, so `sync`, `status` and `diff` (on a read-only ledger, or none yet) share it and
 * always agree on what a sync would do.
 */
export async function observeAndPlan(
  deps: {
    readonly client: KbClient;
    readonly ledger: Ledger | undefined;
    readonly rootId: () => Promise<TreeNodeId>;
    readonly store: (rootId: TreeNodeId) => RemoteStateStore;
    /** Did an image a document was sent with change (src/images)? Its file is then changed too, though its text is not. */
    readonly imagesStale?: (sent: readonly SentImage[]) => boolean;
  },
  options: ObserveOptions,
): Promise<Observation> {
  const { client, ledger } = deps;
  // Before the first file is read: a vault's titles, outlines and links read its wiki syntax.
  useMarkdownDialect(options.vault ? 'wiki' : 'gfm');
  options.onPhase?.({ step: 'scanning' });
  const scan = await (options.scanner ?? scanLocal)(options.root, {
    stateDir: options.stateDir,
    ...(options.include ? { include: options.include } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  });
  const narrow = readsNarrow(ledger, options.listRemote);
  // Worked out only where it can be taken or recorded: not on every cycle of the daemon, which never settles.
  const fingerprint = narrow && options.settledTree ? treeFingerprint(scan, options, packageVersion()) : undefined;
  if (fingerprint !== undefined && ledger?.settledTree.get() === fingerprint) return settledTreeObservation(scan, fingerprint);
  // A person's answers to holds (a release drops the settled tree, so a tree taken as settled has none).
  const releases = ledger?.releases.all() ?? [];
  // Built with loops, not spread and map: a no-op of a large tree builds these for every file on every run.
  const rows = readRows(ledger, narrow);
  // Files whose documents hold what another dialect sent: taken as changed, and sent again (a pull sends nothing).
  const owed = options.mode === 'pull' ? new Set<string>() : dialectOwed(ledger, options.vault, scan.root, rows.stats.keys());
  const knownFolders = ledger?.folders.all() ?? [];
  // The daemon's local cycle works out again only the files and rows that changed since its last one (local-baseline.ts).
  const baseline = ledger && rows.full && options.baselines && options.listRemote === 'if-needed' ? options.baselines.baseline(ledger, scan, rows.full, settlePlace(options.layout, knownFolders)) : undefined;
  const local = baseline ? await readChanged(scan.root, baseline.matched, baseline.unmatched, rows.stats) : await observeLocal(scan, rows.stats);
  for (const path of owed) {
    const entry = local.entries.get(path);
    if (entry) local.entries.set(path, { ...entry, sendChanged: true });
  }
  const seen = baseline?.seen ?? pathsOf(scan.files);
  const unseen = baseline?.unseen ?? unseenOf(rows.stats.keys(), seen);
  const ignored = await stillOnDisk(scan.root, unseen);

  // Only a file read can be one the ledger has no row for (a matched file's stat is its row's).
  let hasUnrecorded = false;
  for (const path of baseline ? baseline.unmatched.map((file) => file.path) : local.entries.keys()) if (local.entries.has(path) && !rows.stats.has(path)) hasUnrecorded = true;
  const list = options.listRemote === 'always' || (options.listRemote === 'if-needed' && (hasUnrecorded || listNext(ledger)));
  const rootId = list ? await deps.rootId() : undefined;
  const { summaries, settled } = recordedRows(ledger, rows, scan, {
    // Only a run that could have listed and found it need not (a push, the daemon's local cycle): an offline
    // status ('never') shows every row.
    settle: options.listRemote === 'if-needed' && !list && !hasUnrecorded,
    layout: options.layout,
    folders: knownFolders,
    ...(releases.length > 0 || owed.size > 0 ? { unsettled: new Set([...releases.map((release) => release.path), ...owed]) } : {}),
    ...(baseline ? { baseline } : {}),
  });
  const records = new Map<string, RecordEntry>();
  /** Documents whose file is left out of this run: their remote side must not look new (it would be pulled over the file). */
  const leftAlone = new Set<string>();
  for (const summary of summaries.values()) {
    // Unusable, newly ignored and unreached files prove nothing (rule 4): their documents are left alone this time.
    if (local.excluded.has(summary.path) || ignored.has(summary.path) || (!scan.complete && !seen.has(summary.path))) {
      leftAlone.add(summary.docKey);
      continue;
    }
    records.set(summary.path, recordEntryOf(summary));
  }
  // The ledger's folders (and the root) are what the last run listed: the best guess of this listing's length.
  const expected = summaries.size > 0 ? knownFolders.length + 1 : undefined;
  if (rootId) options.onPhase?.({ step: 'listing', folders: 0, expected });
  const listed = rootId
    ? await observeRemote(
        client,
        rootId,
        options.layout,
        {
          docPaths: new Map([...summaries.values()].map((s) => [s.docKey, s.path])),
          folderPaths: new Map(knownFolders.map((f) => [f.treeNodeId, f.path])),
        },
        options.onPhase && ((folders) => options.onPhase?.({ step: 'listing', folders, expected })),
      )
    : undefined;
  // The shared state (what every machine knows of which file is which document) is read when this ledger
  // cannot pair everything on its own (no ledger, new files, documents it does not know or no longer sees),
  // and by every run that lists the whole tree anyway: it learns the renames of other machines.
  let shared: LoadedState | undefined;
  let stateSeen: string | undefined;
  const store = rootId && listed ? deps.store(rootId) : undefined;
  if (store && rootId && listed) {
    store.seen(listed.state?.folderId);
    const known = new Set([...summaries.values()].map((s) => s.docKey as string));
    // A run that may pull reads it whenever it changed (one listing of its folder tells): another machine's
    // version of a file shows there (a change of its front matter, or inside code, reads the same in the
    // document), and a two-way run takes it in.
    stateSeen = options.mode !== 'push' && listed.state ? await store.indexFingerprint() : undefined;
    const needed =
      (stateSeen !== undefined && !stateUnchanged(ledger?.meta.get(stateSeenKey(rootId)), stateSeen, client.serverTime() ?? new Date())) ||
      // A run that lists everything learns other machines' renames, but only a changed index can hold new ones.
      (options.listRemote === 'always' && stateSeen === undefined) ||
      summaries.size === 0 ||
      hasUnrecorded ||
      [...listed.docs.keys()].some((docKey) => !known.has(docKey)) ||
      [...known].some((docKey) => !listed.docs.has(asDocKey(docKey)));
    // Read once a run: a run that read it before it read a file (the team's settings, state/team.ts) plans from that read.
    if (needed && listed.state) shared = store.loaded ?? (await store.load());
  }
  // Old documents of moved files that an interrupted run promised to delete are deleted before this run acts: never new files.
  for (const retirement of ledger?.retirements.all() ?? []) leftAlone.add(retirement.docKey);
  // What of the shared state this run may plan with (paths it would sync; creation ids only when authenticated).
  const usable = shared ? usableState(shared, options) : undefined;
  // So are the documents the state pairs with files this run could not use or reach: without a ledger (a CI
  // checkout) nothing else keeps them from reading as deleted here (an invalid front matter deleted its document).
  for (const entry of usable?.entries.values() ?? []) if (local.excluded.has(entry.p) || (!scan.complete && !seen.has(entry.p))) leftAlone.add(entry.k);
  // An old document another writer replaced, whose delete is still to come, is gone already for a run that may
  // follow it, unless a file paired with it is gone from its path here: then this run finishes that move (a CI
  // job killed between the new document's create and the old one's delete has no ledger that promised it).
  if (usable && listed && options.mode !== 'push') {
    const movedHere = new Set<string>();
    for (const entry of usable.entries.values()) if (!seen.has(entry.p)) movedHere.add(entry.k);
    for (const summary of summaries.values()) if (!seen.has(summary.path)) movedHere.add(summary.docKey);
    for (const docKey of supersededListed(usable, listed, shared?.authenticated === true)) if (!movedHere.has(docKey)) leftAlone.add(docKey);
  }
  const remote = listed && leftAlone.size > 0 ? { ...listed, docs: new Map([...listed.docs].filter(([docKey]) => !leftAlone.has(docKey))) } : listed;
  const renamed = shared && usable && store ? renamedElsewhere(usable, summaries, store.clock.writer) : undefined;
  // A creation nodeId the ledger lacks (a document another machine created) is learnt from the shared state.
  if (usable) for (const [path, record] of records) if (record.nodeId === null && usable.nodeIds.has(record.docKey)) records.set(path, withNodeId(record, usable.nodeIds.get(record.docKey) as string));

  const folderIds = new Map<string, TreeNodeId>();
  if (remote) {
    folderIds.set('', remote.rootId);
    for (const folder of remote.folders) folderIds.set(folder.localPath, folder.treeNodeId);
  }
  for (const folder of knownFolders) folderIds.set(folder.path, folder.treeNodeId);
  const copies = new Set(scan.conflictCopies.map((copy) => copy.path));
  const replaced = usable && remote ? replacementsOf(usable, remote, records, summaries, local.entries) : undefined;
  const gone = usable && remote ? movedAway(usable, remote, records) : undefined;
  const sharedByPath = usable && remote ? sharedRecords(usable, remote, summaries, local.entries) : undefined;
  if (sharedByPath && remote && !shared?.authenticated) await witnessRenamed(client, sharedByPath, local.entries, remote, options.layout);
  if (deps.imagesStale) markImagesChanged(local.entries, [...records.values(), ...(sharedByPath?.values() ?? [])], deps.imagesStale);
  const texts = await renameTexts({ ledger, store }, records, sharedByPath, local);
  const pulls = interruptedPulls(ledger?.intents.open() ?? [], local.entries, rows.stats);
  const planned = plan({
    mode: options.mode,
    local: local.entries,
    records,
    remote,
    localFolders: new Set(scan.folders),
    recordedFolders: new Set(knownFolders.map((f) => f.path)),
    folderIds,
    openConflicts: new Set([...summaries.values()].filter((s) => s.conflict && s.conflictPath !== null && copies.has(s.conflictPath)).map((s) => s.path)),
    unconfirmedCreates: unconfirmedCreates(ledger, local.entries),
    ...(texts ? { renameTexts: texts } : {}),
    ...(pulls.size > 0 ? { interruptedPulls: pulls } : {}),
    ...(settled.size > 0 ? { settled } : {}),
    ...(sharedByPath ? { shared: sharedByPath, stateless: summaries.size === 0, ...(shared?.authenticated ? {} : { sharedUnverified: true as const }) } : {}),
    ...(shared ? { republished: republished(shared.state, records, summaries) } : {}),
    ...(renamed && renamed.size > 0 ? { renamedElsewhere: renamed } : {}),
    ...(replaced && replaced.size > 0 ? { replaced } : {}),
    ...(gone && gone.size > 0 ? { movedAway: gone } : {}),
    occupied: new Set([...scan.skipped.map((s) => s.path), ...scan.conflictCopies.map((c) => c.path)].filter((path) => /\.md$/i.test(path))),
    layout: options.layout,
    guards: options.guards,
    ...(options.retitle ? { retitle: true } : {}),
    ...(options.deferDeletes ? { deferDeletes: options.deferDeletes } : {}),
    ...(releases.length > 0 ? { releases: new Map(releases.map((release) => [release.path, release])) } : {}),
  });
  // What the run and its previews see as records: the ledger's, and the shared state's for files here.
  const recordsHere = sharedByPath && sharedByPath.size > 0 ? new Map(records) : records;
  for (const [path, record] of sharedByPath ?? []) if (local.entries.has(path) && !recordsHere.has(path)) recordsHere.set(path, record);
  const everySettled = settled.size === scan.files.length && rows.stats.size === settled.size && local.problems.length === 0 && local.excluded.size === 0;
  return {
    scan,
    local,
    summaries,
    records: recordsHere,
    settled,
    remote,
    shared,
    ...(stateSeen !== undefined ? { stateSeen } : {}),
    ...(sharedByPath && sharedByPath.size > 0 ? { sharedUsed: true } : {}),
    plan: planned,
    releases,
    ...(fingerprint !== undefined && everySettled ? { settledTree: { fingerprint, recorded: false } } : {}),
    ...(owed.size > 0 ? { dialectOwed: owed } : {}),
  };
}

function pathsOf(files: readonly { readonly path: string }[]): Set<string> {
  const paths = new Set<string>();
  for (const file of files) paths.add(file.path);
  return paths;
}

function unseenOf(recorded: Iterable<string>, seen: ReadonlySet<string>): string[] {
  const unseen: string[] = [];
  for (const path of recorded) if (!seen.has(path)) unseen.push(path);
  return unseen;
}

/**
 * The observation of a tree the ledger holds as settled (its fingerprint matched): every file settled, no
 * record to plan, and the empty plan the run that recorded the fingerprint made from the same scan, options
 * and ledger. No row is read, and no entry is built per file.
 */
function settledTreeObservation(scan: LocalScan, fingerprint: string): Observation {
  const settled = new Set<string>();
  for (const file of scan.files) settled.add(file.path);
  return {
    scan,
    local: { entries: new Map(), texts: new Map(), problems: [], excluded: new Set(), unpublished: new Set(), touched: [], notices: [] },
    summaries: new Map(),
    records: new Map(),
    settled,
    remote: undefined,
    shared: undefined,
    plan: { actions: [], pending: [], notices: [], refusal: undefined },
    releases: [],
    settledTree: { fingerprint, recorded: true },
  };
}

/**
 * Records whose document another kbsync writer published a version of since (the shared state's entry for it
 * names another source), or whose hidden edit, found here, that writer's exact record of the very blocks accounts
 * for: a run that may pull reads that document once, and takes the other version in, or lets the edit go
 * (decide/body.ts explainsHidden). Convergence soak 734: a new page's first body landed a minute after its
 * announcement and was read before its record came; once the record came, neither the file nor the listing
 * changed, no run looked again, and the page was held for good.
 */
function republished(state: SharedState, records: ReadonlyMap<string, RecordEntry>, summaries: ReadonlyMap<string, DocumentSummary>): Set<string> {
  const byKey = new Map<string, StateEntry>();
  for (const entry of state.entries.values()) byKey.set(entry.k, entry);
  const out = new Set<string>();
  for (const record of records.values()) {
    const entry = byKey.get(record.docKey);
    if (entry === undefined || record.shared) continue;
    const row = summaries.get(record.path);
    const explained = row?.inexactHidden === true && explainsFound(entry, { docKey: row.docKey, path: row.path, remoteBlocksHash: row.remoteBlocksHash, modifiedTime: row.remoteModifiedTime });
    if (entry.h !== record.localHash || explained) out.add(record.path);
  }
  return out;
}

/** Files unchanged since their last sync whose images changed: changed, for the planner (their document is sent again). */
function markImagesChanged(entries: Map<string, LocalEntry>, records: Iterable<RecordEntry>, stale: (sent: readonly SentImage[]) => boolean): void {
  for (const record of records) {
    const entry = entries.get(record.path);
    if (entry && record.images && record.images.length > 0 && entry.hash === record.localHash && stale(record.images)) entries.set(record.path, { ...entry, sendChanged: true });
  }
}

/** Creates of files still here whose answer never came (open, or abandoned after a lost answer): their documents may exist. */
function unconfirmedCreates(ledger: Ledger | undefined, present: { has(path: string): boolean }): { path: string; parentId: TreeNodeId; title: string }[] {
  if (!ledger) return [];
  return ledger.intents.unfinished('create').flatMap((intent) => {
    const payload = intent.payload as { readonly title?: unknown; readonly parentId?: unknown } | null;
    if (!present.has(intent.subject)) return [];
    if (typeof payload?.title !== 'string' || typeof payload.parentId !== 'string') return [];
    return [{ path: intent.subject, parentId: asTreeNodeId(payload.parentId), title: payload.title }];
  });
}

const withNodeId = (record: RecordEntry, nodeId: string): RecordEntry => ({ ...record, nodeId: asCreationNodeId(nodeId), origin: 'created' });

export function recordEntryOf(summary: DocumentSummary): RecordEntry {
  return {
    path: summary.path,
    docKey: summary.docKey,
    nodeId: summary.nodeId,
    treeNodeId: summary.treeNodeId,
    parentTreeNodeId: summary.parentTreeNodeId,
    localHash: summary.localHash,
    ino: summary.statIno,
    remoteTitle: summary.remoteTitle,
    remoteModifiedTime: summary.remoteModifiedTime,
    remoteBlocksHash: summary.remoteBlocksHash,
    recheck: summary.recheck,
    origin: summary.origin,
    held: heldStateOf(summary),
    ...(summary.imagesSent ? { images: decodeSentImages(summary.imagesSent) } : {}),
  };
}

/** The hold recorded in the ledger, if its code is one this kbsync knows (an unknown one is decided afresh). */
function heldStateOf(summary: DocumentSummary): HeldState | null {
  const code = summary.heldCode;
  if (code === null || !(code in HELD_REASONS)) return null;
  return { code: code as HeldCode, message: HELD_REASONS[code as HeldCode], localHash: summary.heldLocalHash ?? '', remoteModifiedTime: summary.heldRemoteTime ?? '' };
}

const rootKey = (workspaceId: WorkspaceId): string => `rootNodeId:${workspaceId}`;

/** Ledger meta key: the state's index documents as last read under a root (see RemoteStateStore.indexFingerprint). */

/**
 * The remote folder synced with the root: configured, or the workspace's root node (asked once; with
 * `remember` it is kept in the ledger, so a no-op push makes no call at all).
 */
/** The synced root as configured or as the ledger remembers it, without a call (undefined: it would take one). */
export function knownRoot(ledger: Ledger | undefined, options: { readonly workspaceId: WorkspaceId; readonly remoteFolder?: TreeNodeId | undefined }): TreeNodeId | undefined {
  if (options.remoteFolder) return options.remoteFolder;
  const cached = ledger?.meta.get(rootKey(options.workspaceId));
  return typeof cached === 'string' && cached !== '' ? asTreeNodeId(cached) : undefined;
}

export async function workspaceRoot(
  client: KbClient,
  ledger: Ledger | undefined,
  options: { readonly workspaceId: WorkspaceId; readonly remoteFolder?: TreeNodeId | undefined },
  remember: boolean,
): Promise<TreeNodeId> {
  const known = knownRoot(ledger, options);
  if (known) return known;
  const { rootNodeId, name } = await client.getWorkspace(options.workspaceId);
  if (remember) {
    ledger?.meta.set(rootKey(options.workspaceId), rootNodeId);
    ledger?.meta.set(nameKey(options.workspaceId), name);
  }
  return rootNodeId;
}

const nameKey = (workspaceId: WorkspaceId): string => `workspaceName:${workspaceId}`;

/** The workspace's name: as the ledger knows it, else asked once (one call) and remembered. */
export async function workspaceName(client: KbClient, ledger: Ledger, workspaceId: WorkspaceId): Promise<string> {
  const known = knownWorkspaceName(ledger, workspaceId);
  if (known !== undefined) return known;
  const { name } = await client.getWorkspace(workspaceId);
  ledger.meta.set(nameKey(workspaceId), name);
  return name;
}

/** The workspace's name as the ledger last learnt it (undefined: not known yet), so it is named without a call. */
export function knownWorkspaceName(ledger: Ledger | undefined, workspaceId: WorkspaceId): string | undefined {
  const name = ledger?.meta.get(nameKey(workspaceId));
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The workspace as a person knows it: `"Team Docs" (ws-…)`, or its id alone while its name is unknown. The
 * name comes from the service: control characters go and it is cut short, so it cannot garble a terminal.
 */
export function workspaceLabel(workspaceId: string, name: string | undefined): string {
  if (name === undefined) return `workspace ${workspaceId}`;
  const shown = name.replace(/\p{Cc}/gu, ' ');
  return `"${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}" (${workspaceId})`;
}

/**
 * A folder synced with one workspace must not silently switch to another: every document would look
 * deleted. With `remember`, a ledger with no documents yet takes the configured workspace as its own.
 */
export function assertSameWorkspace(ledger: Ledger | undefined, workspaceId: WorkspaceId, remember: boolean): void {
  if (!ledger) return;
  const recorded = ledger.meta.get('workspaceId');
  if (recorded === undefined || ledger.documents.count() === 0) {
    if (remember) ledger.meta.set('workspaceId', workspaceId);
    return;
  }
  if (recorded !== workspaceId) {
    throw new SafetyError(
      'WORKSPACE_CHANGED',
      `This folder was synced with workspace ${String(recorded)}, but the config now names ${workspaceId}. Nothing was done.`,
      { hint: 'Put the workspaceId back, or sync the other workspace into a new folder (or move the state folder aside to start over).' },
    );
  }
}
