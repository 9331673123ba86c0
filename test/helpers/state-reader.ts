import { decodeTokens, type Stamped } from '../../src/remote-state/codec.js';
import type { DumpedNode } from '../../src/emulator/index.js';
import { foldState, type SharedState } from '../../src/remote-state/state.js';
import { stateKey } from '../../src/remote-state/token.js';
import { stateNodes, TEST_STATE_KEY, type SyncFixture } from './sync-fixture.js';

/**
 * The shared state as a reader with the test team's key folds it, read straight from the emulator (no
 * call counted, nothing cached): what every later run will see.
 */
export function foldedState(f: SyncFixture, key: string | undefined = TEST_STATE_KEY): SharedState {
  const state = key === undefined ? undefined : stateKey(key, f.em.seed.workspaceId);
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
  const ids = creationIds(f);
  const problems: string[] = [];
  for (const [docKey, nodeId] of ids) {
    const entry = [...state.entries.values()].find((e) => e.k === docKey);
    const title = f.remoteDocs().find((d) => d.dentryUuid === docKey)?.title;
    if (!entry) problems.push(`"${title}": no entry in the state`);
    else if (entry.n !== nodeId) problems.push(`"${title}" (${entry.p}): the state's creation id is ${String(entry.n)}, the service's ${nodeId}`);
  }
  return problems;
}
