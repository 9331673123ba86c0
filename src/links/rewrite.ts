import type { Definition, Link } from 'mdast';
import { imageDefinitionIds } from '../images/find.js';
import { visit } from 'unist-util-visit';
import { factOf } from '../markdown/parse.js';
import { rememberShiftedOutline } from '../markdown/outline.js';
import { destinationSpan, unescapeDestination } from './destination.js';
import type { LinkOutcome, LinkProblem, SourceOf, Span } from './types.js';
import { asWritten, columnAt, type WrittenAs } from './written.js';

/** One link or definition of a Markdown body, where it is written, and what its URL means. */
export type LinkUse = {
  readonly url: string;
  /** 1-based line in the body. */
  readonly line: number;
  /** The whole link's (or definition's) characters in the body. */
  readonly at: Span;
  /** The link as written in the body, quoted for a report (asWritten), and its column. */
  readonly written: string;
  readonly column: number;
  readonly outcome: LinkOutcome;
  /** The destination's characters in the source, when they can be told apart from the rest. */
  readonly span: Span | undefined;
};

/**
 * Every link and link reference definition of `markdown` (the same CommonMark + GFM reading the push uses),
 * resolved. Images, and definitions only images use, are src/images' business: they are files to publish, not documents.
 */
export function linkUses(markdown: string, resolve: (url: string) => LinkOutcome): LinkUse[] {
  return linksOf(markdown).map((link) => ({ ...link, outcome: resolve(link.url) }));
}

/** The links of a text as written, before they are resolved (that depends on the file's place). */
const linksOf = factOf((tree, markdown): Omit<LinkUse, 'outcome'>[] => {
  const links: Omit<LinkUse, 'outcome'>[] = [];
  const imageDefinitions = imageDefinitionIds(tree);
  visit(tree, (node) => {
    if (node.type !== 'link' && node.type !== 'definition') return;
    const target = node as Link | Definition;
    if (target.type === 'definition' && imageDefinitions.has(target.identifier)) return;
    const span = destinationSpan(markdown, target);
    const exact = span && unescapeDestination(markdown.slice(span.start, span.end)) === target.url ? span : undefined;
    const at = { start: target.position?.start.offset ?? 0, end: target.position?.end.offset ?? 0 };
    links.push({ url: target.url, line: target.position?.start.line ?? 1, at, written: asWritten(markdown.slice(at.start, at.end)), column: columnAt(markdown, at.start), span: exact });
  });
  return links;
});

type Rewritten = {
  /** The body with every link to a synced file that has a document replaced by the document's URL. */
  readonly markdown: string;
  /** Links to synced files whose document has no URL yet (created later in the run, or a dry run). */
  readonly waiting: readonly string[];
  /** Synced files whose URL went into the body, with that URL. */
  readonly linked: ReadonlyMap<string, string>;
};

/**
 * Rewrites the destinations of links to synced files as their documents' URLs (`#anchor` as the
 * knowledge base's heading id), by source offsets: every other byte of the body stays as written.
 * Broken links are left as written; `linkProblems` reports them.
 */
export function rewriteLinks(markdown: string, uses: readonly LinkUse[], urlOf: (path: string) => string | undefined, also: readonly SpanEdit[] = []): Rewritten {
  const edits: SpanEdit[] = [...also];
  const waiting = new Set<string>();
  const linked = new Map<string, string>();
  for (const use of uses) {
    const outcome = use.outcome;
    if (outcome.kind === 'self') {
      if (use.span && outcome.anchor !== use.url.slice(1)) edits.push({ span: use.span, url: `#${outcome.anchor}`, destination: true });
      continue;
    }
    const path = outcome.kind === 'file' || outcome.kind === 'broken' ? outcome.path : undefined;
    if (path === undefined || !use.span) continue;
    const url = urlOf(path);
    if (url === undefined) {
      waiting.add(path);
      continue;
    }
    linked.set(path, url);
    const anchor = outcome.kind === 'file' && outcome.anchor !== undefined ? `#${outcome.anchor}` : '';
    edits.push({ span: use.span, url: url + anchor, destination: true });
  }
  return { markdown: applyEdits(markdown, edits), waiting: [...waiting], linked };
}

