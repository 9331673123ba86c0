import { KbsyncError } from '../../errors.js';
import { heldMessage } from '../decide/held.js';
import type { DocumentRecord } from '../../ledger/index.js';
import { backupText, hashText, type TextFile } from '../../local/index.js';
import { blocksToMarkdown } from '../../markdown/index.js';
import type { Block } from '../../model/blocks.js';
import type { SyncContext } from '../run/context.js';
import type { MoveDecision } from '../decide/move.js';
import { flatTitle } from '../decide/placement.js';
import { splitText } from '../content/document-text.js';
import { movedAfterDocument } from '../decide/moves.js';
import type { RemoteDoc } from '../decide/types.js';
import { applyBody, type DocOutcome } from './apply-body.js';
import { createDocument } from './create.js';
import { replaceLocal } from './local-files.js';
import { dropRecord, recordHold } from './record.js';
import { retire } from './removals.js';

/** Carries out a move decision (see `decideMove`) for the record at `record.path`, whose file is now at `to`. */
export async function move(
  ctx: SyncContext,
  record: DocumentRecord,
  to: string,
  listed: RemoteDoc | undefined,
  before: TextFile,
  remote: readonly Block[] | 'gone',
  decision: MoveDecision,
  /**
   * `title`: the new document's title when it is not the old one's (`--retitle`); `followed`: the file was moved by an
   * interrupted run after its document (Detail 'move'), said as that move.
   */
  { title, followed }: { readonly title: string | undefined; readonly followed: { readonly elsewhere: boolean } | undefined },
): Promise<DocOutcome> {
  const from = record.path;
  const moved = from === to ? 'moved' : `moved from ${from}`;
  switch (decision.kind) {
    case 'held': {
      // A move waiting for the run that can judge its document (BodyDecision.waiting) is decided afresh by it: nothing
      // recorded (a recorded hold would stand, and keep it from being judged), so the daemon remembers it said it.
      const waiting = decision.body.waiting === true;
      const fresh = waiting || recordHold(ctx, from, { code: decision.held.code, localHash: hashText(before.text), remoteModifiedTime: listed?.modifiedTime ?? record.remoteModifiedTime });
      // The hold is on the record, still at its old path: the commands its message names take that path.
      return { path: to, result: 'held', detail: heldMessage(decision.held, from), ...(fresh ? {} : { repeated: true }), ...(waiting ? { unrecorded: true } : {}), ...(from !== to ? { from } : {}) };
    }
    case 'recreate': {
      dropRecord(ctx, from, record.docKey);
      const outcome = await createDocument(ctx, to, titleFor(ctx, record, to), before, { deleted: record.docKey });
      return { ...outcome, detail: `${moved}; deleted in the knowledge base, so it was created again` };
    }
    case 'rename': {
      // A file known only from the shared state (a run without its ledger) has no row to rename: its row starts at the new path.
      if (!ctx.ledger.documents.summary(from)) ctx.ledger.documents.upsert({ ...record, path: to });
      else if (from !== to) ctx.ledger.documents.rename(from, to);
      // The record follows the file, and names the folder the document is in (a colleague may have moved it).
      const follows = { ...(listed ? { parentTreeNodeId: listed.parentTreeNodeId } : {}), ...(from !== to ? { placedAt: ctx.store.clock.now() } : {}) };
      if (Object.keys(follows).length > 0) ctx.ledger.documents.update(to, follows);
      const renamed = ctx.ledger.documents.get(to) as DocumentRecord;
      const said = followed ? movedAfterDocument(from, followed.elsewhere) : from !== to ? `renamed from ${from}` : 'its document was moved in the knowledge base to the folder the file is in';
      const label = [said, decision.note].filter(Boolean).join('; ');
      // A move after the document is a change that came in (moveLocal says it so); the user's rename changed nothing there.
      if (decision.body.kind === 'none') return { path: to, result: followed ? 'pulled' : 'unchanged', detail: label };
      const outcome = await applyBody(ctx, renamed, listed, before, remote === 'gone' ? [] : remote, decision.body);
      return { ...outcome, detail: [label, outcome.detail].filter(Boolean).join('; ') };
    }
    case 'move': {
      const body = decision.body;
      // Two-way: the old document's remote edits come into the file first, so the new document carries them.
      if (body.nextFile !== undefined) await replaceLocal(ctx, to, before, body.nextFile);
      const text = body.nextFile ?? before.text;
      if (remote !== 'gone' && remote.length > 0) await backupText(ctx.stateDir, 'remote', from, blocksToMarkdown(remote), { now: ctx.now() });
      const retireOld = async (): Promise<void> => {
        const promised = ctx.ledger.retirements.all().find((r) => r.docKey === record.docKey);
        if (promised) await retire(ctx, promised);
      };
      // The front matter the page kept across a plain reading stays so in the new document (create.ts movedFirstBody).
      const carriedHead = body.headCarried ? splitText(body.baseText).head : undefined;
      const replacing = { moved: record, ...(body.builtOn !== undefined ? { madeFrom: body.builtOn } : {}), ...(carriedHead !== undefined ? { carriedHead } : {}) };
      const outcome = await createDocument(ctx, to, title ?? titleFor(ctx, record, to), { ...before, text }, replacing).catch(async (error: unknown) => {
        // The first body landed, and someone saved the new document before its read-back: the move is made, and the
        // next run merges that save. The old document goes now, as promised, not with the next run: left, it was a
        // second document of the title in the meantime (model seed 6018).
        if (error instanceof KbsyncError && error.code === 'REMOTE_CHANGED_DURING_WRITE') await retireOld();
        throw error;
      });
      await retireOld();
      const what = title ? `retitled "${title}"` : moved;
      return { ...outcome, detail: [`${what}: a new document in its place, the old one deleted (body backed up)`, outcome.detail].filter(Boolean).join('; ') };
    }
  }
}

/** A new document keeps the old one's title, except in a flat layout, where the title is the path. */
const titleFor = (ctx: SyncContext, record: DocumentRecord, to: string): string => (ctx.layout === 'flat' ? flatTitle(to) : record.remoteTitle);
