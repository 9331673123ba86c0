import { minuteStamp } from '../clock.js';
import type { Store } from '../store/store.js';
import type { NodeRow, ServiceBlock } from '../store/types.js';

/** A node as tests and `GET /_emulator/state` see it: the stored row, with the service's minute stamps added. */
export type DumpedNode = Omit<NodeRow, 'seq' | 'createdAt' | 'modifiedAt'> & {
  readonly createTime: string;
  readonly modifiedTime: string;
  /** Millisecond precision, for tests; the service itself shows minutes only. */
  readonly createdAtMs: number;
  readonly modifiedAtMs: number;
  readonly markdown?: string;
  readonly blocks?: readonly ServiceBlock[];
  readonly members: readonly { readonly userId: string; readonly roleType: string }[];
};

export type EmulatorDump = {
  readonly workspaces: readonly {
    readonly workspaceId: string;
    readonly name: string;
    readonly description: string;
    readonly rootNodeId: string;
    readonly createTime: string;
    readonly modifiedTime: string;
  }[];
  /** Every node in creation order, workspace roots included (docType ROOT). */
  readonly nodes: readonly DumpedNode[];
};

export function dumpState(store: Store): EmulatorDump {
  return {
    workspaces: store.workspaces().map((w) => ({
      workspaceId: w.workspaceId,
      name: w.name,
      description: w.description,
      rootNodeId: w.rootNodeId,
      createTime: minuteStamp(w.createdAt),
      modifiedTime: minuteStamp(w.modifiedAt),
    })),
    nodes: store.allNodes().map((node) => {
      const body = node.docType === 'DOC' ? store.body(node.dentryUuid) : undefined;
      return {
        dentryUuid: node.dentryUuid,
        creationNodeId: node.creationNodeId,
        workspaceId: node.workspaceId,
        parentId: node.parentId,
        title: node.title,
        docType: node.docType,
        creatorId: node.creatorId,
        modifierId: node.modifierId,
        createTime: minuteStamp(node.createdAt),
        modifiedTime: minuteStamp(node.modifiedAt),
        createdAtMs: node.createdAt,
        modifiedAtMs: node.modifiedAt,
        ...(body ? { markdown: body.markdown, blocks: body.blocks.map((stored) => stored.block) } : {}),
        members: store.members(node.dentryUuid).map((m) => ({ userId: m.userId, roleType: m.roleType })),
      };
    }),
  };
}
