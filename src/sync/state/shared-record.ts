import type { DocumentRecord } from '../../ledger/index.js';
import { predictedBlocks } from '../../markdown/index.js';
import type { WorkspaceId } from '../../model/ids.js';
import type { RecordEntry } from '../decide/types.js';
import { splitText } from '../content/document-text.js';
import { UNMATCHABLE } from '../act/record.js';
import { encodeSentImages } from '../../images/sent.js';

/**
 * A full record for a file known only from the shared state, as if this machine had synced it: the base is
 * the source last synced (from whichever machine synced it), and the remote base the blocks the service
 * is expected to have made of it (their real read-back was never seen here), with the real hash.
 */
export function sharedRecord(entry: RecordEntry, base: string, context: { readonly workspaceId: WorkspaceId; readonly url: string }): DocumentRecord {
  return {
    path: entry.path,
    docKey: entry.docKey,
    nodeId: entry.nodeId,
    origin: entry.origin,
    treeNodeId: entry.treeNodeId,
    workspaceId: context.workspaceId,
    parentTreeNodeId: entry.parentTreeNodeId,
    url: context.url,
    remoteTitle: entry.remoteTitle,
    // A rename the shared state's writer did not see (observe/rename-witness.ts): the title it knew was the file's.
    listedTitle: entry.renamedFrom ?? null,
    placedAt: 0,
    inexact: entry.lossy === true,
    inexactFormatting: entry.lossy === true && entry.formattingOnly === true,
    inexactHidden: entry.lossy === true && entry.hidden !== false,
    localHash: entry.localHash,
    statSize: UNMATCHABLE.size,
    statMtimeMs: UNMATCHABLE.mtimeMs,
    statIno: UNMATCHABLE.ino,
    remoteBlocksHash: entry.remoteBlocksHash,
    remoteModifiedTime: entry.remoteModifiedTime,
    syncedAt: 0,
    recheck: entry.recheck,
    conflict: false,
    conflictPath: null,
    heldCode: null,
    heldLocalHash: null,
    heldRemoteTime: null,
    publishedRecord: null,
    publishedSource: null,
    imagesSent: encodeSentImages(entry.images),
    baseMarkdown: base,
    remoteBlocks: predictedBlocks(splitText(base).body),
    alignment: null,
    members: [],
    conflictBase: null,
    publishedOver: null,
    hiddenEdit: null,
    lossyBase: entry.lossy === true,
    formattingOnly: entry.lossy === true && entry.formattingOnly === true,
    // A record of a kbsync from before `hd` could not tell a hidden edit from a visible one: taken as one, as it was.
    hiddenBase: entry.lossy === true && entry.hidden !== false,
    agreedAt: entry.agreedAt ?? 0,
    headCarried: entry.headCarried === true,
    replacedHead: null,
    builtOn: null,
    namedHere: false,
    readPlainly: entry.readPlainly === true,
  };
}
