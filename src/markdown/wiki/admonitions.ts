import type { Blockquote, Nodes, Paragraph, PhrasingContent, Root, Strong } from 'mdast';
import { calloutLabel } from './callouts.js';
import { shifted, type Points } from './points.js';

/* Admonitions (`:::tip` … `:::`, MkDocs's `!!! tip` and an indented body): read as a callout's quote of their blocks. */

/** A docs-site admonition (`:::tip Title` … `:::`): where its opening marker and closing line are. */
export type AdmonitionMark = {
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

/** `:::type` and what may follow it on its line (a title). */
const ADMONITION = /^(:::[ \t]*([\p{L}\p{N}][\p{L}\p{N}_-]*))(.*)$/u;

/**
 * Docs-site admonitions (`:::tip Title` … `:::`, Docusaurus's and VitePress's): CommonMark reads the marker
 * lines as text of the paragraphs beside them. Read as a quote of the blocks between them, opening with the
 * bold label, as a callout is: what a push sends (each line quoted, vault/lower.ts).
 */
export function gatherAdmonitions(parent: { children: Nodes[] }, markdown: string, points: Points): void {
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
export function gatherIndentedAdmonitions(parent: { children: Nodes[] }, markdown: string, points: Points, parse: (markdown: string) => Root): void {
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
