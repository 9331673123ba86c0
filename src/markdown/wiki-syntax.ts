import type { Blockquote, Image, Link, Nodes, Paragraph, PhrasingContent, Root, Strong, Text } from 'mdast';
import type { Point, Position } from 'unist';
import { isImageFile } from '../images/media-type.js';
import { charMap } from './source-map.js';

/*
 * The wiki dialect of note vaults (Obsidian's): `[[Note]]`, `[[Note#Heading|label]]`, `![[diagram.png|300]]`,
 * `![[Note]]`, and callouts `> [!note] Title`. The service's importer reads CommonMark, so a push lowers
 * them to it (src/vault/lower.ts): a link, an image, a bold label. The file keeps them as written, so kbsync
 * reads a vault's file the way the knowledge base will show what it sends: a wiki link is a link whose text
 * is what the editor shows, an image embed an image, a callout's marker its bold label. Then the outline of
 * the file and of what was sent agree block for block and word for word, and a colleague's edit beside a
 * `[[link]]` is written into the file around it (retext.ts), the `[[…]]` kept byte for byte.
 */

/** A wiki link or embed as written. */
export type WikiRef = {
  readonly embed: boolean;
  /** The note or file it names, as written (`folder/Note`, `diagram.png`); '' for a heading of the same note (`[[#Heading]]`). */
  readonly target: string;
  /** After the first `#`: a heading (`Heading`, nested `H1#H2`) or a block (`^id`). */
  readonly fragment: string | undefined;
  /** After the first `|`: the text shown; for an image embed, its size (`300`, `300x200`) or its alt text. */
  readonly label: string | undefined;
  /** The whole `[[…]]`, its `!` included, in the source. */
  readonly start: number;
  readonly end: number;
  /** 1-based line in the source. */
  readonly line: number;
  /** The label is Markdown, sent as written (it holds code: `[[Functions#hasTag|`hasTag`]]`). */
  readonly markup?: true;
};

/** A callout's marker (`[!warning]-`) at the start of a quote. */
type CalloutMark = {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  /** The bold label it reads as: `Warning:` before a title, `Warning` alone. */
  readonly label: string;
};

/** A docs-site admonition (`:::tip Title` … `:::`): where its opening marker and closing line are. */
type AdmonitionMark = {
  readonly start: number;
  /** The end of `:::tip` on the opening line. */
  readonly markerEnd: number;
  /** The closing `:::` line. */
  readonly closeStart: number;
  readonly end: number;
  readonly label: string;
  /** MkDocs's: the marker line is the whole opening, and the body is indented (no closing line). */
  readonly indented?: true;
};

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
    /** Where the block ids (` ^id`) are written: a push leaves them out. */
    blockIds?: readonly Span[];
  }
}

const WIKI = /(!?)\[\[([^[\]\n]+?)\]\]/g;
const CALLOUT = /^\[!([\p{L}\p{N}][\p{L}\p{N}_-]*)\]([+-]?)/u;
const IMAGE_SIZE = /^\s*\d+(\s*x\s*\d+)?\s*$/;

/** The parts of `target#fragment|label` (the text between the brackets, escapes read). */
function refOf(inner: string, embed: boolean, start: number, end: number, line: number): WikiRef {
  const bar = inner.indexOf('|');
  const path = bar === -1 ? inner : inner.slice(0, bar);
  const hash = path.indexOf('#');
  const fragment = hash === -1 ? undefined : path.slice(hash + 1).trim();
  return {
    embed,
    target: (hash === -1 ? path : path.slice(0, hash)).trim(),
    fragment: fragment === '' ? undefined : fragment,
    label: bar === -1 ? undefined : inner.slice(bar + 1).trim() || undefined,
    start,
    end,
    line,
  };
}

/** Is this an embed of an image (shown as one), rather than of a note or another file (a link)? */
export const embedsImage = (ref: WikiRef): boolean => ref.embed && isImageFile(ref.target);

