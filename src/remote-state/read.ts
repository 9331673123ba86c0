import type { KbClient } from '../api/index.js';
import { SafetyError } from '../errors.js';
import type { BlockId } from '../model/ids.js';
import { decodeTokens, type Stamped } from './codec.js';
import { bySeq, dataOf, parseTitle, STATE_FOLDER, type StateDoc } from './documents.js';
import { emptyJunk, type StateJunk } from './junk.js';
import { MAX_DOC_CHARS, MAX_DOCS_READ, MAX_JUNK_DOCS, MAX_RECORDS } from './limits.js';
import { foldState, type SharedState } from './state.js';
import type { StateKey } from './token.js';

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
 * key) or not a valid record is left out and counted. Returns the index documents read as they now are.
 */
export async function readIndex(
  deps: { readonly client: KbClient; readonly key: StateKey | undefined; readonly trusted: (doc: StateDoc) => boolean },
  listed: readonly StateDoc[],
): Promise<Omit<LoadedState, 'docs' | 'authenticated'> & { readonly read: readonly StateDoc[] }> {
  if (!deps.key) refuseWithoutKey(listed);
  const junk = emptyJunk();
  const index = listed.filter((doc) => doc.family === 'state');
  const readable = index.filter((doc) => deps.trusted(doc) || (junk.unverifiedDocs.push(doc.title), false));
  const seen = new Set<string>();
  const stamped: Stamped[] = [];
  const records = new Map<string, Stamped[]>();
  const docs: StateDoc[] = [];
  const found: { readonly doc: StateDoc; readonly unverified: number; readonly damaged: number; readonly dropped: number }[] = [];
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
    let dropped = decoded.dropped;
    records.set(doc.docKey, decoded.index.flatMap((token) => token.records));
    for (const token of decoded.index) {
      if (seen.has(token.token)) continue;
      seen.add(token.token);
      if (stamped.length + token.records.length > MAX_RECORDS) dropped += token.records.length;
      else stamped.push(...token.records);
    }
    found.push({ doc, unverified: decoded.unverified, damaged: decoded.damaged, dropped });
    chars += text.length;
    docs.push({ ...doc, dataBlockId, chars: text.length });
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
  return { state, read: docs, chars, junk, records };
}

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
 * A machine without the key must not write into a team's signed state: its records would be ignored by every
 * kbsync that has the key (the creation ids of what it makes lost to them), so it stops before doing anything.
 */
function refuseWithoutKey(docs: readonly StateDoc[]): void {
  const signed = docs.filter((doc) => parseTitle(doc.title, undefined)?.signed === 'keyed');
  if (signed.length === 0) return;
  throw new SafetyError(
    'STATE_KEY_NEEDED',
    `This workspace's shared state is signed with a state key (${signed[0]?.title}${signed.length > 1 ? ` and ${signed.length - 1} more` : ''} in the ${STATE_FOLDER} folder), and this machine has none. Nothing was done.`,
    { hint: "Set the team's key in the environment variable KBSYNC_STATE_KEY (or configure state.key); in CI, pass it from a secret." },
  );
}
