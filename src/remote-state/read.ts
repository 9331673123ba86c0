import type { KbClient } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { BlockId } from '../model/ids.js';
import { oneLine } from '../printable.js';
import { decodeTokens, type IndexToken, type Stamped } from './codec.js';
import { bySeq, dataOf, parseTitle, STATE_FOLDER, type StateDoc } from './documents.js';
import { emptyJunk, type StateJunk } from './junk.js';
import { MAX_DOC_CHARS, MAX_DOCS_READ, MAX_JUNK_DOCS, MAX_RECORDS } from './limits.js';
import { foldState, type SharedState } from './state.js';
import { isSignedToken, type StateKey } from './token.js';

export type LoadedState = {
  readonly state: SharedState;
  /** The state documents that count (index documents read, sources documents listed). */
  readonly docs: readonly StateDoc[];
  /** Characters of every index document read, for the compaction rule and `kbsync state`. */
  readonly chars: number;
  /** What was found that is not kbsync's, or could not be trusted: not used, counted. */
  readonly junk: StateJunk;
  /** Read with the team's key: every record used was verified. */
  readonly authenticated: boolean;
  /** Each index document's records as read (docKey → records): what a compaction finds in the documents it keeps. */
  readonly records: ReadonlyMap<string, readonly Stamped[]>;
  /**
   * Tokens read that are signed for the workspace alone (kbsync before records were bound to their synced
   * folder): the state is written anew bound (compaction.ts), after which such tokens are not read.
   */
  readonly workspaceBound: number;
  /**
   * The service's time (ms) as this read began (undefined: no answer had told it yet): a record appended after it
   * may be missing from this read (a writer records a write right after it: sync/decide/body.ts recordMayCome).
   */
  readonly readAt?: number;
};

/** What readIndex finds: the state as a load holds it, and what the store keeps of the read. */
type IndexRead = Omit<LoadedState, 'docs' | 'authenticated'> & {
  /** The index documents read, as they now are. */
  readonly read: readonly StateDoc[];
  /**
   * Documents signed with a key the team replaced, which its rotation retired (key-rotation.ts): deleted in
   * their turn, by a verified record's creation id, and not said as junk meanwhile. Never read.
   */
  readonly replaced: readonly StateDoc[];
  /** The state is bound to its folder: this machine knew it, or the state read says so now. */
  readonly bound: boolean;
};

/** A state document's tokens and the paragraph appends go to. */
type Data = { readonly text: string; readonly dataBlockId: BlockId | undefined };

/** Reads a state document's tokens, at most MAX_DOC_CHARS of them (a longer one is said, and its start read). */
export async function readData(client: KbClient, doc: StateDoc, junk: StateJunk): Promise<Data> {
  const read = dataOf(await client.readBlocks(doc.docKey));
  if (read.text.length <= MAX_DOC_CHARS) return read;
  junk.oversized.push(doc.title);
  return { text: read.text.slice(0, MAX_DOC_CHARS).replace(/\S*$/, ''), dataBlockId: undefined };
}

/**
 * Reads the index documents of a listing and folds their records. Nothing someone else put there stops the
 * run: a document whose title does not count (`trusted`), a token that is not whole, not verified (with a
 * key) or not a valid record is left out and counted. `bound`: tokens signed for the workspace alone are
 * not read (this machine saw the state bound to its folder); they are read until the state says so.
 */
export async function readIndex(
  deps: { readonly client: KbClient; readonly key: StateKey | undefined; readonly trusted: (doc: StateDoc) => boolean; readonly bound: boolean },
  listed: readonly StateDoc[],
): Promise<IndexRead> {
  const junk = emptyJunk();
  if (!deps.key) await keyedLookalikes(deps.client, listed, junk);
  const index = listed.filter((doc) => doc.family === 'state');
  // Without a key, the only documents not counted are the look-alikes just said.
  const readable = index.filter((doc) => deps.trusted(doc) || (deps.key && junk.unverifiedDocs.push(doc.title), false));
  const read: { readonly doc: StateDoc; readonly decoded: ReturnType<typeof decodeTokens> }[] = [];
  const docs: StateDoc[] = [];
  let chars = 0;
  let junkInARow = 0;
  // The newest first: a state larger than a run reads is one whose oldest documents are left; and after a
  // few documents in a row that hold nothing kbsync wrote (a colleague's junk), the rest are left. Both said.
  for (const doc of [...readable].sort(newestFirst)) {
    if (docs.length >= MAX_DOCS_READ || junkInARow >= MAX_JUNK_DOCS) {
      junk.unreadDocs += 1;
      continue;
    }
    const { text, dataBlockId } = await readData(deps.client, doc, junk);
    const decoded = decodeTokens(text, deps.key, doc.seq);
    junkInARow = decoded.index.length + decoded.chunks.length === 0 ? junkInARow + 1 : 0;
    read.push({ doc, decoded });
    chars += text.length;
    docs.push({ ...doc, dataBlockId, chars: text.length });
  }
  // Tokens signed for the workspace alone are read until the state says all of it is bound to this folder.
  const bound = deps.bound || read.some(({ decoded }) => decoded.index.some((token) => !token.workspace && token.records.some(({ record }) => record.t === 'team' && record.b === 1)));
  const seen = new Set<string>();
  const stamped: Stamped[] = [];
  const records = new Map<string, Stamped[]>();
  const found: { readonly doc: StateDoc; readonly unverified: number; readonly damaged: number; readonly dropped: number }[] = [];
  let workspaceBound = 0;
  for (const { doc, decoded } of read) {
    const usable = usableTokens(decoded.index, bound);
    let dropped = decoded.dropped;
    records.set(doc.docKey, usable.flatMap((token) => token.records));
    for (const token of usable) {
      if (seen.has(token.token)) continue;
      seen.add(token.token);
      if (token.workspace) workspaceBound += 1;
      if (stamped.length + token.records.length > MAX_RECORDS) dropped += token.records.length;
      else stamped.push(...token.records);
    }
    found.push({ doc, unverified: decoded.unverified + decoded.index.length - usable.length, damaged: decoded.damaged, dropped });
  }
  docs.sort(bySeq);
  const state = foldState(stamped);
  // What a retired document holds is on its way out (its good tokens are copied on): not said again.
  for (const { doc, unverified, damaged, dropped } of found) {
    if (state.retired.has(doc.docKey) || unverified + damaged + dropped === 0) continue;
    junk.unverifiedTokens += unverified;
    junk.damagedTokens += damaged;
    junk.droppedRecords += dropped;
    junk.docs.push(doc.title);
  }
  const replaced = listed.filter((doc) => !deps.trusted(doc) && state.retired.has(doc.docKey));
  junk.unverifiedDocs = junk.unverifiedDocs.filter((title) => !replaced.some((doc) => doc.title === title));
  return { state, read: docs, replaced, chars, junk, records, workspaceBound, bound };
}

