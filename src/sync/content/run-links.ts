import { pathsNamed } from '../../printable.js';
import { createLinker, type LinkCheck, type Linker, type LinkerInput, type LinkProblem, type LinkSite, type Lowering } from '../../links/index.js';
import type { ImagePublisher } from '../../images/publisher.js';
import type { Ledger } from '../../ledger/index.js';
import type { SyncContext } from '../run/context.js';
import { pathOf } from '../decide/placement.js';
import type { Action, ActionKind, SyncMode } from '../decide/types.js';
import { execute, type ActionResult } from '../run/executor.js';
import { recordEntryOf, type Observation } from '../observe/observe.js';
import type { WhyUnsynced } from './unsynced.js';

/** Where links start from when the config says nothing: the synced root, served at the top of its host. */
export const DEFAULT_SITE: LinkSite = { root: '', basePath: '/' };

/** Actions that send a file's body: the files whose links a run reports. */
const SENDS: ReadonlySet<ActionKind> = new Set(['create', 'adopt', 'push', 'merge', 'recreate', 'move']);

/** Decisions that make a new document, so a new URL other files may link to. */
const NEW_DOCUMENT: ReadonlySet<string> = new Set(['create', 'recreate', 'move']);

/** The files this run renamed (decideMove's `rename`: the document stays, its record follows the file), old path → new. */
const renamesOf = (results: readonly ActionResult[]): Map<string, string> =>
  new Map(results.flatMap((r) => (r.ok && r.action === 'rename' && r.from !== undefined ? [[r.from, r.path] as const] : [])));

/**
 * The paths this run gave a document URL they did not have: a new document's, or (a rename) the one a file
 * took along to its new path. A link to such a path, sent before, went out as written.
 */
const newlyAddressed = (results: readonly ActionResult[], renames: ReadonlyMap<string, string>): Set<string> =>
  new Set([...results.filter((r) => r.ok && NEW_DOCUMENT.has(r.action)).map((r) => r.path), ...renames.values()]);

/**
 * The run's links, over the files this run syncs. A document's URL comes from the ledger; else, when the
 * run listed the service, from the listing: the document a planner record (the shared state's, for a
 * fresh checkout) names, the one a file is about to be linked to (adopt), or the one at that path. A file
 * renamed where its document already fits (decideMove's `rename`) has its document's URL at the new path
 * from the start: a body linking to that path, decided before the record follows the file (a page whose
 * link was changed along with the rename), goes out once, with it.
 */
export function runLinker(observation: Observation, ledger: Pick<Ledger, 'documents'> | undefined, site: LinkSite, rewrites: Pick<LinkerInput, 'links' | 'images' | 'lower' | 'unsynced'> = {}): Linker {
  const listed = observation.remote?.docs;
  const adopting = new Map(observation.plan.actions.flatMap((action) => (action.kind === 'adopt' ? [[action.path, action.remote.url] as const] : [])));
  const renaming = new Map(observation.plan.actions.flatMap((action) => (action.kind === 'move' && action.samePlace && action.to !== action.record.path ? [[action.to, action.record.path] as const] : [])));
  const atPath = new Map([...(listed?.values() ?? [])].map((doc) => [doc.localPath, doc.url]));
  const recorded = (path: string): string | undefined => {
    const docKey = observation.records.get(path)?.docKey;
    return docKey === undefined ? undefined : listed?.get(docKey)?.url;
  };
  const known = (path: string): string | undefined => ledger?.documents.summary(path)?.url ?? recorded(path);
  const renamedFrom = (path: string): string | undefined => {
    const from = renaming.get(path);
    return from === undefined ? undefined : known(from);
  };
  return createLinker({
    root: observation.scan.root,
    site,
    synced: new Set(observation.local.entries.keys()),
    known: (path) => observation.local.texts.get(path)?.text,
    urlOf: (path) => known(path) ?? renamedFrom(path) ?? adopting.get(path) ?? atPath.get(path),
    ...rewrites,
  });
}

/**
 * What a push does to a body on its way out, for the run and every preview alike: its links to synced files
 * become document URLs (config `links`), its local images their published URLs. Undefined for a pull.
 */
