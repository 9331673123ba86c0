import type { DocumentRecord, JsonValue, OpenIntent } from '../../ledger/index.js';
import { hashText } from '../../local/index.js';
import { align, blocksHash, contentKey, contentOfBlock, predictedBlocks } from '../../markdown/index.js';
import { withLineEndings } from '../../markdown/line-endings.js';
import type { Block } from '../../model/blocks.js';
import { asDocKey, type DocKey } from '../../model/ids.js';
import { agrees } from '../decide/push-markdown.js';
import { madeUnfilled } from '../decide/body.js';
import { splitText } from '../content/document-text.js';

/**
 * What a run killed mid-way left in its open intents, read back by the next run so that it recognises its
 * own work instead of taking it for someone else's: the text it was writing to a file (a pull), or the body
 * it was sending to a document (a push) with the text both sides were to agree on after it.
 */

type Fields = { readonly [key: string]: unknown };

const fieldsOf = (intent: OpenIntent, kind: OpenIntent['kind'], path: string): Fields | undefined => {
  const payload = intent.payload;
  if (intent.kind !== kind || intent.subject !== path || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  return payload as Fields;
};

/** Is `text` what an interrupted run was writing to `path` from this document (its write-local intent still open)? */
export function interruptedPull(intents: readonly OpenIntent[], path: string, docKey: string, text: string): boolean {
  const hash = hashText(text);
  return intents.some((intent) => {
    const fields = fieldsOf(intent, 'write-local', path);
    return fields?.['docKey'] === docKey && fields['hash'] === hash;
  });
}

/**
 * Files an interrupted pull left that no ledger row records, by path: the document it was writing, when the
 * file still holds exactly the text that pull wrote (so nobody has edited it since).
 */
export function interruptedPulls(intents: readonly OpenIntent[], local: ReadonlyMap<string, { readonly hash: string }>, recorded: { has(path: string): boolean }): Map<string, DocKey> {
  const pulls = new Map<string, DocKey>();
  for (const intent of intents) {
    const fields = fieldsOf(intent, 'write-local', intent.subject);
    const docKey = fields?.['docKey'];
    if (typeof docKey === 'string' && !recorded.has(intent.subject) && local.get(intent.subject)?.hash === fields?.['hash']) pulls.set(intent.subject, asDocKey(docKey));
  }
  return pulls;
}

/**
 * The removal an interrupted run made of `path`'s file or document, its intent still open: the file moved to kbsync's
 * trash (its document deleted in the knowledge base), or the document deleted (the file deleted here). The next run
 * finds both gone and no record of why: said "forgotten: it is gone both here and in the knowledge base", the user
 * never heard of the removal kbsync made.
 */
export function interruptedRemoval(intents: readonly OpenIntent[], path: string, docKey: string): 'trash-local' | 'delete-remote' | undefined {
  for (const intent of intents) {
    if (fieldsOf(intent, 'trash', path)?.['docKey'] === docKey) return 'trash-local';
    if (fieldsOf(intent, 'delete', path)?.['docKey'] === docKey) return 'delete-remote';
  }
  return undefined;
}

/**
 * Did an interrupted run move the file at `from` to `to` after its document (a move in the knowledge base, or a
 * rename by another machine: `elsewhere`), its move-local intent still open? The next run finds the file moved and
 * no record of why: said as the user's rename ("renamed from …"), it told of a rename nobody made here.
 */
export function interruptedFollow(intents: readonly OpenIntent[], from: string, to: string, docKey: string): { readonly elsewhere: boolean } | undefined {
  for (const intent of intents) {
    const fields = fieldsOf(intent, 'move-local', from);
    if (fields?.['docKey'] === docKey && fields['to'] === to) return { elsewhere: fields['elsewhere'] === true };
  }
  return undefined;
}

/**
 * What a body step's intent says of its write to the file: the hash of the text written (`wrote`), and of the text
 * it replaced (`over`). A run killed between that write and its record leaves the file holding kbsync's own text,
 * which the next run must not take for the user's edit (fileBeforeOwnWrite).
 */
export const fileWriteFields = (over: string, next: string): { readonly [key: string]: JsonValue } => ({ wrote: hashText(next), over: hashText(over) });

/**
 * The file text a decision is to be made on: the file as it stood before an interrupted run wrote it, when all it
 * holds now is exactly what that run wrote (its intent still open) over the text recorded. Decided on the file as
 * it is, kbsync's own write was a local edit: the next run said "merged: your edits and those made in the knowledge
 * base" of a pull nobody had edited beside, or (the document edited again since, in the same paragraph) a conflict
 * with itself. Decided on the text before it, the pull is decided again as it was, with any later edit of the
 * document's merged in, and said once, as the pull it was. A file edited since (or written over other text than the
 * record's, which is not kept) is decided as it is: an edit of the user's is there to merge.
 */
export function fileBeforeOwnWrite(record: Pick<DocumentRecord, 'path' | 'docKey' | 'baseMarkdown'>, intents: readonly OpenIntent[], fileText: string): string {
  const now = hashText(fileText);
  const base = hashText(record.baseMarkdown);
  const own = intents.some((intent) => {
    const fields = fieldsOf(intent, 'sync', record.path);
    return fields?.['docKey'] === record.docKey && fields['wrote'] === now && fields['over'] === base;
  });
  return own ? record.baseMarkdown : fileText;
}

/**
 * The payload of a push's intent: enough to recognise the body once it is in the document, and `at`, the service's
 * clock (ms) as the intent was written: the write, if it lands, is agreed no earlier.
 */
export const pushIntentPayload = (docKey: string, mode: string, sent: string | undefined, agreed: string, at: number): { readonly [key: string]: JsonValue } => ({
  docKey,
  mode,
  ...(sent !== undefined ? { sent, agreed, at } : {}),
});

/**
 * The record as it would be had the interrupted push been recorded: when the document now reads exactly as
 * the body that push was sending (not as the text recorded, where a read can tell them apart: toldByRead), the
 * write landed and nobody wrote since where reads can see, so that body (and the text it agreed on) is the last
 * agreement, made after the intent (`at`) and in the minute the intent noted once the write answered
 * (`written`; not known if the kill came first). A document's first body that landed and was edited in the web
 * editor since (firstBodyLanded) is that agreement too, as the body read right after it: the edit then shows as a
 * remote change to merge. A write no read can tell landed or not is sent again. Otherwise the record as the
 * ledger has it.
 */
export function withLandedPush(record: DocumentRecord, intents: readonly OpenIntent[], remote: readonly Block[]): DocumentRecord {
  for (const intent of intents) {
    const fields = fieldsOf(intent, 'sync', record.path);
    const sent = fields?.['sent'];
    const agreed = fields?.['agreed'];
    if (fields?.['docKey'] !== record.docKey || typeof sent !== 'string' || typeof agreed !== 'string') continue;
    const written = fields['written'];
    // A write whose answer was noted landed; one the kill may have come before, only where the read tells it did.
    const told = !agrees(sent, remote) ? undefined : typeof written === 'string' ? 'landed' : toldByRead(record, sent, remote);
    // Taken for landed, a change no read shows that never went out stayed in the file alone, unsaid; sent again,
    // one that did is written once more, the same body. Its time, if it did, is that write's, unknown as below (with
    // the record's, a write that landed was held HIDDEN_EDIT as someone's edit); so, as below, a colleague's edit
    // inside code between the kill and this run is taken for it.
    if (told === 'untold') return { ...record, remoteModifiedTime: '' };
    const after = told === 'landed' ? remote : firstBodyLanded(record, sent, remote) ? predictedBlocks(splitText(sent).body) : undefined;
    if (!after) continue;
    const at = fields['at'];
    return {
      ...record,
      // Agreed when that write landed, after its intent: not when the version it replaced was. That version is still
      // the shared state's (the kill kept our record from it), and as new as ours it stood for the document (its
      // visible blocks are ours when the write changed code only), our write's minute for an edit inside code:
      // said HIDDEN_EDIT, with the code line the write replaced put back into the file (soak seed 502). An intent a
      // kbsync without `at` wrote keeps the record's time (assess.ts newsOf still knows the version replaced).
      ...(typeof at === 'number' && at > record.agreedAt ? { agreedAt: at } : {}),
      baseMarkdown: agreed,
      localHash: hashText(agreed),
      remoteBlocks: [...after],
      remoteBlocksHash: blocksHash(after),
      alignment: align(splitText(agreed).body, after) as DocumentRecord['alignment'],
      // That write moved the document's time: to the latest minute it can bear, as its answer's moment told and
      // its intent noted, so a later one is someone's edit (a colleague's inside code, after our write and before
      // this run, overwritten by the next push). Killed before that note, the time is not known: a later listed
      // time is that write's, not a hidden edit (a run killed after its overwrite was held HIDDEN_EDIT for good;
      // state chaos seed 15).
      remoteModifiedTime: typeof written === 'string' ? written : '',
      recheck: true,
      conflict: false,
      conflictPath: null,
    };
  }
  return record;
}

/**
 * What a read that agrees with an interrupted push's body (past spacing, as every read-back compares) tells of a
 * write the kill may have come before, from the blocks that body and the text recorded are predicted to read
 * differently (elsewhere a read may say less than a prediction, a table's cells or a list item's text, and tells
 * nothing of the write):
 * - `unsent`: each of them still reads exactly as the recorded text's, where they differ only in spacing (a line
 *   rewrapped, which a read shows). Taken for landed, the rewrap was recorded as agreed, the file said unchanged,
 *   and neither the document nor another machine ever got it (soak seed 704);
 * - `untold`: there are none (a change inside code, of a link's address or of formatting, which no read shows);
 * - `landed`: the read shows the body sent.
 */
function toldByRead(record: DocumentRecord, sent: string, remote: readonly Block[]): 'landed' | 'unsent' | 'untold' {
  // A document made and never filled held nothing, whatever page its record carries (a move's): all it shows is that write's.
  const before = madeUnfilled(record) ? [] : predictedBlocks(withLineEndings(splitText(record.baseMarkdown).body, 'lf')).map(exactly);
  const after = predictedBlocks(splitText(sent).body).map(exactly);
  if (before.length !== after.length || after.length !== remote.length) return 'landed';
  const differ = after.flatMap((key, i) => (key === before[i] ? [] : [i]));
  if (differ.length === 0) return 'untold';
  return differ.every((i) => exactly(remote[i] as Block) === before[i]) ? 'unsent' : 'landed';
}

/** What a block reads as, to the character (spacing too, which comparisons of content see past). */
const exactly = (block: Block): string => JSON.stringify(contentOfBlock(block));

/**
 * A document made by this machine (its record has no body yet) holds blocks of the first body it was sending:
 * that body landed, since nothing else writes a document nobody has seen filled but a person in the web editor,
 * who changed it since. Taken for no agreement at all, the next run merged the file with the document from an
 * empty base: every block added on both sides, the code the read hides as kbsync's placeholder beside the
 * file's own, the colleague's changed paragraph beside the file's (soak seeds 13, 14, 2). A block in common is
 * asked for (not only `unknown` ones, which all read alike), so a page someone typed into an empty document
 * before the body landed (if it did) is not taken for it.
 */
function firstBodyLanded(record: DocumentRecord, sent: string, remote: readonly Block[]): boolean {
  if ((record.baseMarkdown !== '' && !madeUnfilled(record)) || record.remoteBlocks.length > 0 || remote.length === 0) return false;
  const readable = (block: Block): string | undefined => (block.type === 'unknown' ? undefined : contentKey(contentOfBlock(block)));
  const sentBlocks = new Set(predictedBlocks(splitText(sent).body).map(readable));
  return remote.some((block) => readable(block) !== undefined && sentBlocks.has(readable(block)));
}
