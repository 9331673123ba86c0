import { messageOf } from '../../errors.js';
import type { JsonValue, Ledger } from '../../ledger/index.js';
import { QueueClosedError } from '../../queue/index.js';
import { crashPoint } from '../run/crash-points.js';
import type { SyncContext } from '../run/context.js';

/**
 * Every effect kbsync journals before it starts, by kind: what an interrupted run may have left half done.
 * `create` and `create-folder` carry the title and parent, so a document made without its answer heard is
 * found again; `write-local` carries the text's hash, so a rerun recognises a pull that died before its record.
 */
type IntentKind = 'create' | 'create-folder' | 'sync' | 'delete' | 'trash' | 'write-local' | 'adopt-conflict' | 'move-local';

/**
 * This machine's attempts at creating `path`'s document that may have made it without recording it: open (a
 * run killed after its create) or abandoned (its answer lost). A document found where they aimed may be their
 * own, not another writer's.
 */
export const createAttempts = (ledger: Ledger, path: string): number => ledger.intents.unfinished('create').filter((intent) => intent.subject === path).length;

const cutOffByStop = (error: unknown): boolean => error instanceof QueueClosedError;

/** Fields added to an open intent's payload as its effect goes (IntentsJournal.amend). */
type IntentNote = (fields: { readonly [key: string]: JsonValue }) => void;

/**
 * Design rule 2, intent before effect: the intent row is committed before the first side effect of an
 * action, and closed in the same transaction that records the action's result. A crash in between
 * leaves the intent open; the next run lists it and reconciles before anything else. The effect may
 * note what it learns part-way (`note`), for that next run.
 */
export async function withIntent<T>(
  ctx: SyncContext,
  intent: { readonly kind: IntentKind; readonly subject: string; readonly payload?: { readonly [key: string]: JsonValue } },
  effect: (note: IntentNote) => Promise<T>,
  record: (result: T) => void,
): Promise<T> {
  const payload = intent.payload ?? null;
  const id = await ctx.ledger.intents.beginDurably(intent.kind, intent.subject, payload);
  crashPoint('after-intent');
  let result: T;
  try {
    result = await effect((fields) => ctx.ledger.intents.amend(id, { ...payload, ...fields }));
  } catch (error) {
    // A call cut off by a stop (Ctrl+C, the daemon's drain deadline) may have landed, as one cut off by a kill: its
    // intent stays open for the next run to reconcile. Taken for not sent, a write that landed unseen by any read (a
    // link's address) moved the document's time with no record of ours to explain it, and was held HIDDEN_EDIT on
    // every machine (soak 754).
    if (cutOffByStop(error)) throw error;
    // Nothing else is known to have happened that the next run cannot see for itself; the reason is kept.
    ctx.ledger.intents.abandon(id, messageOf(error));
    throw error;
  }
  crashPoint('before-ledger-commit');
  ctx.ledger.intents.complete(id, () => record(result));
  return result;
}
