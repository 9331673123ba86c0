import type { DumpedNode } from '../../src/emulator/index.js';
import type { Random } from '../chaos/random.js';
import type { Passing } from '../helpers/gate-proxy.js';
import { stateNodes, userNodes } from '../helpers/sync-fixture.js';
import { documentIn, type Hold } from './interleave.js';

/**
 * The holds a step's runs meet (model holds, issue 44), drawn from a stream of their own: now and then one run's
 * publishing of its records waits while other machines edit and sync once or twice (`whileHeld`), so a record
 * comes after another machine's later write (convergence soak 726); and now and then, of two runs, one stops right
 * before the first body of a document it made until the other has finished or waits at its own hold (soak 728: a
 * listing and a read of the page as made, empty, its reader's record coming after the writer's).
 */
export function drawHolds(h: Random, names: readonly string[], nodes: () => readonly DumpedNode[], whileHeld: (holder: string) => Promise<void>): { readonly holds: readonly Hold[]; readonly newPageOf?: string } {
  const holds: Hold[] = [];
  if (h.chance(0.4)) {
    const holder = h.pick(names);
    holds.push({ name: holder, at: recordPublish(nodes), then: () => whileHeld(holder) });
  }
  if (names.length < 2 || !h.chance(0.5)) return { holds };
  const newPageOf = h.pick(names);
  return { holds: [...holds, { name: newPageOf, at: (request) => isFirstBodyOfNew(request, nodes) }], newPageOf };
}

const segments = (path: string): string[] => (path.split('?')[0] ?? '').split('/');
const isCreate = (request: Passing): boolean => request.method === 'POST' && segments(request.path).at(-1) === 'docs';

const STATE_TITLE = /^kbsync-(state|sources)-/;

/** A write of kbsync's shared state: a state document made, or written to. */
export function isStateWrite(request: Passing, nodes: () => readonly DumpedNode[]): boolean {
  if (request.method !== 'POST') return false;
  if (isCreate(request)) return STATE_TITLE.test(nameIn(request.body));
  const last = segments(request.path).at(-1);
  if (last !== 'appendText' && last !== 'overwriteContent') return false;
  const docKey = documentIn(request.path);
  return docKey !== undefined && stateNodes([...nodes()]).some((node) => node.dentryUuid === docKey);
}

/**
 * Which of a run's calls, asked of each in turn, publishes its records: a state write, but for the one that follows
 * the run's creates of documents (their creation ids, appended before their first bodies).
 */
export function recordPublish(nodes: () => readonly DumpedNode[]): (request: Passing) => boolean {
  let idsOwed = false;
  return (request) => {
    if (isCreate(request) && !isStateWrite(request, nodes)) idsOwed = true;
    if (!isStateWrite(request, nodes)) return false;
    const ids = idsOwed;
    idsOwed = false;
    return !ids;
  };
}

/** The first body of a document: an overwrite of one of the user's documents, still empty as its create made it. */
export function isFirstBodyOfNew(request: Passing, nodes: () => readonly DumpedNode[]): boolean {
  if (request.method !== 'POST' || segments(request.path).at(-1) !== 'overwriteContent') return false;
  const docKey = documentIn(request.path);
  return userNodes([...nodes()]).some((node) => node.dentryUuid === docKey && node.docType === 'DOC' && (node.markdown ?? '') === '');
}

function nameIn(body: string): string {
  try {
    const parsed = JSON.parse(body) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : '';
  } catch {
    return '';
  }
}