/** The text a wiki link shows: its label, else the note's name and its heading path (the editor's `Note > Heading`). */
export function wikiText(ref: WikiRef): string {
  if (ref.label !== undefined && !(embedsImage(ref) && IMAGE_SIZE.test(ref.label))) return ref.label;
  if (embedsImage(ref)) return ref.target.slice(ref.target.lastIndexOf('/') + 1);
  // A block (`#^id`) is a place on the page, not words the editor shows.
  const headings = (ref.fragment ?? '').split('#').filter((part) => part.trim() !== '' && !part.startsWith('^'));
  return [ref.target, ...headings].filter((part) => part !== '').join(' > ');
}

/** The bold label of a callout type: `warning` and `WARNING` read `Warning`. */
const calloutLabel = (type: string, titled: boolean): string => `${type.charAt(0).toUpperCase()}${type.slice(1).toLowerCase()}${titled ? ':' : ''}`;

/**
 * Reads a freshly parsed tree of `markdown` in the wiki dialect, in place: each `[[…]]` in text becomes a
 * link (an image embed an image) holding the text it shows, each callout marker its bold label. Syntax the
 * source escapes (`\[\[`), and text inside links and code, stay text.
 */
export function readWikiSyntax(tree: Root, markdown: string, parseInline: (markdown: string) => Root): void {
  const points = pointsOf(markdown);
  const blockIds: Span[] = [];
  const walk = (node: Nodes): void => {
    if (node.type === 'link' || node.type === 'linkReference' || !('children' in node)) return;
    if (node.type === 'blockquote') markCallout(node, markdown, points);
    const parent = node as { children: Nodes[] };
    if (node.type === 'root' || node.type === 'blockquote' || node.type === 'listItem') gatherAdmonitions(parent, markdown, points);
    if (node.type === 'root') gatherIndentedAdmonitions(parent, markdown, points, parseInline);
    const split = parent.children.flatMap((child): Nodes[] => (child.type === 'text' ? splitText(child, markdown, points) : [child]));
    parent.children = joinAcross(split, markdown, points, parseInline);
    if (node.type === 'paragraph' || node.type === 'heading') dropBlockId(node, markdown, points, blockIds);
    for (const child of parent.children) walk(child);
  };
  walk(tree);
  if (blockIds.length > 0) (tree.data ??= {}).blockIds = blockIds;
}

/** ` ^b15695` ending a block: the id a `[[Note#^b15695]]` link names, which the editor does not show. */
const BLOCK_ID = /[ \t]+\^[A-Za-z0-9-]+[ \t]*$/;

/** A block's id is no text of it: the words end before it, and a push leaves it out (vault/lower.ts). */
function dropBlockId(block: { children: PhrasingContent[] }, markdown: string, points: Points, found: Span[]): void {
  const last = block.children.at(-1);
  const start = last?.position?.start.offset;
  const end = last?.position?.end.offset;
  if (last?.type !== 'text' || start === undefined || end === undefined) return;
  const id = BLOCK_ID.exec(markdown.slice(start, end));
  const kept = id ? last.value.slice(0, last.value.length - (end - start - id.index)) : undefined;
  // The value must end as the source does (no escape or reference inside the id's run).
  if (!id || kept === undefined || last.value.slice(kept.length) !== markdown.slice(start + id.index, end)) return;
  found.push({ start: start + id.index, end });
  if (kept === '') block.children.pop();
  else Object.assign(last, { value: kept, position: points.span(start, start + id.index) });
}

/**
 * Wiki links whose label holds code (`[[Functions#hasTag|`hasTag`]]`): the editor reads the brackets first,
 * Markdown the code span first, which leaves `[[…|` and `]]` in two texts around it. Joined back into one
 * link, whose words are its label read as Markdown (and sent as written).
 */
function joinAcross(children: Nodes[], markdown: string, points: Points, parseInline: (markdown: string) => Root): Nodes[] {
  const out = [...children];
  for (let i = 0; i < out.length; i++) {
    const joined = linkAcross(out, i, markdown, points, parseInline);
    if (!joined) continue;
    out.splice(i, joined.last - i + 1, ...joined.before, joined.link, ...joined.after);
    // The text after the link may open the next one.
    i += joined.before.length;
  }
  return out;
}

type Joined = { readonly before: Text[]; readonly link: Link; readonly after: Text[]; readonly last: number };

