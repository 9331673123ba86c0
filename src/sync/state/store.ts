import type { KbClient } from '../../api/index.js';
import type { JsonValue, Ledger } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import type { TreeNodeId, WorkspaceId } from '../../model/ids.js';
import { WriterClock, type ClockStore } from '../../remote-state/clock.js';
import { RemoteStateStore, type CachedTarget, type TargetCache } from '../../remote-state/store.js';
import type { SharedState } from '../../remote-state/state.js';
import type { TeamRecord } from '../../remote-state/records.js';
import { keyFingerprint, stateKey } from '../../remote-state/token.js';
import { refuseOtherKey } from './key-check.js';

type StoreOptions = {
  /** Where the key came from, for the messages that refuse it (never the key). */
  readonly keySource?: string;
  /**
   * `kbsync state rewrite`: the state is being written anew with this machine's key, which may be the first
   * key of a team that had none: an unsigned state is no refusal then.
   */
  readonly adopting?: boolean;
  /** The team's settings this run follows: checked against every load (team.ts). */
  readonly team?: { check(team: TeamRecord | undefined): void };
};

/**
 * The shared state's store for a run: signed and verified with the team's key when there is one (and that
 * key checked to be the team's before anything is read: key-check.ts), and, with a ledger to keep them in,
 * this writer's id and clock, the documents it appends to (under this key only: a run with another key, or
 * none, reads the state before it writes), and the state documents it made (a writer without the key
 * deletes no other).
 */
export function openStateStore(
  deps: { readonly client: KbClient; readonly ledger: Ledger | undefined; readonly logger: Logger },
  where: { readonly workspaceId: WorkspaceId; readonly rootId: TreeNodeId },
  secret: string | undefined,
  options: StoreOptions = {},
): RemoteStateStore {
  const { ledger } = deps;
  const writable = ledger !== undefined && !ledger.readonly;
  const key = secret ? stateKey(secret, where.workspaceId, where.rootId) : undefined;
  const boundKey = `state.bound:${where.rootId}`;
  const fingerprint = secret ? keyFingerprint(secret) : null;
  const name = { source: options.keySource ?? "this machine's state key", fingerprint: fingerprint ?? '' };
  return new RemoteStateStore({
    client: deps.client,
    workspaceId: where.workspaceId,
    rootId: where.rootId,
    logger: deps.logger,
    ...(key ? { key } : {}),
    ...(options.adopting
      ? {}
      : {
          checks: {
            listed: (docs) => key && refuseOtherKey(docs, key, name),
            loaded: (loaded) => {
              options.team?.check(loaded.state.team);
              // Once seen bound to its folder, a state is never read unbound here again (whoever hides the record that says so).
              if (writable && key && loaded.state.team?.b === 1 && ledger.meta.get(boundKey) !== true) ledger.meta.set(boundKey, true);
            },
          },
        }),
    ...(ledger?.meta.get(boundKey) === true ? { bound: true } : {}),
    ...(writable ? { cache: targetCache(ledger, where.rootId, fingerprint), clock: new WriterClock({ store: clockStore(ledger) }) } : {}),
  });
}

const metaObject = (ledger: Ledger, key: string): Readonly<Record<string, JsonValue>> => {
  const value = ledger.meta.get(key);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Readonly<Record<string, JsonValue>>) : {};
};

/**
 * The state documents the last run appended to under this root, kept in the ledger (see RemoteStateStore),
 * with the fingerprint of the key they were confirmed under (null: none): a run with another key, or none,
 * knows no target, so it reads the state (and meets the team's key) before it writes.
 */
function targetCache(ledger: Ledger, rootId: string, fingerprint: string | null): TargetCache {
  const key = `state.targets:${rootId}`;
  return {
    read: () => {
      const value = metaObject(ledger, key);
      // A list: written before targets carried their key. Neither it nor another key's targets is known here.
      if (value['key'] !== fingerprint || !Array.isArray(value['targets'])) return undefined;
      // Written before targets carried when they were confirmed: never fresh, so listed again.
      return (value['targets'] as unknown as CachedTarget[]).map((doc) => ({ ...doc, confirmedAt: doc.confirmedAt ?? 0 }));
    },
    write: (docs) => ledger.meta.set(key, { key: fingerprint, targets: docs as unknown as JsonValue }),
    folder: {
      read: () => {
        const value = ledger.meta.get(`state.folder:${rootId}`);
        return typeof value === 'string' ? value : undefined;
      },
      write: (id) => ledger.meta.set(`state.folder:${rootId}`, id),
    },
  };
}

function clockStore(ledger: Ledger): ClockStore {
  return {
    read: () => {
      const value = metaObject(ledger, 'state.writer');
      return typeof value['writer'] === 'string' && typeof value['clock'] === 'number' ? { writer: value['writer'], clock: value['clock'] } : undefined;
    },
    write: (value) => ledger.meta.set('state.writer', value),
  };
}

/** The state documents this ledger's runs made under this root: docKey → creation nodeId. */
export function ownStateDocs(ledger: Ledger, rootId: string): Map<string, string> {
  const value = metaObject(ledger, `state.own:${rootId}`);
  return new Map(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** Remembers the state documents this run made (and forgets those that are gone). */
export function rememberOwnStateDocs(ledger: Ledger, rootId: string, store: RemoteStateStore, existing: ReadonlySet<string> | undefined): void {
  const own = ownStateDocs(ledger, rootId);
  for (const [docKey, nodeId] of store.madeIds()) if (nodeId !== null) own.set(docKey, nodeId);
  if (existing) for (const docKey of own.keys()) if (!existing.has(docKey)) own.delete(docKey);
  if (own.size > 0 || ledger.meta.get(`state.own:${rootId}`) !== undefined) ledger.meta.set(`state.own:${rootId}`, Object.fromEntries(own));
}

/**
 * The creation id a writer may delete a state document with: with the team's key, the id a verified
 * record gives; without it, only one this writer's own runs got from the service (a forged record could
 * otherwise name any document's id).
 */
export function deletableStateDoc(store: RemoteStateStore, own: ReadonlyMap<string, string>): (docKey: string, state: SharedState) => string | undefined {
  return (docKey, state) => (store.authenticated ? state.journals.get(docKey) : undefined) ?? own.get(docKey) ?? store.madeIds().get(docKey) ?? undefined;
}