/**
 * Text to put in place of a span of the source (a link's or an image's URL, a diagram's fence).
 * `destination`: the span is a Markdown link's, image's or definition's destination.
 */
export type SpanEdit = { readonly span: Span; readonly url: string; readonly destination?: true };

/** The source with each span replaced; the spans never overlap. */
export function applyEdits(markdown: string, edits: readonly SpanEdit[]): string {
  let out = markdown;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start)) out = out.slice(0, edit.span.start) + edit.url + out.slice(edit.span.end);
  if (edits.every(keepsBlocks)) rememberShiftedOutline(markdown, edits.map((e) => ({ start: e.span.start, end: e.span.end, length: e.url.length })), out);
  return out;
}

/**
 * Where each span of `applyEdits(body, edits)`'s text was written in `body`: an offset inside an edit's
 * replacement is that edit's span (a wiki link lowered to Markdown maps to the wiki link); elsewhere, the offset
 * shifted back by the edits before it. `made`: the span lies within one replacement (the edit wrote it).
 */
export function editOrigins(edits: readonly SpanEdit[]): SourceOf {
  let shift = 0;
  const placed = [...edits]
    .sort((a, b) => a.span.start - b.span.start)
    .map((edit) => {
      const start = edit.span.start + shift;
      shift += edit.url.length - (edit.span.end - edit.span.start);
      return { edit, start, end: start + edit.url.length, shift };
    });
  /** A start maps to the start of the edit it falls in; an end, to the end of the edit it closes in. */
  const back = (offset: number, end: boolean): { readonly at: number; readonly in?: SpanEdit } => {
    let before = 0;
    for (const p of placed) {
      if (end ? offset <= p.start : offset < p.start) break;
      if (end ? offset <= p.end : offset < p.end) return { at: end ? p.edit.span.end : p.edit.span.start, in: p.edit };
      before = p.shift;
    }
    return { at: offset - before };
  };
  return (span) => {
    const start = back(span.start, false);
    const end = back(span.end, true);
    return { span: { start: start.at, end: end.at }, made: start.in !== undefined && start.in === end.in };
  };
}

/**
 * A Markdown destination replaced by one that cannot end it early or change how the rest reads (no blank,
 * bracket, parenthesis or backslash): the body's blocks and texts stay as they were, so its outline needs
 * no parse. HTML (`<img src>`) is not one: the service shows its characters as text.
 */
const keepsBlocks = (edit: SpanEdit): boolean => edit.destination === true && /^[^\s<>()[\]\\]*$/.test(edit.url);

/**
 * The links of one file that cannot work in the knowledge base; `lineOffset` is the front matter's lines;
 * `writtenAs`, where a body sent is not the one written (a vault's, lowered), what the file has at a link.
 */
export function linkProblems(path: string, uses: readonly LinkUse[], lineOffset: number, writtenAs?: (use: LinkUse) => WrittenAs): LinkProblem[] {
  const problems: LinkProblem[] = [];
  for (const use of uses) {
    const at = problemAt(path, use, lineOffset, writtenAs);
    if (use.outcome.kind === 'broken') problems.push({ ...at, reason: use.outcome.reason, message: use.outcome.detail });
    else if (use.outcome.kind === 'file' && !use.span) {
      problems.push({ ...at, reason: 'malformed', message: 'kbsync cannot find where this destination is written (an unusual escape), so it cannot replace it with the document URL' });
    }
  }
  return problems;
}

/** Where a reported link is, as the user wrote it: a link the lowering made (a wiki link) is named by what was written. */
export function problemAt(path: string, use: LinkUse, lineOffset: number, writtenAs: ((use: LinkUse) => WrittenAs) | undefined): Pick<LinkProblem, 'path' | 'line' | 'column' | 'target' | 'written'> {
  const as = writtenAs?.(use) ?? { written: use.written, column: use.column, made: false };
  return { path, line: use.line + lineOffset, column: as.column, target: as.made ? as.written : use.url, written: as.written };
}