function linkAcross(children: readonly Nodes[], i: number, markdown: string, points: Points, parseInline: (markdown: string) => Root): Joined | undefined {
  const first = children[i];
  const from = first?.position?.start.offset;
  const to = first?.position?.end.offset;
  if (first?.type !== 'text' || from === undefined || to === undefined) return undefined;
  const opening = markdown.lastIndexOf('[[', to - 1);
  if (opening < from || markdown.indexOf(']]', opening) < to || markdown[opening - 1] === '\\' || markdown[opening - 1] === '!') return undefined;
  for (let j = i + 1; j < children.length; j++) {
    const node = children[j] as Nodes;
    if (node.type === 'inlineCode') continue;
    const at = node.position?.start.offset;
    const until = node.position?.end.offset;
    if (node.type !== 'text' || at === undefined || until === undefined) return undefined;
    const closing = markdown.indexOf(']]', at);
    if (closing === -1 || closing >= until) {
      if (markdown.slice(at, until).includes('[[')) return undefined;
      continue;
    }
    const end = closing + 2;
    const inner = markdown.slice(opening + 2, closing);
    const bar = barOutsideCode(inner);
    // As within one text: no line break and no bracket inside.
    if (/[\n[\]]/.test(inner) || bar === undefined || inner.slice(bar + 1).trim() === '') return undefined;
    const labelStart = opening + 2 + bar + 1 + (inner.slice(bar + 1).length - inner.slice(bar + 1).trimStart().length);
    const ref: WikiRef = { ...refOf(inner.slice(0, bar), false, opening, end, points.at(opening).line), label: inner.slice(bar + 1).trim(), markup: true };
    const label = parseInline(ref.label as string).children[0];
    if (label?.type !== 'paragraph') return undefined;
    const before = textBefore(first, markdown, opening, points);
    const after = textAfter(node, markdown, end, points);
    if (before === undefined || after === undefined) return undefined;
    const link: Link = { type: 'link', url: '', title: null, children: label.children.map((child) => shifted(child, labelStart, points)), position: points.span(opening, end), data: { wiki: ref } };
    return { before, link, after, last: j };
  }
  return undefined;
}

/** Where the first `|` outside code spans is in a wiki link's inside. */
function barOutsideCode(inner: string): number | undefined {
  let fence = 0;
  for (let k = 0; k < inner.length; k++) {
    if (inner[k] === '`') {
      let run = 1;
      while (inner[k + run] === '`') run++;
      fence = fence === 0 ? run : fence === run ? 0 : fence;
      k += run - 1;
    } else if (inner[k] === '|' && fence === 0) return k;
  }
  return undefined;
}

/** The part of a text node written before `offset` (none when that is its start); undefined when it cannot be told. */
function textBefore(node: Text, markdown: string, offset: number, points: Points): Text[] | undefined {
  const start = node.position?.start.offset as number;
  const map = charMap(node.value, markdown, start, node.position?.end.offset as number);
  const k = map?.indexOf(offset) ?? -1;
  if (k === -1) return undefined;
  return k === 0 ? [] : [{ type: 'text', value: node.value.slice(0, k), position: points.span(start, offset) }];
}

/** The part of a text node written from `offset` on. */
function textAfter(node: Text, markdown: string, offset: number, points: Points): Text[] | undefined {
  const end = node.position?.end.offset as number;
  const map = charMap(node.value, markdown, node.position?.start.offset as number, end);
  const k = map?.findIndex((at) => at >= offset) ?? -1;
  if (k === -1) return undefined;
  return k === node.value.length ? [] : [{ type: 'text', value: node.value.slice(k), position: points.span(offset, end) }];
}

/** A node parsed on its own, placed where it stands in the source: `by` characters further. */
function shifted<T extends Nodes>(node: T, by: number, points: Points): T {
  const position = node.position ? points.span((node.position.start.offset ?? 0) + by, (node.position.end.offset ?? 0) + by) : undefined;
  const children = 'children' in node ? { children: (node.children as Nodes[]).map((child) => shifted(child, by, points)) } : {};
  return { ...node, ...children, ...(position ? { position } : {}) };
}

