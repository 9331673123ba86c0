import { messageOf } from '../../errors.js';
import { hashText } from '../../local/index.js';
import type { SyncContext } from '../run/context.js';
import type { Action } from '../decide/types.js';
import type { Announced } from './journal.js';

/**
 * What a push without a ledger (a CI job, whose ledger goes with its checkout) puts in the shared state before
 * it writes a document: the text the write makes the document hold (see WriteRecord). A job killed between a
 * write and its record then leaves a state from which the next run, and every other machine, knows that write
 * for what it was, not a colleague's edit read as plain text.
 */

/** The write of `text` to a document, announced (when this run keeps no ledger) before it is made. */
export function announceWrite(ctx: SyncContext, path: string, docKey: string, text: string): Promise<void> {
  if (!ctx.announceWrites) return Promise.resolve();
  return ctx.journal.announce({ p: path, k: docKey, a: ctx.serverNow().getTime() }, { text, hash: hashText(text) });
}

/**
 * A new document's first body, announced with its ids (see StateJournal.identify), by every run: it costs no
 * call (the ids' append carries it), and a workstation killed after the body, before its publish, leaves a
 * state from which another machine pulls that body as the Markdown it is, not as plain text whose lossy
 * record then holds the workstation's own later edits for good (state chaos seed 12).
 */
export function firstBody(ctx: SyncContext, text: string): Announced {
  return { text, hash: hashText(text), a: ctx.serverNow().getTime() };
}

/**
 * Before the first write, every file the run may send, at once: their texts in one append, and the writes to
 * documents that exist in another. A write then finds itself announced within its minute and costs nothing
 * more; only a run that goes on into a later minute announces its later writes again. A run with a ledger
 * announces only new documents' first bodies: their texts go ahead too (the end of the run would keep them
 * anyway), so that the append of a create's ids holds no text and is as quick as it was before they rode
 * in it (state chaos seed 12: the longer that window, the likelier a kill in it).
 */
export async function announceAhead(ctx: SyncContext, actions: readonly Action[]): Promise<void> {
  if (ctx.mode === 'pull') return;
  const a = ctx.serverNow().getTime();
  const sent = actions.flatMap((action) => {
    if (!ctx.announceWrites && action.kind === 'push') return [];
    const path = action.kind === 'create' ? action.path : action.kind === 'move' ? action.to : action.kind === 'push' || action.kind === 'recreate' ? action.record.path : undefined;
    const text = path === undefined ? undefined : ctx.texts.get(path)?.text;
    if (path === undefined || text === undefined) return [];
    return [{ path, text, hash: hashText(text), docKey: action.kind === 'push' ? action.record.docKey : undefined }];
  });
  await Promise.all([
    ctx.journal.keep(sent),
    ...sent.flatMap(({ path, text, hash, docKey }) => (docKey !== undefined ? [ctx.journal.announce({ p: path, k: docKey, a }, { text, hash })] : [])),
  ]).catch((error: unknown) => {
    // Only a saving: each write announces itself before it is made all the same (and fails if it cannot).
    ctx.logger.debug({ err: messageOf(error) }, 'could not announce the writes ahead; each write announces itself');
  });
}
