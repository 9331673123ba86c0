import { hashText, type TextFile } from '../../local/index.js';
import type { DocumentRecord } from '../../ledger/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import type { AdoptDecision } from '../decide/adopt.js';
import type { RecordEntry, RemoteDoc } from '../decide/types.js';
import { applyBody, type DocOutcome } from './apply-body.js';
import { idLost, recordUnpushed } from './create.js';
import { createAttempts, withIntent } from './intent.js';
import { fingerprintOf, replaceLocal, writeConflictCopy } from './local-files.js';
import { idsOfListed, recordAgreement, remoteTimeOf } from './record.js';
import { encodeSentImages } from '../../images/sent.js';

/**
 * Carries out the pairing of a local file that has no record with the document that is its twin (see
 * `decideAdopt`): record it, finish an interrupted pull, push over it (backed up), or keep both apart.
 */
export async function adopt(
  ctx: SyncContext,
  path: string,
  listed: RemoteDoc,
  before: TextFile,
  blocks: readonly Block[],
  decision: AdoptDecision,
  /** The shared state's entry for this file, when it has one (its creation ids are kept). */
  known?: RecordEntry,
): Promise<DocOutcome> {
  // What the shared state knows comes along: the creation ids, and the images the document was sent with. A
  // document an earlier create of this machine may have made without hearing the answer is that create's.
  const ours = createAttempts(ctx.ledger, path) > 0;
  const ids = {
    ...idsOfListed(ctx, listed, path, 'linked'),
    ...(ours ? { origin: 'create-answer-lost' as const } : {}),
    ...(known ? { nodeId: known.nodeId, origin: known.origin, imagesSent: encodeSentImages(known.images) } : {}),
  };
  const agreed = { ...ids, remoteBlocks: blocks, remoteTime: remoteTimeOf(ctx, listed, undefined, false), conflictPath: null };
  switch (decision.kind) {
    case 'link': {
      const fingerprint = await fingerprintOf(ctx, path);
      recordAgreement(ctx, { ...agreed, fileText: before.text, baseText: before.text, fingerprint });
      return { path, result: 'unchanged', detail: 'linked to its existing document' };
    }
    case 'pull': {
      // An earlier run wrote this file from this document and died before recording it (and the document may have
      // changed since). The file is still exactly what was pulled: finish the pull, it is no conflict.
      const next = decision.nextFile;
      if (next === before.text) {
        // Its text is all there: only the record was lost.
        recordAgreement(ctx, { ...agreed, fileText: next, baseText: next, fingerprint: await fingerprintOf(ctx, path) });
        return { path, result: 'pulled', detail: FINISHED };
      }
      await withIntent(
        ctx,
        { kind: 'write-local', subject: path, payload: { docKey: listed.docKey, hash: hashText(next) } },
        () => replaceLocal(ctx, path, before, next),
        (fingerprint) => recordAgreement(ctx, { ...agreed, fileText: next, baseText: next, fingerprint }),
      );
      return { path, result: 'pulled', detail: FINISHED };
    }
    case 'replace': {
      if (decision.replacing) ctx.logger.warn({ path }, 'replacing the knowledge base version of %s with the file (no shared history; the old body is backed up)', path);
      // Recorded as holding `blocks`, so the push backs them up and replaces them.
      recordUnpushed(ctx, { ...ids, title: listed.title, parentId: listed.parentTreeNodeId }, blocks);
      const outcome = await applyBody(ctx, ctx.ledger.documents.get(path) as DocumentRecord, listed, before, blocks, decision.body);
      // An empty document no run recorded is most likely a create's whose run was stopped before its id was kept.
      return blocks.length === 0 && ids.nodeId === null ? { ...outcome, detail: [outcome.detail, idLost(listed.url, ours)].filter(Boolean).join('; ') } : outcome;
    }
    case 'conflict': {
      // Recorded with the file's own hash and stat, and the document's version as the base: the file differs
      // from it, so once the conflict is settled the file is published (as in every conflict).
      const fingerprint = await fingerprintOf(ctx, path);
      const conflictPath = await withIntent(
        ctx,
        { kind: 'adopt-conflict', subject: path, payload: { docKey: listed.docKey } },
        () => writeConflictCopy(ctx, path, decision.conflictCopy),
        // No shared history: resolve shows both versions against an empty base.
        (copy) => recordAgreement(ctx, { ...agreed, fileText: before.text, baseText: decision.conflictCopy, fingerprint, conflictPath: copy, conflictBase: '' }),
      );
      return { path, result: 'conflict', conflictPath, detail: 'the file and its existing document differ and share no history' };
    }
  }
}

const FINISHED = 'finished a pull that an interrupted run had begun';

/**
 * A file the shared state knows, the same on both sides as that state says: this machine records the
 * pairing (with the creation ids another machine learnt) and reads nothing.
 */
export async function relink(ctx: SyncContext, record: DocumentRecord, before: TextFile): Promise<DocOutcome> {
  const fingerprint = await fingerprintOf(ctx, record.path);
  const { localHash: _hash, remoteBlocksHash, remoteModifiedTime, recheck, ...ids } = record;
  recordAgreement(ctx, {
    ...ids,
    fileText: before.text,
    baseText: before.text,
    fingerprint,
    remoteBlocks: record.remoteBlocks,
    predictedBlocksHash: remoteBlocksHash,
    remoteTime: { modifiedTime: remoteModifiedTime, recheck },
    conflictPath: null,
  });
  return { path: record.path, result: 'unchanged' };
}