/** A text node cut at its wiki links: text, link or image, text… (itself when it holds none). */
function splitText(node: Text, markdown: string, points: Points): PhrasingContent[] {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined || !node.value.includes('[[')) return [node];
  const map = charMap(node.value, markdown, start, end);
  if (!map) return [node];
  const out: PhrasingContent[] = [];
  let done = 0;
  const textUpTo = (to: number): void => {
    if (to > done) out.push({ type: 'text', value: node.value.slice(done, to), position: points.span(map[done] as number, to === node.value.length ? end : (map[to] as number)) });
  };
  for (const match of node.value.matchAll(WIKI)) {
    const from = match.index;
    const to = from + match[0].length;
    const sourceStart = map[from] as number;
    const sourceEnd = (map[to - 1] as number) + 1;
    const written = markdown.slice(sourceStart, sourceEnd);
    // Brackets escaped in the source (`\[\[x]]`) read as brackets, not as a link.
    if (!/^!?\[\[/.test(written) || !written.endsWith(']]')) continue;
    textUpTo(from);
    out.push(wikiNode(refOf(match[2] as string, match[1] === '!', sourceStart, sourceEnd, points.at(sourceStart).line), markdown, points));
    done = to;
  }
  if (done === 0) return [node];
  textUpTo(node.value.length);
  return out;
}

function wikiNode(ref: WikiRef, markdown: string, points: Points): Link | Image {
  const position = points.span(ref.start, ref.end);
  const shown = wikiText(ref);
  if (embedsImage(ref)) return { type: 'image', url: ref.target, alt: shown, title: null, position, data: { wiki: ref } };
  // A label written as itself can be edited in place; a shown name made from the target cannot (editing it would retarget the link).
  const labelAt = ref.end - 2 - shown.length;
  const inPlace = ref.label !== undefined && markdown.slice(labelAt, ref.end - 2) === shown;
  const text: Text = { type: 'text', value: shown, ...(inPlace ? { position: points.span(labelAt, ref.end - 2) } : {}) };
  return { type: 'link', url: '', title: null, children: [text], position, data: { wiki: ref } };
}

/** A quote that opens with `[!type]` (GitHub's alerts too): the marker becomes the callout's bold label. */
function markCallout(quote: Blockquote, markdown: string, points: Points): void {
  const paragraph = quote.children[0];
  const first = paragraph?.type === 'paragraph' ? paragraph.children[0] : undefined;
  const start = first?.position?.start.offset;
  const end = first?.position?.end.offset;
  if (paragraph?.type !== 'paragraph' || first?.type !== 'text' || start === undefined || end === undefined) return;
  const mark = CALLOUT.exec(first.value);
  if (!mark || !markdown.startsWith(mark[0], start)) return;
  const rest = first.value.slice(mark[0].length);
  const lineEnd = markdown.indexOf('\n', start);
  const titled = markdown.slice(start + mark[0].length, lineEnd === -1 ? undefined : lineEnd).trim() !== '';
  const callout: CalloutMark = { type: mark[1] as string, start, end: start + mark[0].length, label: calloutLabel(mark[1] as string, titled) };
  const label: Strong = { type: 'strong', children: [{ type: 'text', value: callout.label }], position: points.span(callout.start, callout.end), data: { callout } };
  const after: Text[] = rest === '' ? [] : [{ type: 'text', value: rest, position: points.span(callout.end, end) }];
  paragraph.children.splice(0, 1, label, ...after);
}

/** `:::type` and what may follow it on its line (a title). */
const ADMONITION = /^(:::[ \t]*([\p{L}\p{N}][\p{L}\p{N}_-]*))(.*)$/u;

/**
 * Docs-site admonitions (`:::tip Title` … `:::`, Docusaurus's and VitePress's): CommonMark reads the marker
 * lines as text of the paragraphs beside them. Read as a quote of the blocks between them, opening with the
 * bold label, as a callout is: what a push sends (each line quoted, vault/lower.ts).
 */
function gatherAdmonitions(parent: { children: Nodes[] }, markdown: string, points: Points): void {
  for (let i = 0; i < parent.children.length; i++) {
    const open = parent.children[i] as Nodes;
    const start = open.position?.start.offset;
    if (open.type !== 'paragraph' || start === undefined || open.children[0]?.type !== 'text') continue;
    const lineEnd = markdown.indexOf('\n', start);
    const mark = ADMONITION.exec(markdown.slice(start, lineEnd === -1 ? open.position?.end.offset : Math.min(lineEnd, open.position?.end.offset ?? lineEnd)));
    if (!mark) continue;
    for (let j = i; j < parent.children.length; j++) {
      const node = parent.children[j] as Nodes;
      const end = node.position?.end.offset;
      if (lastParagraph(node) === undefined || end === undefined) continue;
      const closeStart = markdown.lastIndexOf('\n', end - 1) + 1;
      if (closeStart <= start || markdown.slice(closeStart, end).trim() !== ':::') continue;
      const title = mark[3] ?? '';
      if (title !== '' && !/^[ \t]/.test(title)) break;
      const admonition: AdmonitionMark = { start, markerEnd: start + (mark[1] as string).length, closeStart, end, label: calloutLabel(mark[2] as string, title.trim() !== '') };
      const inside = parent.children.slice(i, j + 1);
      if (!openAdmonition(inside[0] as Paragraph, admonition, points) || !closeAdmonition(inside, closeStart, points)) break;
      const quote: Blockquote = { type: 'blockquote', children: inside.filter((child) => child.type !== 'paragraph' || child.children.length > 0) as Blockquote['children'], position: points.span(start, end), data: { admonition } };
      parent.children.splice(i, j - i + 1, quote);
      break;
    }
  }
}

/** The opening line's marker becomes the bold label; the title and what follows stay text. */
function openAdmonition(paragraph: Paragraph, admonition: AdmonitionMark, points: Points): boolean {
  const first = paragraph.children[0];
  const from = first?.position?.start.offset;
  const to = first?.position?.end.offset;
  if (first?.type !== 'text' || from !== admonition.start || to === undefined) return false;
  const markerLength = admonition.markerEnd - admonition.start;
  const rest = first.value.slice(markerLength);
  const label: Strong = { type: 'strong', children: [{ type: 'text', value: admonition.label }], position: points.span(admonition.start, admonition.markerEnd) };
  paragraph.children.splice(0, 1, label, ...(rest === '' ? [] : [{ type: 'text' as const, value: rest, position: points.span(admonition.markerEnd, to) }]));
  return true;
}

/** The paragraph a block ends with: itself, or (for a list or quote, where `:::` may be a lazy line of its last paragraph) the last one inside it. */
function lastParagraph(node: Nodes | undefined): Paragraph | undefined {
  if (node?.type === 'paragraph') return node;
  return node?.type === 'list' || node?.type === 'listItem' || node?.type === 'blockquote' ? lastParagraph(node.children.at(-1)) : undefined;
}

/** The closing `:::` line leaves the last paragraph (a paragraph of only it is left empty, and dropped). */
function closeAdmonition(inside: readonly Nodes[], closeStart: number, points: Points): boolean {
  const last = lastParagraph(inside.at(-1));
  const text = last?.children.at(-1);
  if (!last || text?.type !== 'text' || !/(^|\n)[ \t]*:::[ \t]*$/.test(text.value)) return false;
  const kept = text.value.replace(/\n?[ \t]*:::[ \t]*$/, '');
  if (kept === '') last.children.pop();
  else Object.assign(text, { value: kept, ...(text.position ? { position: { start: text.position.start, end: points.at(Math.max(text.position.start.offset ?? 0, closeStart - 1)) } } : {}) });
  return true;
}

/** `!!! note "Title"` (MkDocs), `??? note` and `???+ note` (collapsible): type, then an optional quoted title. */
const INDENTED_ADMONITION = /^(?:!!!|\?\?\?\+?)[ \t]+([\p{L}\p{N}][\p{L}\p{N}_-]*)(?:[ \t]+"([^"\n]*)")?[ \t]*$/u;

