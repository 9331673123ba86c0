import { createHash } from 'node:crypto';
import { decodeTokens, encodeRecords, encodeSource, joinSource, type SourceChunk, type Stamped, type StateRecord } from '../../src/remote-state/codec.js';
import type { DumpedNode } from '../../src/emulator/index.js';
import { foldState, type SharedState } from '../../src/remote-state/state.js';
import { readFileSync } from 'node:fs';
import { frame, stateKey, type StateKey } from '../../src/remote-state/token.js';
import { stateNodes, TEST_STATE_KEY, type SyncFixture } from './sync-fixture.js';

/**
 * The shared state as a reader with the test team's key (null: a keyless reader) folds it, read straight
 * from the emulator (no call counted, nothing cached): what every later run will see.
 */
export function foldedState(f: SyncFixture, key: string | null = TEST_STATE_KEY): SharedState {
  const state = key === null ? undefined : keyOf(f, key);
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

/** The team's key as the fixture's kbsync signs with it: bound to its workspace and its synced folder (its remoteFolder, else the workspace's root). */
export function keyOf(f: SyncFixture, key: string = TEST_STATE_KEY): StateKey {
  const config = JSON.parse(readFileSync(f.configPath, 'utf8')) as { workspaceId: string; remoteFolder?: string | null };
  const root = config.remoteFolder ?? f.em.admin.dump().workspaces.find((w) => w.workspaceId === config.workspaceId)?.rootNodeId ?? '';
  return stateKey(key, config.workspaceId, root);
}

/**
 * The source the shared state keeps for each document (by docKey) as its latest record gives it, read from a dump's
 * state documents without a key: what another machine was told of the file (its front matter included), not
 * whether a reader with the team's key would trust it.
 */
export function sharedSources(nodes: readonly DumpedNode[]): Map<string, string> {
  const records: Stamped[] = [];
  const chunks: SourceChunk[] = [];
  stateNodes(nodes).forEach((node, order) => {
    const decoded = decodeTokens(dataText(node), undefined, order);
    for (const token of decoded.index) records.push(...token.records);
    chunks.push(...decoded.chunks);
  });
  const out = new Map<string, string>();
  for (const entry of foldState(records).entries.values()) {
    const text = joinSource(chunks.filter((chunk) => chunk.h === entry.h));
    if (text !== undefined) out.set(entry.k, text);
  }
  return out;
}

/** A state document's tokens: its paragraphs after the note. */
export const dataText = (node: DumpedNode): string => (node.markdown ?? '').split('\n\n').slice(1).join(' ');

/**
 * What is wrong with the state's creation ids: a document of the workspace whose entry lacks its id or
 * names another (a lost or mixed-up id is a document kbsync can never delete, or deletes wrongly).
 */
export function idProblems(f: SyncFixture, state: SharedState = foldedState(f)): string[] {
  return idFaults(f, state).map((fault) => fault.problem);
}

/**
 * idProblems, each with the document it is about. The service's documents are read once (each read is a dump of
 * the whole emulator; once per document made the crash matrices' checks quadratic in their documents).
 */
export function idFaults(f: SyncFixture, state: SharedState = foldedState(f)): { readonly docKey: string; readonly problem: string }[] {
  const entries = [...state.entries.values()];
  const faults: { docKey: string; problem: string }[] = [];
  for (const { dentryUuid: docKey, creationNodeId: nodeId, title } of f.remoteDocs()) {
    const entry = entries.find((e) => e.k === docKey);
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

/**
 * The shared state as kbsync wrote it before it published the team's settings: every team record taken out
 * of the index (the other records of its token kept, stamps and signature as the team's key makes them).
 */
export function withoutTeamRecords(f: SyncFixture, key: string | null = TEST_STATE_KEY): void {
  const signer = key === null ? undefined : keyOf(f, key);
  for (const node of stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-state-'))) {
    const decoded = decodeTokens(dataText(node), signer).index;
    if (!decoded.some((token) => token.records.some((stamped) => stamped.record.t === 'team'))) continue;
    let text = dataText(node);
    for (const token of decoded) {
      const kept = token.records.filter((stamped) => stamped.record.t !== 'team');
      if (kept.length === token.records.length) continue;
      const again = kept.length === 0 ? '' : encodeRecords(kept.map((s) => ({ ...s.record, '@': [s.c, s.w, s.i] as const })), { w: 'rewriter', c: 0 }, signer);
      text = text.replace(token.token, again);
    }
    const note = (node.markdown ?? '').split('\n\n')[0] ?? '';
    f.em.admin.editDocument(node.dentryUuid, `${note}\n\n${text.replace(/\s+/g, ' ').trim()}\n`);
  }
}

/** The fixture's state documents: those in the `.kbsync` folder of its synced folder. */
function ownStateNodes(f: SyncFixture): DumpedNode[] {
  const config = JSON.parse(readFileSync(f.configPath, 'utf8')) as { workspaceId: string; remoteFolder?: string | null };
  const nodes = f.em.admin.dump().nodes;
  const root = config.remoteFolder ?? nodes.find((n) => n.docType === 'ROOT' && n.workspaceId === config.workspaceId)?.dentryUuid;
  const folder = nodes.find((n) => n.docType === 'FOLDER' && n.title === '.kbsync' && n.parentId === root);
  return stateNodes(nodes).filter((n) => n.parentId === folder?.dentryUuid);
}

/**
 * The fixture's shared state as kbsync signed it before records were bound to their synced folder: every token
 * signed for the workspace alone, and no team record (kbsync then published none).
 */
export function asSignedBefore(f: SyncFixture, key: string = TEST_STATE_KEY): void {
  const bound = keyOf(f, key);
  const unbound: StateKey = { tag: bound.workspaceTag, workspaceTag: bound.workspaceTag };
  for (const node of ownStateNodes(f)) {
    const tokens = dataText(node).split(/\s+/).filter(Boolean).map((raw) => {
      const decoded = decodeTokens(raw, bound);
      const index = decoded.index[0];
      if (index) {
        const kept = index.records.filter((s) => s.record.t !== 'team');
        return kept.length === 0 ? '' : encodeRecords(kept.map((s) => ({ ...s.record, '@': [s.c, s.w, s.i] as const })), { w: 'before', c: 0 }, unbound);
      }
      const chunk = decoded.chunks[0];
      return chunk ? frame('s', Buffer.concat([Buffer.from(`${JSON.stringify({ h: chunk.h, i: chunk.i, of: chunk.of })}\n`), chunk.data]), unbound) : raw;
    });
    const note = (node.markdown ?? '').split('\n\n')[0] ?? '';
    f.em.admin.editDocument(node.dentryUuid, `${note}\n\n${tokens.filter(Boolean).join(' ')}\n`);
  }
}

/** The index tokens of the fixture's state that its key verifies only for the workspace (signed before binding). */
export const unboundTokens = (f: SyncFixture, key: string = TEST_STATE_KEY): number =>
  ownStateNodes(f)
    .filter((n) => n.title.startsWith('kbsync-state-'))
    .reduce((sum, node) => sum + decodeTokens(dataText(node), keyOf(f, key)).index.filter((token) => token.workspace).length, 0);
