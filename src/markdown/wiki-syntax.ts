import type { Nodes, Root } from 'mdast';
import { gatherAdmonitions, gatherIndentedAdmonitions, type AdmonitionMark } from './wiki/admonitions.js';
import { blockIdParagraph, dropBlockId } from './wiki/block-ids.js';
import { markCallout, type CalloutMark } from './wiki/callouts.js';
import { dropComments, type HiddenSpan } from './wiki/comments.js';
import { joinAcross, splitText, type WikiRef } from './wiki/links.js';
import { pointsOf, type Span } from './wiki/points.js';

/*
 * The wiki dialect of note vaults (Obsidian's): `[[Note]]`, `[[Note#Heading|label]]`, `![[diagram.png|300]]`,
 * `![[Note]]`, callouts `> [!note] Title`, admonitions and block ids (wiki/ holds each). The service's importer reads CommonMark, so a push lowers
 * them to it (src/vault/lower.ts): a link, an image, a bold label. The file keeps them as written, so kbsync
 * reads a vault's file the way the knowledge base will show what it sends: a wiki link is a link whose text
 * is what the editor shows, an image embed an image, a callout's marker its bold label. Then the outline of
 * the file and of what was sent agree block for block and word for word, and a colleague's edit beside a
 * `[[link]]` is written into the file around it (retext.ts), the `[[…]]` kept byte for byte.
 */

declare module 'mdast' {
  interface LinkData {
    wiki?: WikiRef;
  }
  interface ImageData {
    wiki?: WikiRef;
  }
  interface StrongData {
    callout?: CalloutMark;
  }
  interface BlockquoteData {
    admonition?: AdmonitionMark;
  }
  interface RootData {
    /** Where what the editor does not show (comments, block ids) is written: a push leaves it out. */
    hidden?: readonly HiddenSpan[];
    /** Where its comments are written: a pull keeps them whatever happens to the blocks around them (merge.ts). */
    comments?: readonly Span[];
  }
}

/**
 * Reads a freshly parsed tree of `markdown` in the wiki dialect, in place: each `[[…]]` in text becomes a
 * link (an image embed an image) holding the text it shows, each callout marker its bold label. Syntax the
 * source escapes (`\[\[`), and text inside links and code, stay text.
 */
export function readWikiSyntax(tree: Root, markdown: string, parseInline: (markdown: string) => Root): void {
  const points = pointsOf(markdown);
  // MkDocs admonitions first: their bodies are read anew (CommonMark takes them for code), comments and all.
  gatherIndentedAdmonitions(tree, markdown, points, parseInline);
  // What the editor does not show: no text, and left out of what a push sends. Block ids before comments: a
  // comment before one (`words %%why%% ^b15695`) would leave it a text of its own.
  const ids: Span[] = [];
  tree.children = tree.children.filter((block) => {
    const id = blockIdParagraph(block, markdown);
    if (id) ids.push(id);
    return id === undefined;
  });
  const dropIds = (node: Nodes): void => {
    if (node.type === 'paragraph' || node.type === 'heading') dropBlockId(node, markdown, points, ids);
    if ('children' in node) for (const child of node.children) dropIds(child);
  };
  dropIds(tree);
  const { comments, hidden: uncommented } = dropComments(tree, markdown, points);
  const walk = (node: Nodes): void => {
    if (node.type === 'link' || node.type === 'linkReference' || !('children' in node)) return;
    if (node.type === 'blockquote') markCallout(node, markdown, points);
    const parent = node as { children: Nodes[] };
    if (node.type === 'root' || node.type === 'blockquote' || node.type === 'listItem') gatherAdmonitions(parent, markdown, points);
    const split = parent.children.flatMap((child): Nodes[] => (child.type === 'text' ? splitText(child, markdown, points) : [child]));
    parent.children = joinAcross(split, markdown, points, parseInline);
    for (const child of parent.children) walk(child);
  };
  walk(tree);
  const hidden = disjoint([...ids, ...uncommented]);
  if (hidden.length > 0) (tree.data ??= {}).hidden = hidden;
  if (comments.length > 0) (tree.data ??= {}).comments = comments;
}

/** Spans in order, those that overlap (a comment widened over the blank before a block id) made one. */
function disjoint(spans: readonly HiddenSpan[]): HiddenSpan[] {
  const out: HiddenSpan[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && span.start < last.end) out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end), ...((last.sent ?? span.sent) === undefined ? {} : { sent: last.sent ?? span.sent }) };
    else out.push(span);
  }
  return out;
}

/** What the lowering rewrites in a body: its wiki links and embeds, its callout markers, its admonitions, and what it leaves out. */
export function wikiSyntaxIn(tree: Root): { readonly refs: WikiRef[]; readonly callouts: CalloutMark[]; readonly admonitions: AdmonitionMark[]; readonly hidden: readonly HiddenSpan[] } {
  const refs: WikiRef[] = [];
  const callouts: CalloutMark[] = [];
  const admonitions: AdmonitionMark[] = [];
  const walk = (node: Nodes): void => {
    if ((node.type === 'link' || node.type === 'image') && node.data?.wiki) refs.push(node.data.wiki);
    else if (node.type === 'strong' && node.data?.callout) callouts.push(node.data.callout);
    else if (node.type === 'blockquote' && node.data?.admonition) admonitions.push(node.data.admonition);
    if ('children' in node) for (const child of node.children) walk(child as Nodes);
  };
  walk(tree);
  return { refs, callouts, admonitions, hidden: tree.data?.hidden ?? [] };
}
