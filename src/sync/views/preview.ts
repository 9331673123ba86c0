import { WAITING_FOR_RECORD } from '../act/incoming.js';
import { TRASH_WAITS_FOR_GONE } from '../act/removals.js';
import { heldMessage } from '../decide/held.js';
import { blocksToMarkdown } from '../../markdown/index.js';
import { bodyOf, type Detail } from '../run/detail.js';
import type { DecisionKind } from '../decide/types.js';
import type { BodyDecision } from '../decide/body.js';
import { pushMarkdown } from '../decide/push-markdown.js';
import type { Previewed } from './decisions.js';
import type { UrlOfPath } from '../content/links.js';
import { oneLine } from '../../printable.js';
import type { LinkProblem } from '../../links/index.js';
import type { LocalProblem } from '../observe/observe-local.js';
import { linkReport } from '../content/run-links.js';
import type { Inspection } from './inspect.js';

/**
 * What a sync would write for one file, drawn from its decision (the one the run would carry out):
 * - `local`: the file now → the file the run would write (absent when the file would not change);
 * - `remote`: the knowledge base's body now, in the file's Markdown → the body the run would send.
 */
export type Preview = {
  readonly path: string;
  /** Where the file was, for a decision that moves it or its document. */
  readonly from?: string;
  readonly kind: DecisionKind;
  /** The URL of the document the decision deletes (a move's old document, a delete's). */
  readonly url?: string;
  /** The read the decision needed failed: the run would fail for this file the same way (unless it changes). */
  readonly error?: { readonly code: string; readonly message: string };
  readonly local?: { readonly before: string; readonly after: string };
  readonly remote?: { readonly before: string; readonly after: string };
  /** Blocks both sides changed differently: a conflict copy would be written. */
  readonly conflicts: number;
  readonly note?: string;
};

function previewOf(previewed: Previewed, urlOf: UrlOfPath | undefined): Preview {
  const { path, kind, from, url, error } = previewed;
  const note = error ? `${error.message} [${error.code}]` : (previewed.assessment?.held ? heldMessage(previewed.assessment.held, previewed.path) : previewed.note);
  const base = { path, ...(from === undefined ? {} : { from }), kind, ...(url === undefined ? {} : { url }), ...(error ? { error } : {}), conflicts: 0, ...(note ? { note } : {}) };
  const assessment = previewed.assessment;
  if (!assessment) return base;
  const detail = assessment.detail;
  const applied = bodyOf(detail);
  if (applied) return { ...base, ...bodySides(path, applied.before.text, applied.body, urlOf) };
  switch (detail.tag) {
    case 'create':
    case 'recreate':
      return detail.body.send ? { ...base, remote: { before: '', after: detail.body.send.markdown }, note: `a new document "${detail.title}" would be created` } : base;
    case 'new-local':
      // As the run: a page whose writer's record is on its way is not taken in yet.
      if (detail.waiting === true) return { ...base, note: WAITING_FOR_RECORD };
      return { ...base, local: { before: '', after: detail.text }, note: newLocalNote(detail) };
    case 'trash-local':
      // As the run: the file of a document deleted lately stays while the deleter's record may come.
      return detail.decision.kind === 'none' ? { ...base, note: TRASH_WAITS_FOR_GONE } : base;
    case 'restore':
      return { ...base, local: { before: '', after: detail.text }, ...(detail.at !== undefined ? { note: `it would come back at ${detail.at}, where its document was moved` } : {}) };
    case 'adopt': {
      const decision = detail.decision;
      if (decision.kind === 'pull') return { ...base, local: { before: detail.before.text, after: decision.nextFile } };
      if (decision.kind === 'conflict') return { ...base, conflicts: 1, note: 'the file and its existing document differ and share no history: the document\'s version would go beside the file' };
      if (decision.kind === 'replace' && decision.body.send) return { ...base, remote: { before: blocksToMarkdown(detail.remote), after: decision.body.send.markdown } };
      return base;
    }
    default:
      return base;
  }
}

function newLocalNote(detail: Detail<'new-local'>): string {
  const leftover = detail.leftover !== undefined ? ` (the copy an interrupted pull left at ${detail.leftover} would go to kbsync's trash)` : '';
  return `a new file from the document "${oneLine(detail.remote.title)}"${leftover}`;
}

/** The two diffs of a body decision: the file rewritten, the document written. */
function bodySides(path: string, fileText: string, body: BodyDecision, urlOf: UrlOfPath | undefined): Pick<Preview, 'local' | 'remote' | 'conflicts'> {
  return {
    conflicts: body.conflicts.length,
    ...(body.nextFile !== undefined ? { local: { before: fileText, after: body.nextFile } } : {}),
    ...(body.send ? { remote: { before: pushMarkdown(body.theirs, path, urlOf), after: body.send.markdown } } : {}),
  };
}

/** What a sync would do, file by file, with what it would say beside: `diff`'s report, the pull-request preview's input. */
type Previews = {
  readonly previews: readonly Preview[];
  readonly pending: readonly { readonly path: string; readonly reason: string }[];
  readonly problems: readonly LocalProblem[];
  /** The broken links the run would report: those of the files it sends, and links to the documents it deletes. */
  readonly links: readonly LinkProblem[];
};

/** The previews of an inspection's decisions (of the files `only` keeps), and what the run would report beside them. */
export function previewsOf(inspection: Inspection, only: (path: string) => boolean = () => true): Previews {
  const urlOf = inspection.urlOf;
  return {
    previews: (inspection.decisions ?? []).filter((d) => d.kind !== 'none' && only(d.path)).map((d) => previewOf(d, urlOf)),
    pending: inspection.plan.pending.filter((item) => only(item.path)),
    problems: inspection.local.problems.filter((p) => only(p.path)),
    links: (urlOf ? linkReport(urlOf, inspection, false) : []).filter((l) => only(l.path)),
  };
}
