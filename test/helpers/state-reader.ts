import { createHash } from 'node:crypto';
import { decodeTokens, encodeRecords, encodeSource, type Stamped, type StateRecord } from '../../src/remote-state/codec.js';
import type { DumpedNode } from '../../src/emulator/index.js';
import { foldState, type SharedState } from '../../src/remote-state/state.js';
import { stateKey } from '../../src/remote-state/token.js';
import { stateNodes, TEST_STATE_KEY, type SyncFixture } from './sync-fixture.js';

/**
 * The shared state as a reader with the test team's key (null: a keyless reader) folds it, read straight
 * from the emulator (no call counted, nothing cached): what every later run will see.
 */
export function foldedState(f: SyncFixture, key: string | null = TEST_STATE_KEY): SharedState {
  const state = key === null ? undefined : stateKey(key, f.em.seed.workspaceId);
  const records: Stamped[] = [];
  const seen = new Set<string>();
  for (const node of stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-state-'))) {
    for (const token of decodeTokens(dataText(node), state).index) {
      if (seen.has(token.token)) continue;
      seen.add(token.token);
      records.push(...token.records);
    }
  }
  return foldState(records);
}

/** A state document's tokens: its paragraphs after the note. */
export const dataText = (node: DumpedNode): string => (node.markdown ?? '').split('\n\n').slice(1).join(' ');

/** Each user document's creation id, by docKey, as the service holds it. */
export function creationIds(f: SyncFixture): Map<string, string> {
  return new Map(f.remoteDocs().map((doc) => [doc.dentryUuid, doc.creationNodeId]));
}

/**
 * What is wrong with the state's creation ids: a document of the workspace whose entry lacks its id or
 * names another (a lost or mixed-up id is a document kbsync can never delete, or deletes wrongly).
 */
export function idProblems(f: SyncFixture, state: SharedState = foldedState(f)): string[] {
  return idFaults(f, state).map((fault) => fault.problem);
}

/** idProblems, each with the document it is about. */
export function idFaults(f: SyncFixture, state: SharedState = foldedState(f)): { readonly docKey: string; readonly problem: string }[] {
  const ids = creationIds(f);
  const faults: { docKey: string; problem: string }[] = [];
  for (const [docKey, nodeId] of ids) {
    const entry = [...state.entries.values()].find((e) => e.k === docKey);
    const title = f.remoteDocs().find((d) => d.dentryUuid === docKey)?.title;
    if (!entry) faults.push({ docKey, problem: `"${title}": no entry in the state` });
    else if (entry.n !== nodeId) faults.push({ docKey, problem: `"${title}" (${entry.p}): the state's creation id is ${String(entry.n)}, the service's ${nodeId}` });
  }
  return faults;
}

/**
 * What a colleague with edit rights can write into the state: tokens with a correct checksum (anyone can
 * compute it) but no signature of the team's key, stamped later than anything written so far.
 */
export function forgedToken(records: readonly StateRecord[], clock = Date.now() + 60_000): string {
  return encodeRecords(records, { w: 'forger', c: clock });
}

/** A forged source: its text under its own hash, as tokens. */
export const forgedSource = (text: string): { readonly hash: string; readonly tokens: readonly string[] } => {
  const hash = createHash('sha256').update(text).digest('hex');
  return { hash, tokens: encodeSource(hash, text) };
};

/** Appends text as a new paragraph to the newest state document of a family, as the web editor would. */
export function appendToState(f: SyncFixture, text: string, family: 'state' | 'sources' = 'state'): void {
  const docs = stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith(`kbsync-${family}-`)).sort((a, b) => (a.title < b.title ? -1 : 1));
  const target = docs.at(-1);
  if (!target) throw new Error(`no ${family} document to append to`);
  f.em.admin.editDocument(target.dentryUuid, `${(target.markdown ?? '').trimEnd()}\n\n${text}\n`);
}
