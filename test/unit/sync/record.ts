import type { RecordEntry } from '../../../src/sync/decide/types.js';
import { asCreationNodeId, asDocKey, asTreeNodeId } from '../../../src/model/ids.js';

export const ROOT = asTreeNodeId('root');
export const T0 = '2026-11-22T10:00Z';

/** A planner record of a document kbsync created for `path`, at the top, synced at T0; `over` changes any field. */
export function record(path: string, over: Partial<RecordEntry> = {}): RecordEntry {
  return {
    path,
    docKey: asDocKey(`dk-${path}`),
    nodeId: asCreationNodeId(`n-${path}`),
    treeNodeId: asTreeNodeId(`dk-${path}`),
    parentTreeNodeId: ROOT,
    localHash: `h-${path}`,
    ino: 0,
    remoteTitle: path.replace(/\.md$/, ''),
    remoteModifiedTime: T0,
    remoteBlocksHash: `rb-${path}`,
    recheck: false,
    origin: 'created',
    held: null,
    ...over,
  };
}
