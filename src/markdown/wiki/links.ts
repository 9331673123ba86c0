import type { Image, Link, Nodes, PhrasingContent, Root, Text } from 'mdast';
import { isImageFile } from '../../images/media-type.js';
import { charMap } from '../source-map.js';
import { shifted, type Points } from './points.js';

/* Wiki links and embeds: `[[Note#Heading|label]]`, `![[diagram.png|300]]`, read as the link or image the editor shows. */

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

const WIKI = /(!?)\[\[([^[\]\n]+?)\]\]/g;
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

/** A text node cut at its wiki links: text, link or image, text… (itself when it holds none). */
export function splitText(node: Text, markdown: string, points: Points): PhrasingContent[] {
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

/**
 * Wiki links that Markdown's inline constructs cut apart: the editor reads the brackets first, Markdown its
 * code spans, emphasis, strikethrough and HTML first (`[[Functions#hasTag|`hasTag`]]`, `[[readwise|Readwise
 * _Community_]]`), which leaves `[[…|` and `]]` in two texts around them. Joined back into one link, whose
 * words are its label read as Markdown (and sent as written).
 */
export function joinAcross(children: Nodes[], markdown: string, points: Points, parseInline: (markdown: string) => Root): Nodes[] {
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

type Joined = { readonly before: Text[]; readonly link: Link | Image; readonly after: Text[]; readonly last: number };

function linkAcross(children: readonly Nodes[], i: number, markdown: string, points: Points, parseInline: (markdown: string) => Root): Joined | undefined {
  const first = children[i];
  const from = first?.position?.start.offset;
  const to = first?.position?.end.offset;
  if (first?.type !== 'text' || from === undefined || to === undefined) return undefined;
  const opening = markdown.lastIndexOf('[[', to - 1);
  if (opening < from || markdown.indexOf(']]', opening) < to || markdown[opening - 1] === '\\') return undefined;
  const embed = opening > from && markdown[opening - 1] === '!';
  const start = embed ? opening - 1 : opening;
  for (let j = i + 1; j < children.length; j++) {
    const node = children[j] as Nodes;
    const at = node.position?.start.offset;
    const until = node.position?.end.offset;
    if (at === undefined || until === undefined) return undefined;
    const written = markdown.slice(at, until);
    if (node.type !== 'text') {
      // Markup inside the brackets (a code span, emphasis, HTML); one that holds a bracket pair is another reading.
      if (written.includes('[[') || written.includes(']]')) return undefined;
      continue;
    }
    const closing = markdown.indexOf(']]', at);
    if (closing === -1 || closing >= until) {
      if (written.includes('[[')) return undefined;
      continue;
    }
    const end = closing + 2;
    const inner = markdown.slice(opening + 2, closing);
    // As within one text: no line break and no bracket inside.
    if (/[\n[\]]/.test(inner)) return undefined;
    const before = textBefore(first, markdown, start, points);
    const after = textAfter(node, markdown, end, points);
    if (before === undefined || after === undefined) return undefined;
    const link = embed ? wikiNode(refOf(inner, true, start, end, points.at(start).line), markdown, points) : labelledLink(inner, opening, end, points, parseInline);
    return link && { before, link, after, last: j };
  }
  return undefined;
}

/** `[[target|label]]` whose label is Markdown: a link whose words are the label as it reads; undefined without a label. */
function labelledLink(inner: string, opening: number, end: number, points: Points, parseInline: (markdown: string) => Root): Link | undefined {
  const bar = barOutsideCode(inner);
  if (bar === undefined || inner.slice(bar + 1).trim() === '') return undefined;
  const labelStart = opening + 2 + bar + 1 + (inner.slice(bar + 1).length - inner.slice(bar + 1).trimStart().length);
  // A table cell's `\|` (which the text of a cell reads as `|`) is the bar, its backslash no part of the target.
  const ref: WikiRef = { ...refOf(inner.slice(0, bar).replace(/\\$/, ''), false, opening, end, points.at(opening).line), label: inner.slice(bar + 1).trim(), markup: true };
  const label = parseInline(ref.label as string).children[0];
  if (label?.type !== 'paragraph') return undefined;
  return { type: 'link', url: '', title: null, children: label.children.map((child) => shifted(child, labelStart, points)), position: points.span(opening, end), data: { wiki: ref } };
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
