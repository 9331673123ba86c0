import { createHash } from 'node:crypto';
import { silentLogger } from '../../src/log.js';
import { asTreeNodeId, asWorkspaceId } from '../../src/model/ids.js';
import { WriterClock } from '../../src/remote-state/clock.js';
import type { DocRecord } from '../../src/remote-state/records.js';
import type { SharedState } from '../../src/remote-state/state.js';
import { RemoteStateStore, type CachedTarget } from '../../src/remote-state/store.js';
import { stateKey } from '../../src/remote-state/token.js';
import type { RunningEmulator } from './emulator.js';
import { stateNodes } from './sync-fixture.js';
import { emulatorClient } from '../integration/api/emulator-client.js';

/**
 * Writers of the shared state straight through its store (no sync run around them), for the store's and the
 * compaction's tests: each with its own clock, wall clock and remembered targets, as a machine or a CI job.
 */
const SECRET = 'store-test-key-0123456789abcdef';
export const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
/** A doc record of `p` at `version`, with ids derived from the path. */
export const doc = (p: string, version: string): DocRecord => ({ t: 'doc', p, k: `K${sha(p).slice(0, 10)}`, n: `N${sha(p).slice(0, 10)}`, h: sha(version), rb: sha(`rb ${version}`), m: '', o: 'created' });

export type Writer = { readonly store: RemoteStateStore; now: number; readonly targets: CachedTarget[] };

/** One writer (a machine or a CI run) of the state, with its own clock and remembered targets; `now` is its wall clock. */
export function writer(em: RunningEmulator, options: { readonly key?: boolean; readonly docChars?: number; readonly targets?: CachedTarget[]; readonly now?: number } = {}): Writer {
  const self: Writer = {
    store: undefined as unknown as RemoteStateStore,
    now: options.now ?? Date.now(),
    targets: options.targets ?? [],
  };
  const targets = self.targets;
  Object.assign(self, {
    store: new RemoteStateStore({
      client: emulatorClient(em),
      workspaceId: asWorkspaceId(em.seed.workspaceId),
      rootId: asTreeNodeId(em.seed.rootNodeId),
      logger: silentLogger,
      ...(options.key === false ? {} : { key: stateKey(SECRET, em.seed.workspaceId, em.seed.rootNodeId) }),
      clock: new WriterClock({ now: () => self.now }),
      now: () => self.now,
      docChars: options.docChars ?? 2000,
      cache: { read: () => targets, write: (docs) => targets.splice(0, targets.length, ...docs) },
    }),
  });
  return self;
}

/**
 * What a writer needs to maintain the state (compaction.ts), as a run has it: with the key, any state document
 * whose creation id a verified record gives may be deleted; without it, only those this writer made.
 */
export const upkeepOf = (w: Writer) => ({
  store: w.store,
  logger: silentLogger,
  now: () => w.now,
  deletableId: (docKey: string, state: SharedState) => (w.store.authenticated ? state.journals.get(docKey) : undefined) ?? w.store.madeIds().get(docKey) ?? undefined,
});

/** What a new reader (another machine) folds. */
export async function freshState(em: RunningEmulator, key = true): Promise<SharedState> {
  return (await writer(em, { key }).store.load()).state;
}

export const indexDocs = (em: RunningEmulator) => stateNodes(em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-state-'));
