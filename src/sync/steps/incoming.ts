import type { DocumentRecord } from '../../ledger/index.js';
import { ensureParentFolders, hashText, writeFileAtomic } from '../../local/index.js';
import { blocksToMarkdown, merge3, type Alignment } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { joinText, splitText } from '../document-text.js';
import type { RemoteDoc, RemoteFolder } from '../types.js';
import { withIntent } from './intent.js';
import type { DocOutcome } from './reconcile.js';
import { idsOfListed, recordAgreement, remoteTimeOf, type DocumentIds } from './record.js';

/** A remote document kbsync has never seen becomes a new local file (never over an existing one). */
export async function newLocal(ctx: SyncContext, remote: RemoteDoc, path: string): Promise<DocOutcome> {
  const blocks = await ctx.client.readBlocks(remote.docKey);
  const text = blocksToMarkdown(blocks);
  await writeIncoming(ctx, path, text, blocks, remote, idsOfListed(ctx, remote, path));
  return { path, result: 'pulled', detail: 'new in the knowledge base' };
}

/**
 * A file deleted locally whose document was edited remotely comes back (an edit beats a delete): the
 * last-synced file with the remote's edits applied, so local formatting survives where it can.
 */
export async function restore(ctx: SyncContext, record: DocumentRecord, listed: RemoteDoc | undefined, known?: readonly Block[]): Promise<DocOutcome> {
  const blocks = known ?? (await ctx.client.readBlocks(record.docKey));
  const base = splitText(record.baseMarkdown);
  const body = merge3({ base: base.body, remoteBase: record.remoteBlocks, remote: blocks, local: base.body, alignment: record.alignment as Alignment }).body;
  await writeIncoming(ctx, record.path, joinText(base.head, body), blocks, listed, record);
  return { path: record.path, result: 'pulled', detail: 'deleted locally but edited in the knowledge base, so the file was restored' };
}

async function writeIncoming(
  ctx: SyncContext,
  path: string,
  text: string,
  blocks: readonly Block[],
  listed: RemoteDoc | undefined,
  ids: DocumentIds,
): Promise<void> {
  await withIntent(
    ctx,
    // The hash lets a rerun recognise this very text if the run dies before recording it (see adopt).
    { kind: 'write-local', subject: path, payload: { docKey: ids.docKey, hash: hashText(text) } },
    async () => {
      crashPoint('mid-pull');
      const fingerprint = await writeFileAtomic(ctx.root, path, text, { expect: 'absent' });
      crashPoint('after-local-write');
      return fingerprint;
    },
    (fingerprint) =>
      recordAgreement(ctx, { ...ids, path, fileText: text, baseText: text, fingerprint, remoteBlocks: blocks, remoteTime: remoteTimeOf(ctx, listed, undefined, !listed), conflictPath: null }),
  );
}

/** A remote folder becomes a local folder, remembered so that deleting it locally later is not undone. */
export async function newLocalFolder(ctx: SyncContext, folder: RemoteFolder): Promise<DocOutcome> {
  // Made as the parent of a name inside it: ensureParentFolders never creates through a symlink.
  await ensureParentFolders(ctx.root, `${folder.localPath}/_`, { create: true });
  ctx.ledger.folders.upsert({ path: folder.localPath, treeNodeId: folder.treeNodeId, nodeId: null, remoteTitle: folder.title });
  return { path: folder.localPath, result: 'pulled', detail: 'new folder in the knowledge base' };
}
