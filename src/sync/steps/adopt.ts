import { hashText } from '../../local/index.js';
import { blocksToMarkdown } from '../../markdown/index.js';
import type { DocumentRecord } from '../../ledger/index.js';
import type { SyncContext } from '../context.js';
import { joinText, splitText } from '../document-text.js';
import type { RemoteDoc } from '../types.js';
import { withIntent } from './intent.js';
import { currentText, fingerprintOf, replaceLocal, writeConflictCopy } from './local-files.js';
import { pushBody } from './push-body.js';
import { reconcile, type DocOutcome } from './reconcile.js';
import { idsOfListed, recordAgreement, remoteTimeOf } from './record.js';
import { recordUnpushed } from './create.js';

/**
 * Pairs a local file that has no ledger row with the remote document that is its twin (a fresh clone,
 * a lost ledger, a create whose answer was lost), instead of creating a duplicate.
 * - Same content: just record the pairing.
 * - Empty remote (created, never written): push the file.
 * - Different content, push mode (docs-as-code: the repository owns its documents): replace the
 *   remote body, backed up first.
 * - Different content otherwise: with no shared history nobody can tell which side is newer, so it is
 *   a conflict: the file stays, the remote version is written beside it, and nothing is pushed until
 *   the file is edited again.
 */
export async function adopt(ctx: SyncContext, path: string, remote: RemoteDoc): Promise<DocOutcome> {
  const blocks = await ctx.client.readBlocks(remote.docKey);
  const text = await currentText(ctx, path);
  if (!text) return { path, result: 'held', detail: 'the file disappeared during the sync' };
  const split = splitText(text.text);
  const ids = idsOfListed(ctx, remote, path);

  if (pushBody(ctx, path, split.body).agreesWith(blocks)) {
    const fingerprint = await fingerprintOf(ctx, path);
    recordAgreement(ctx, { ...ids, fileText: text.text, baseText: text.text, fingerprint, remoteBlocks: blocks, remoteTime: remoteTimeOf(ctx, remote, undefined, false), conflictPath: null });
    return { path, result: 'unchanged', detail: 'linked to its existing document' };
  }
  if (ctx.mode !== 'push' && interruptedPull(ctx, path, remote.docKey, text.text)) {
    // An earlier run wrote this file from this document and died before recording it, and the document
    // changed since. The file is still exactly what was pulled: finish the pull, it is no conflict.
    const next = joinText(split.head, blocksToMarkdown(blocks));
    await withIntent(
      ctx,
      { kind: 'write-local', subject: path, payload: { docKey: remote.docKey, hash: hashText(next) } },
      () => replaceLocal(ctx, path, text, next),
      (fingerprint) =>
        recordAgreement(ctx, { ...ids, fileText: next, baseText: next, fingerprint, remoteBlocks: blocks, remoteTime: remoteTimeOf(ctx, remote, undefined, false), conflictPath: null }),
    );
    return { path, result: 'pulled', detail: 'finished a pull that an interrupted run had begun' };
  }
  if (blocks.length === 0 || ctx.mode === 'push') {
    if (blocks.length > 0) ctx.logger.warn({ path }, 'replacing the knowledge base version of %s with the file (no shared history; the old body is backed up)', path);
    // Recorded as holding `blocks`, so the push backs them up and replaces them.
    recordUnpushed(ctx, { ...ids, title: remote.title, parentId: remote.parentTreeNodeId }, blocks);
    return reconcile(ctx, ctx.ledger.documents.get(path) as DocumentRecord, remote, blocks);
  }
  // Recorded with the file's own hash and stat: the conflict stays put until the user edits the file.
  const fingerprint = await fingerprintOf(ctx, path);
  const conflictPath = await withIntent(
    ctx,
    { kind: 'adopt-conflict', subject: path, payload: { docKey: remote.docKey } },
    () => writeConflictCopy(ctx, path, joinText(split.head, blocksToMarkdown(blocks))),
    (copy) =>
      recordAgreement(ctx, {
        ...ids,
        fileText: text.text,
        baseText: text.text,
        fingerprint,
        remoteBlocks: blocks,
        remoteTime: remoteTimeOf(ctx, remote, undefined, false),
        conflictPath: copy,
      }),
  );
  return { path, result: 'conflict', conflictPath, detail: 'the file and its existing document differ and share no history' };
}

/** Is `text` what an interrupted run was writing to `path` from this document (its write-local intent still open)? */
function interruptedPull(ctx: SyncContext, path: string, docKey: string, text: string): boolean {
  const hash = hashText(text);
  return ctx.ledger.intents.open().some((intent) => {
    const payload = intent.payload;
    if (intent.kind !== 'write-local' || intent.subject !== path || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
    const fields = payload as { readonly [key: string]: unknown };
    return fields['docKey'] === docKey && fields['hash'] === hash;
  });
}