/**
 * MkDocs admonitions: a marker line, then a body indented four spaces (blank lines inside). CommonMark reads
 * the body as lazy lines and indented code. Read as a callout's quote of the body's blocks: the body is
 * parsed as the content of a list item (the marker line turned into `-   xxx…`, the same length, so every
 * position is the file's own), and its first line becomes the bold label and the title.
 */
function gatherIndentedAdmonitions(parent: { children: Nodes[] }, markdown: string, points: Points, parse: (markdown: string) => Root): void {
  for (let i = 0; i < parent.children.length; i++) {
    const open = parent.children[i] as Nodes;
    const start = open.position?.start.offset;
    if (open.type !== 'paragraph' || start === undefined || (start > 0 && markdown[start - 1] !== '\n')) continue;
    const lineEnd = markdown.indexOf('\n', start) === -1 ? markdown.length : markdown.indexOf('\n', start);
    const mark = INDENTED_ADMONITION.exec(markdown.slice(start, lineEnd));
    if (!mark) continue;
    const end = indentedBodyEnd(markdown, lineEnd);
    if (end === lineEnd) continue;
    let last = i;
    while (last + 1 < parent.children.length && (parent.children[last + 1]?.position?.start.offset ?? Infinity) < end) last++;
    if ((parent.children[last]?.position?.end.offset ?? Infinity) > end) continue;
    const item = parse(`-   ${'x'.repeat(lineEnd - start - 4)}${markdown.slice(lineEnd, end)}`).children[0];
    const body = item?.type === 'list' && item.children.length === 1 ? item.children[0]?.children : undefined;
    const first = body?.[0];
    if (!body || first?.type !== 'paragraph' || first.children[0]?.type !== 'text') continue;
    const title = mark[2]?.trim() ?? '';
    const admonition: AdmonitionMark = { start, markerEnd: lineEnd, closeStart: end, end, label: calloutLabel(mark[1] as string, title !== ''), indented: true };
    const opening = first.children[0];
    const rest = opening.value.slice(opening.value.indexOf('\n') === -1 ? opening.value.length : opening.value.indexOf('\n'));
    const heading: PhrasingContent[] = [
      { type: 'strong', children: [{ type: 'text', value: admonition.label }], position: points.span(start, lineEnd) },
      // Where the quoted title is written (its words read without the quotes: not edited in place).
      ...(title === '' ? [] : [{ type: 'text' as const, value: ` ${title}`, position: points.span(start + markdown.slice(start, lineEnd).search(/[ \t]+"/), lineEnd) }]),
      ...(rest === '' ? [] : [{ type: 'text' as const, value: rest, position: points.span(lineEnd, start + (opening.position?.end.offset ?? 0)) }]),
    ];
    const children = [{ ...first, children: [...heading, ...first.children.slice(1)] }, ...body.slice(1)].map((child) => shifted(child as Nodes, start, points));
    // The label's and the title's places were given in the file's own offsets already.
    (children[0] as Paragraph).children.splice(0, heading.length, ...heading);
    const quote: Blockquote = { type: 'blockquote', children: children as Blockquote['children'], position: points.span(start, end), data: { admonition } };
    parent.children.splice(i, last - i + 1, quote);
  }
}

/** Where an indented body after `lineEnd` ends: its last line indented four spaces (or a tab), blank lines inside it. */
function indentedBodyEnd(markdown: string, lineEnd: number): number {
  let end = lineEnd;
  for (let at = lineEnd + 1; at < markdown.length && lineEnd < markdown.length; ) {
    const next = markdown.indexOf('\n', at) === -1 ? markdown.length : markdown.indexOf('\n', at);
    const line = markdown.slice(at, next);
    if (/^( {4}|\t)/.test(line) && line.trim() !== '') end = next;
    else if (line.trim() !== '') break;
    at = next + 1;
  }
  return end;
}

/** What the lowering rewrites in a body: its wiki links and embeds, its callout markers and its admonitions, in source order. */
export function wikiSyntaxIn(tree: Root): { readonly refs: WikiRef[]; readonly callouts: CalloutMark[]; readonly admonitions: AdmonitionMark[]; readonly blockIds: readonly Span[] } {
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
  return { refs, callouts, admonitions, blockIds: tree.data?.blockIds ?? [] };
}

type Span = { readonly start: number; readonly end: number };

type Points = { readonly at: (offset: number) => Point; readonly span: (start: number, end: number) => Position };

/** Line and column of source offsets (unist points), by a search of the lines' starts. */
function pointsOf(markdown: string): Points {
  const starts = [0];
  for (let i = markdown.indexOf('\n'); i !== -1; i = markdown.indexOf('\n', i + 1)) starts.push(i + 1);
  const at = (offset: number): Point => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1, offset };
  };
  return { at, span: (start, end) => ({ start: at(start), end: at(end) }) };
}
