import type { CallStats } from '../calls.js';
import type { EndpointName } from '../endpoints.js';
import { paramError } from '../errors.js';
import type { FaultSpec } from '../faults.js';
import type { Runtime } from '../runtime.js';
import type { SeedRecord } from '../seed.js';
import type { ServiceBlock } from '../store/types.js';
import { createdView, workspaceUrl } from '../views.js';
import { dumpState, type EmulatorDump } from './dump.js';

export type ActAs = { readonly asUser?: string };

export type RemoteCreateInput = {
  /** Default: the seeded workspace. */
  readonly workspaceId?: string;
  /** A dentryUuid (folder or doc) or a rootNodeId; default: the workspace's root. */
  readonly parentNodeId?: string;
  readonly name: string;
  readonly markdown?: string;
  readonly folder?: boolean;
  readonly asUser?: string;
};

/** Both ids of a remotely created node, shaped like the creation response. */
export type RemoteCreated = { readonly dentryUuid: string; readonly docKey: string; readonly nodeId: string; readonly workspaceId: string; readonly url: string };

/**
 * Inspection and remote edits, in process. Edits act as ANOTHER user (the seeded colleague unless
 * `asUser` names a unionId), as the web editor would; they move modifiedTime and never count as calls.
 */
export type EmulatorAdmin = {
  calls(): CallStats;
  /** Calls to one document's body endpoints (read, overwrite, append), by endpoint: tells a user's document from kbsync's state documents. */
  callsOn(docKey: string): Partial<Record<EndpointName, number>>;
  resetCalls(): void;
  faults(): FaultSpec;
  setFaults(spec: FaultSpec | string): void;
  /** Requests per second per endpoint; 0 disables limiting. Buckets start full. */
  setRateLimit(perSecond: number): void;
  setClockOffset(ms: number): void;
  /** Stops the service's clock at `atMs` (the offset still applies), or lets it run again with undefined. */
  freezeClock(atMs: number | undefined): void;
  /** The service's clock now (ms): what its Date header and its documents' times are read from. */
  now(): number;
  dump(): EmulatorDump;
  /** The current blocks of a document, as readBlocks would answer. */
  blocks(dentryUuid: string): readonly ServiceBlock[];
  /** Replaces the body like the web editor: blocks that did not change keep their ids. */
  editDocument(dentryUuid: string, markdown: string, options?: ActAs): void;
  createDocument(input: RemoteCreateInput): RemoteCreated;
  renameNode(dentryUuid: string, newName: string, options?: ActAs): void;
  moveNode(dentryUuid: string, newParentDentryUuid: string, options?: ActAs): void;
  deleteNode(dentryUuid: string): void;
  addWorkspace(input: { readonly name: string; readonly description?: string }): { workspaceId: string; rootNodeId: string; url: string };
  /** A new token holding exactly these scopes (for tests of 403). */
  addToken(scopes: readonly string[]): string;
};

export function createAdmin(rt: Runtime, seed: SeedRecord): EmulatorAdmin {
  const { store, ops } = rt;
  const actor = (options?: ActAs): string => {
    const who = options?.asUser ?? seed.otherUser.unionId;
    const user = store.userByUnionId(who) ?? store.userByUserId(who);
    if (!user) throw paramError(`asUser '${who}' is not a known user; pass a unionId.`);
    return user.unionId;
  };
  return {
    calls: () => rt.counter.snapshot(),
    callsOn: (docKey) => rt.counter.onDocument(docKey),
    resetCalls: () => rt.counter.reset(),
    faults: () => rt.faults.spec,
    setFaults: (spec) => rt.faults.set(spec),
    setRateLimit: (perSecond) => {
      if (!Number.isFinite(perSecond) || perSecond < 0) throw paramError(`rate limit must be a number >= 0, got ${perSecond}.`);
      rt.limiter.setLimit(perSecond);
    },
    setClockOffset: (ms) => rt.clock.setOffset(ms),
    freezeClock: (atMs) => rt.clock.freeze(atMs),
    now: () => rt.clock.now(),
    dump: () => dumpState(store),
    blocks: (dentryUuid) => (store.body(ops.requireBodyDoc(dentryUuid).dentryUuid)?.blocks ?? []).map((stored) => stored.block),
    editDocument: (dentryUuid, markdown, options) => {
      ops.writeBody(ops.requireBodyDoc(dentryUuid), markdown, actor(options), true);
    },
    createDocument: (input) => {
      const node = ops.createNode({
        workspaceId: input.workspaceId ?? seed.workspaceId,
        parentId: input.parentNodeId,
        name: input.name,
        docType: input.folder ? 'FOLDER' : 'DOC',
        actor: actor(input),
        markdown: input.markdown,
      });
      return createdView(node, rt.baseUrl) as RemoteCreated;
    },
    renameNode: (dentryUuid, newName, options) => ops.rename(ops.requireTreeNode(dentryUuid), newName, actor(options)),
    moveNode: (dentryUuid, parentId, options) => ops.move(ops.requireTreeNode(dentryUuid), parentId, actor(options)),
    deleteNode: (dentryUuid) => ops.delete(ops.requireTreeNode(dentryUuid)),
    addWorkspace: (input) => {
      if (input.name.trim() === '') throw paramError('A workspace name must not be empty.');
      const workspace = ops.addWorkspace(input.name, input.description ?? '');
      return { workspaceId: workspace.workspaceId, rootNodeId: workspace.rootNodeId, url: workspaceUrl(rt.baseUrl, workspace.workspaceId) };
    },
    addToken: (scopes) => {
      const token = ops.ids.id(40, 'at-');
      store.addToken(token, scopes);
      return token;
    },
  };
}
