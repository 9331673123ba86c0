import { join } from 'node:path';
import type { KbClient } from '../../api/index.js';
import type { Ledger } from '../../ledger/index.js';
import { lstatOrNull, readTextFile } from '../../local/index.js';
import { silentLogger } from '../../log.js';
import type { RemoteStateStore, StateDoc } from '../../remote-state/store.js';
import { openStateStore } from '../state/store.js';
import { nodeOf, type AssessIO } from './assess.js';
import { sharedVersions } from '../state/published-version.js';
import { decideAll, type Previewed } from './decisions.js';
import type { SyncOptions } from '../engine.js';
import { pushRewriter } from '../content/run-links.js';
import { runLowering } from '../content/vault.js';
import { whyUnsynced } from '../content/unsynced.js';
import { imageReport, previewCache, runImages, sentBodies } from '../content/images.js';
import type { ImageProblem } from '../../images/types.js';
import type { UrlOfPath } from '../content/links.js';
import { assertSameWorkspace, knownRoot, observeAndPlan, workspaceRoot, type Observation } from '../observe/observe.js';
import { cachedTeam, followTeam, TeamSettings } from '../state/team.js';
import { keyFingerprint } from '../../remote-state/token.js';
import { listingFor } from '../observe/options.js';
import { neverPublished } from '../state/run.js';
import { createAttempts } from '../act/intent.js';

/**
 * Read-only queries over a synced folder for `kbsync status` and `kbsync diff`: the same observation,
 * planner and decisions as a sync, without a single write (no ledger row, no meta key, no file, no remote
 * change), so they work on a ledger opened read-only while the daemon holds its lock.
 */
type InspectOptions = Pick<SyncOptions, 'root' | 'stateDir' | 'workspaceId' | 'remoteFolder' | 'layout' | 'mode' | 'include' | 'exclude' | 'vault' | 'guards' | 'links' | 'site' | 'images' | 'stateKey' | 'webEdits' | 'explicit'> & {
  /** Do not call the service: remote states are 'unknown', and decisions that need a read are left as planned. */
  readonly offline: boolean;
};

/** What status and diff work from: exactly what a sync would observe, plan and decide. */
export type Inspection = Observation & {
  readonly decisions: readonly Previewed[] | undefined;
  /** The shared state's documents (listed when online): where it lives and its size, for `status`. */
  readonly stateDocs: readonly StateDoc[] | undefined;
  /** What a push does to a body on its way out, as the decisions saw it (undefined for a pull): previews use the same. */
  readonly urlOf: UrlOfPath | undefined;
  /** Made without calling the service: the remote side is unknown. (A push lists only what it must, so its remote side may be unknown too.) */
  readonly offline: boolean;
  /** Local images the knowledge base would not show, in the files a sync would send. */
  readonly images: readonly ImageProblem[];
};

/** Observes both sides like a sync does, plans and decides, changing nothing. `ledger` is undefined before the first sync. */
export async function inspect(deps: { readonly client: KbClient; readonly ledger: Ledger | undefined }, given: InspectOptions): Promise<Inspection> {
  const { client, ledger } = deps;
  assertSameWorkspace(ledger, given.workspaceId, false);
  // Verified with the team's key, as the run verifies it: a preview plans from the same records, and reads the
  // folder with the team's settings as the run does (those the ledger last saw offline).
  const { options, store } = given.offline ? { options: followTeam(given, offlineTeam(ledger, given)), store: undefined } : await followed(client, ledger, given);
  const seen: { records?: Observation['records'] } = {};
  const images = runImages(options.root, options, previewCache(ledger?.images), { sentBefore: (path) => seen.records?.get(path)?.images });
  // Asked for by a run that lists the service (never offline).
  let listed = false;
  const observation = await observeAndPlan(
    {
      client,
      ledger,
      rootId: () => workspaceRoot(client, ledger, options, false),
      store: () => ((listed = true), store as RemoteStateStore),
      imagesStale: (sent) => images.stale(sent),
    },
    { ...options, listRemote: options.offline ? 'never' : listingFor(options.mode, ledger !== undefined && neverPublished(ledger)) },
  );
  seen.records = observation.records;
  const lowering = runLowering(observation, options);
  const rewriter = pushRewriter(observation, ledger, { ...options, images, lower: lowering?.lower, unsynced: whyUnsynced(observation, options) });
  const urlOf = observation.dialectOwed ? rewriter?.resending(observation.dialectOwed) : rewriter;
  const decisions = options.offline || observation.plan.refusal ? undefined : await decideAll(readOnlyIO(deps, observation, options, store, urlOf), observation.plan.actions);
  const stateDocs = !listed || !store ? undefined : observation.remote?.state ? await store.documents() : [];
  return { ...observation, decisions, stateDocs, urlOf, offline: options.offline, images: options.mode === 'pull' ? [] : imageReport(images, sentBodies(observation, lowering?.lower)) };
}

const offlineTeam = (ledger: Ledger | undefined, options: InspectOptions) => {
  const rootId = knownRoot(ledger, options);
  return rootId ? cachedTeam(ledger, rootId) : undefined;
};

/** The options as the team's settings have them, and the store (checked as a run's is) that says them when this ledger does not. */
async function followed(client: KbClient, ledger: Ledger | undefined, given: InspectOptions): Promise<{ readonly options: InspectOptions; readonly store: RemoteStateStore }> {
  const rootId = await workspaceRoot(client, ledger, given, false);
  const secret = await given.stateKey?.get();
  const keySource = given.stateKey?.description ?? "this machine's state key";
  const team = new TeamSettings(given, { ledger, rootId }, { fingerprint: secret ? keyFingerprint(secret) : null, source: keySource });
  const store = openStateStore({ client, ledger, logger: silentLogger }, { workspaceId: given.workspaceId, rootId }, secret, { keySource, team });
  if (team.readFirst) await store.load();
  return { options: team.follow(), store };
}

/** The reads a decision needs, answered without writing anything. */
function readOnlyIO(
  deps: { readonly client: KbClient; readonly ledger: Ledger | undefined },
  observation: Observation,
  options: InspectOptions,
  store: RemoteStateStore | undefined,
  urlOf: UrlOfPath | undefined,
): AssessIO {
  const { client, ledger } = deps;
  return {
    mode: options.mode,
    force: options.guards.force,
    webEdits: options.webEdits ?? 'merge',
    layout: options.layout,
    urlOf,
    workspaceId: options.workspaceId,
    ...(observation.plan.released ? { released: observation.plan.released } : {}),
    readBlocks: (docKey) => client.readBlocks(docKey),
    record: (path) => ledger?.documents.get(path),
    listed: (docKey) => observation.remote?.docs.get(docKey),
    node: (record) => nodeOf(client, record),
    source: async (hash) => (store ? (await store.sources(new Set([hash]))).get(hash) : undefined),
    ...sharedVersions(store, observation.shared),
    async fileText(path) {
      const known = observation.local.texts.get(path);
      if (known) return known;
      const abs = join(observation.scan.root, path);
      return (await lstatOrNull(abs)) === null ? undefined : readTextFile(abs, { displayPath: path });
    },
    openIntents: () => ledger?.intents.open() ?? [],
    createAttempts: (path) => (ledger ? createAttempts(ledger, path) : 0),
    serverNow: () => client.serverTime() ?? new Date(),
  };
}