export function pushRewriter(
  observation: Observation,
  ledger: Pick<Ledger, 'documents'> | undefined,
  options: { readonly mode: SyncMode; readonly links: boolean; readonly site?: LinkSite | undefined; readonly images: ImagePublisher; readonly lower?: Lowering | undefined; readonly unsynced?: WhyUnsynced },
): Linker | undefined {
  if (options.mode === 'pull') return undefined;
  return runLinker(observation, ledger, options.site ?? DEFAULT_SITE, { links: options.links, images: options.images, ...(options.lower ? { lower: options.lower } : {}), ...(options.unsynced ? { unsynced: options.unsynced } : {}) });
}

/** Files whose body this run sends (or may: the decision reads the document first). */
export const sentPaths = (observation: Observation): string[] => observation.plan.actions.filter((action) => SENDS.has(action.kind)).map(pathOf);

/**
 * Broken links of the files this run sends, or (`all`, for --check-links) of every synced file; and in any
 * case the links of unchanged files to documents this run deletes, which die with them.
 */
export function linkReport(linker: Linker, observation: Observation, all: boolean): LinkProblem[] {
  if (all) return checkEveryLink(linker, observation).problems;
  const actions = observation.plan.actions;
  const paths = sentPaths(observation);
  const reported = linker.problems(paths);
  const checked = new Set(paths);
  const orphaned = linker.orphaned(new Set(actions.filter((action) => action.kind === 'delete-remote').map(pathOf))).filter((p) => !checked.has(p.path));
  return [...reported, ...orphaned];
}

/** The links of every synced file checked (--check-links): what was checked, and the broken ones. */
export const checkEveryLink = (linker: Linker, observation: Pick<Observation, 'local'>): LinkCheck => linker.check([...observation.local.entries.keys()].sort());

/** Files whose bodies must still be sent again for their links (a run stopped or failed before it could). */
const RESEND_KEY = 'links.resend';

/**
 * The service reads a body back as plain text, so no later run can see that a link was sent before its
 * target had a document. After the run, the bodies holding such links (sent earlier in this run, or in
 * an earlier run when the target did not exist yet) are sent again, now with the documents' URLs. The
 * list is kept in the ledger until they are, so a run stopped (`stopped`) or failing first leaves it to the next.
 * Only failures are returned: each file was already counted by the action that sent it first.
 */
export async function relink(ctx: SyncContext, results: readonly ActionResult[], stopped: boolean): Promise<ActionResult[]> {
  const linker = ctx.urlOf;
  if (!linker) return [];
  const renames = renamesOf(results);
  const fresh = newlyAddressed(results, renames);
  const failed = new Set(results.filter((r) => !r.ok).map((r) => r.path));
  // A body rewritten but not sent (the service already agreed, as far as it can see) may still hold the old link.
  const pushed = new Set(results.filter((r) => r.ok && r.result === 'pushed').map((r) => r.path));
  const stored = ctx.ledger.meta.get(RESEND_KEY);
  // A body owed to a document that a rename kept is owed at the file's new path (a move's new document got its body whole).
  const storedOwed = (Array.isArray(stored) ? stored.filter((p): p is string => typeof p === 'string') : []).map((path) => renames.get(path) ?? path);
  const owed = new Set([...storedOwed, ...linker.stale(fresh, (path) => pushed.has(path))]);
  const remember = (paths: readonly string[]): void => {
    if (paths.length > 0) ctx.ledger.meta.set(RESEND_KEY, [...paths]);
    else ctx.ledger.meta.delete(RESEND_KEY);
  };
  const actions: Action[] = [...owed].sort().flatMap((path) => {
    const summary = ctx.ledger.documents.summary(path);
    return summary && !failed.has(path) ? [{ kind: 'push' as const, record: recordEntryOf(summary) }] : [];
  });
  if (stopped || actions.length === 0) {
    remember(stopped ? [...owed] : [...owed].filter((path) => failed.has(path)));
    return [];
  }
  ctx.logger.info(pathsNamed(actions.map(pathOf)), 'sending %d document(s) again so their links point at documents made or renamed since they were sent', actions.length);
  remember([...owed]);
  const again = await execute({ ...ctx, urlOf: linker.resending(new Set(actions.map(pathOf))) }, actions);
  const notDone = again.filter((result) => !result.ok);
  remember([...notDone.map((r) => r.path), ...[...owed].filter((path) => failed.has(path))]);
  return notDone;
}
