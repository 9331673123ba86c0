import type { Operations } from './operations.js';
import type { IdGenerator } from './random.js';
import { ALL_SCOPES, READ_SCOPES } from './scopes.js';
import type { Store } from './store/store.js';

export type EmulatorSeed = {
  readonly baseUrl: string;
  readonly tokenHeader: string;
  /** Holds every scope. */
  readonly token: string;
  /** Read scopes only: Wiki.Node.Read, Storage.File.Read, Document.WorkspaceDocument.Read. */
  readonly readOnlyToken: string;
  /** The main user's unionId. */
  readonly operatorId: string;
  /** The same user's userId (NOT valid as operatorId). */
  readonly userId: string;
  readonly otherUser: { readonly unionId: string; readonly userId: string; readonly name: string };
  readonly workspaceId: string;
  readonly rootNodeId: string;
  readonly workspaceUrl: string;
};

/** What a fresh emulator starts with; kept in the state file so a restart keeps the same tokens and ids. */
export type SeedRecord = Omit<EmulatorSeed, 'baseUrl' | 'tokenHeader' | 'workspaceUrl'>;

const SEED_KEY = 'seed';

/** Union ids start 'u-', user ids 'user-': different on sight, as the two kinds must never be mixed. */
function newUser(ids: IdGenerator, name: string): { unionId: string; userId: string; name: string } {
  return { unionId: ids.id(20, 'u-'), userId: ids.id(12, 'user-'), name };
}

export function ensureSeed(store: Store, ops: Operations, ids: IdGenerator): SeedRecord {
  const existing = store.getMeta(SEED_KEY);
  if (existing) return JSON.parse(existing) as SeedRecord;
  return store.transaction(() => {
    const main = newUser(ids, 'Ada Main');
    const other = newUser(ids, 'Grace Colleague');
    store.addUser(main);
    store.addUser(other);
    const token = ids.id(40, 'at-');
    const readOnlyToken = ids.id(40, 'at-');
    store.addToken(token, ALL_SCOPES);
    store.addToken(readOnlyToken, READ_SCOPES);
    const workspace = ops.addWorkspace('Team Docs', 'The knowledge base kbsync keeps in step.');
    ops.addWorkspace('Second Space', 'Another knowledge base the user can see.');
    const seed: SeedRecord = {
      token,
      readOnlyToken,
      operatorId: main.unionId,
      userId: main.userId,
      otherUser: other,
      workspaceId: workspace.workspaceId,
      rootNodeId: workspace.rootNodeId,
    };
    store.setMeta(SEED_KEY, JSON.stringify(seed));
    return seed;
  });
}