/** The tokens a reader uses: those signed for the workspace alone only while the state is not bound to its folder. */
export const usableTokens = (tokens: readonly IndexToken[], bound: boolean): IndexToken[] => tokens.filter((token) => !(token.workspace && bound));

/** The index documents as listed (titles' keys and times), `times` overriding some. */
export const fingerprintOf = (docs: readonly StateDoc[], times: ReadonlyMap<string, string>): string =>
  JSON.stringify(docs.filter((doc) => doc.family === 'state').map((doc) => [doc.docKey, times.get(doc.docKey) ?? doc.modifiedTime ?? '']));

/**
 * The order a run reads index documents in: titles kbsync writes now before the older plain form (which
 * a colleague's copy is likelier to take), each newest first.
 */
function newestFirst(a: StateDoc, b: StateDoc): number {
  const legacy = (doc: StateDoc): number => (parseTitle(doc.title, undefined)?.signed === 'legacy' ? 1 : 0);
  return legacy(a) - legacy(b) || bySeq(b, a);
}

/**
 * A machine without the key, and documents titled as a kbsync with a key titles its state. A title says
 * nothing (anyone can give a document one); what a kbsync with a key writes into them does: signed pieces.
 * The newest are read (after MAX_JUNK_DOCS of them holding none, the rest are left, as for other junk):
 * one holding signed pieces is a keyed team's state, or a copy of one, which this machine cannot tell
 * apart, so it stops before doing anything (its records would be ignored by every kbsync with the key);
 * one holding none is someone else's document with a state-like title, left out and said once per run.
 */
async function keyedLookalikes(client: KbClient, listed: readonly StateDoc[], junk: StateJunk): Promise<void> {
  const keyed = listed.filter((doc) => parseTitle(doc.title, undefined)?.signed === 'keyed').sort((a, b) => b.seq - a.seq);
  for (const [i, doc] of keyed.entries()) {
    if (i >= MAX_JUNK_DOCS) {
      junk.unreadDocs += keyed.length - i;
      return;
    }
    const { text } = await readData(client, doc, junk);
    if (text.split(/\s+/).some(isSignedToken)) refuseWithoutKey(doc, keyed.length);
    junk.keyedLookalikes.push(doc.title);
  }
}

/**
 * A machine without the key must not write into a team's signed state: its records would be ignored by every
 * kbsync that has the key (the creation ids of what it makes lost to them), so it stops before doing anything.
 * What it found is said as it is: documents in the form a kbsync with a key writes, which may be the team's
 * state or a copy someone put there; and what to do in either case.
 */
function refuseWithoutKey(evidence: StateDoc, keyed: number): never {
  throw new SafetyError(
    'STATE_KEY_NEEDED',
    `The ${STATE_FOLDER} folder holds ${keyed === 1 ? '1 document' : `${keyed} documents`} written as a kbsync with a state key writes its state (${oneLine(evidence.title)}${keyed > 1 ? ` and ${keyed - 1} more titled so` : ''}, its pieces signed), and this machine has no key to check them with: what it wrote, the team's kbsyncs would ignore. It stops here.`,
    {
      hint:
        "If your team uses a state key, put it in this machine's key file (~/.config/kbsync/state-key-<workspace>; `kbsync clone` with KBSYNC_STATE_KEY set keeps it there) or set KBSYNC_STATE_KEY (or state.key); " +
        'in CI, pass it from a secret. If it has none, someone put those documents there: delete them in the knowledge base, then run again.',
    },
  );
}
