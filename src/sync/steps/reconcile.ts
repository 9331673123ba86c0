import type { DocumentRecord } from '../../ledger/index.js';
import { hashText } from '../../local/index.js';
import { blocksHash, hasPlaceholders, merge3, type Alignment } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { joinText, splitText } from '../document-text.js';
import type { RemoteDoc } from '../types.js';
import { withIntent } from './intent.js';
import { currentText, fingerprintOf, replaceLocal, writeConflictCopy } from './local-files.js';
import { applyMembers } from './members.js';
import { pushBody } from './push-body.js';
import { recordAgreement, remoteTimeOf } from './record.js';

export type DocOutcome = {
  readonly path: string;
  readonly result: 'unchanged' | 'pushed' | 'pulled' | 'merged' | 'conflict' | 'held';
  readonly detail?: string;
  readonly conflictPath?: string;
};

/**
 * Brings one synced document and its file into agreement: the push, pull and merge of the planner
 * are all this one procedure, because the executor re-reads the remote before deciding (rule 3) and
 * the answer may differ from what the listing suggested.
 *
 * `knownRemote` skips the read when the body is known (a document created a moment ago is empty).
 */
export async function reconcile(
  ctx: SyncContext,
  record: DocumentRecord,
  listed: RemoteDoc | undefined,
  knownRemote?: readonly Block[],
): Promise<DocOutcome> {
  const path = record.path;
  const remote = knownRemote ?? (await ctx.client.readBlocks(record.docKey));
  const before = await currentText(ctx, path);
  if (!before) return { path, result: 'held', detail: 'the file disappeared during the sync; the next run sees the deletion' };
  if (ctx.mode !== 'pull' && !ctx.force && emptied(before.text, record.baseMarkdown)) {
    return {
      path,
      result: 'held',
      detail:
        'it is empty now but was not at the last sync (an editor may be in the middle of saving it), so its document was left as it is. ' +
        'If you emptied it on purpose, run `kbsync sync --force` to push the empty file.',
    };
  }
  const local = splitText(before.text);
  const base = splitText(record.baseMarkdown);
  const alignment = record.alignment as Alignment;
  const remoteChanged = blocksHash(remote) !== record.remoteBlocksHash;
  const localChanged = hashText(before.text) !== record.localHash;

  // The remote's edits applied to the local file, local source kept wherever the remote did not change.
  const merged = remoteChanged
    ? merge3({ base: base.body, remoteBase: record.remoteBlocks, remote, local: local.body, alignment })
    : { body: local.body, conflicts: [], conflictCopyBody: undefined };
  const outgoing = pushBody(ctx, path, ctx.mode === 'push' ? local.body : merged.body);

  if (ctx.mode === 'push' && remoteChanged && !outgoing.agreesWith(remote) && !ctx.force) {
    return {
      path,
      result: 'held',
      detail:
        'it changed in the knowledge base since the last sync, so a push alone would overwrite that edit. ' +
        'Run `kbsync sync` to merge both sides, or `kbsync sync --push --force` to replace it (its body is backed up first).',
    };
  }

  return withIntent(
    ctx,
    { kind: 'sync', subject: path, payload: { docKey: record.docKey, mode: ctx.mode } },
    async () => {
      let fileText = before.text;
      let fingerprint = await fingerprintOf(ctx, path);
      let conflictPath: string | undefined;
      if (ctx.mode !== 'push') {
        const next = joinText(local.head, merged.body);
        if (next !== before.text) {
          crashPoint('mid-pull');
          fingerprint = await replaceLocal(ctx, path, before, next);
          crashPoint('after-local-write');
          fileText = next;
        }
        if (merged.conflicts.length > 0) {
          // The remote's whole version, with local source for the blocks it did not touch.
          const theirs = merged.conflictCopyBody ?? merge3({ base: base.body, remoteBase: record.remoteBlocks, remote, local: base.body, alignment }).body;
          conflictPath = await writeConflictCopy(ctx, path, joinText(local.head, theirs));
        }
      }

      let remoteAfter: readonly Block[] = remote;
      let wroteRemote = false;
      let blocked = false;
      // A link made with no shared history (adopt) keeps both versions apart until the user edits the file
      // or the document changes; pushing on a mere re-check would pick the winner for them, by the clock.
      const conflictStands = record.conflict && !localChanged && !remoteChanged;
      if (ctx.mode !== 'pull' && !conflictStands && !outgoing.agreesWith(remote)) {
        const localBody = splitText(fileText).body;
        const appended = remoteChanged ? undefined : outgoing.appendOnly(base.body, localBody, record.remoteBlocks, alignment);
        // Placeholders stand for content the service never showed us (code, images): an overwrite would destroy it.
        blocked = !appended && hasPlaceholders(outgoing.markdown);
        if (!blocked) {
          remoteAfter = await outgoing.send(record.docKey, remote, appended);
          wroteRemote = true;
        }
      }
      const members = ctx.mode === 'pull' ? record.members : await applyMembers(ctx, record, local.frontMatter.members);

      // A pull-only run leaves local edits unpushed: the new base is the old one with the remote's edits,
      // so the local edits still show as local changes next time.
      const baseText =
        (ctx.mode === 'pull' || blocked) && localChanged
          ? joinText(base.head, merge3({ base: base.body, remoteBase: record.remoteBlocks, remote, local: base.body, alignment }).body)
          : fileText;
      return { fileText, fingerprint, conflictPath, remoteAfter, wroteRemote, baseText, members, blocked };
    },
    (done) =>
      recordAgreement(ctx, {
        ...record,
        members: done.members,
        fileText: done.fileText,
        baseText: done.baseText,
        fingerprint: done.fingerprint,
        remoteBlocks: done.remoteAfter,
        remoteTime: remoteTimeOf(ctx, listed, record, done.wroteRemote || (remoteChanged && !listed)),
        conflictPath: done.conflictPath ?? (record.conflict && !localChanged ? record.conflictPath : null),
      }),
  ).then((done) => ({
    path,
    ...(done.blocked ? { detail: PLACEHOLDER_HELD } : {}),
    result: done.blocked ? 'held' : done.conflictPath ? 'conflict' : remoteChanged && (localChanged || done.wroteRemote) ? 'merged' : done.wroteRemote ? 'pushed' : remoteChanged ? 'pulled' : 'unchanged',
    ...(done.conflictPath ? { conflictPath: done.conflictPath } : {}),
  }));
}

/** A file truncated to nothing (a save caught half-way, a failed copy) must not silently wipe its document. */
const emptied = (text: string, base: string): boolean => text.trim() === '' && base.trim() !== '';

const PLACEHOLDER_HELD =
  'not pushed: the file still holds kbsync placeholder comments for content the service does not expose (code, images, tables), ' +
  'and overwriting the document would destroy that content. Edit this document in the web editor, or delete the placeholder ' +
  'comments from the file (accepting that the hidden content is replaced) and sync again.';
