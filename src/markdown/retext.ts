import type { Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { characterHunks, cutAt, keptOf, trimmed, wordHunks, type Hunk } from './hunks.js';
import { factOf, parseMarkdown } from './parse.js';
import { charMap } from './source-map.js';
import { escapeInline, normaliseText } from './text.js';

/**
 * Writing a remote plain-text edit back into a block's Markdown source. The service shows a block as its
 * plain text; the file has the source (emphasis, links, code spans, escapes, entities, wrapped lines). An
 * edit of the plain text is found by a word diff, and each changed piece is written where it happened in the
 * source, so everything the edit did not touch stays byte for byte: formatting, reference links, escapes,
 * the indentation of a wrapped list item, the `> ` of a quote.
 */

/** A run of plain text and, for text written as itself (maybe with escapes, entities, line prefixes), where each character stands in the source. */
type Leaf = {
  readonly plainStart: number;
  readonly plainEnd: number;
  /** How many formatting nodes (emphasis, link, code span…) hold it. */
  readonly depth: number;
  /** `code`: inside a code span, where text is literal (no escapes) and a backtick would end it. */
  readonly kind: 'text' | 'code';
  /** map[i]: the source offset where plain character i is written; map[length]: the end. Undefined: not editable in place. */
  readonly map?: readonly number[];
};

/** A formatting node: its source, the source of its content, and the plain text it holds. */
type Span = {
  readonly sourceStart: number;
  readonly sourceEnd: number;
  readonly innerStart: number;
  readonly innerEnd: number;
  readonly plainStart: number;
  readonly plainEnd: number;
  readonly depth: number;
  /** What it is and where it points (`link https://…`, `strong `): a span of the same key holding its text keeps it. */
  readonly key: string;
  /** A wiki link's label written as itself (`[[Note|label]]`): what is added to its words is added to the label (see placeOf). */
  readonly label?: true;
};

/** Where a comment is written (a note vault's: wiki/comments.ts): no text, and never written over (kept-comments.ts). */
type Comment = { readonly start: number; readonly end: number };

type Reading = { readonly text: string; readonly leaves: readonly Leaf[]; readonly spans: readonly Span[]; readonly comments: readonly Comment[] };

const FORMATTING = new Set(['emphasis', 'strong', 'delete', 'link', 'linkReference', 'inlineCode', 'footnoteReference']);

/** A code span's content as it stands in the source (one padding space each side is not content). */
function codeMap(value: string, source: string, start: number, end: number): number[] | undefined {
  let from = start;
  let to = end;
  while (source[from] === '`') from++;
  while (to > from && source[to - 1] === '`') to--;
  let inner = source.slice(from, to);
  if (inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '') {
    from++;
    to--;
    inner = inner.slice(1, -1);
  }
  return inner === value ? Array.from({ length: value.length + 1 }, (_, i) => from + i) : undefined;
}

/**
 * The plain text of a block's source as the service reads it (mdast-util-to-string, the reading the outline
 * uses), cut into leaves and formatting spans. `definitions` (the document's link reference definitions) are
 * read with it, so `[text][ref]` reads as the link it is in the document, not as brackets.
 */
function read(source: string, definitions: string): Reading {
  const leaves: Leaf[] = [];
  const spans: Span[] = [];
  let text = '';
  const tree = parseMarkdown(definitions === '' ? source : `${source}\n\n${definitions}`);
  const inBlock = (node: Nodes): boolean => (node.position?.end.offset ?? Infinity) <= source.length;
  const visit = (node: Nodes, depth: number): void => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (node.type === 'definition' || node.type === 'footnoteDefinition') return;
    if (FORMATTING.has(node.type) && start !== undefined && end !== undefined) {
      const plainStart = text.length;
      const children = 'children' in node ? (node.children as Nodes[]) : [];
      if (node.type === 'inlineCode') {
        const map = codeMap(node.value, source, start, end);
        leaves.push({ plainStart, plainEnd: plainStart + node.value.length, depth: depth + 1, kind: 'code', ...(map ? { map } : {}) });
        text += node.value;
      } else {
        // An autolink's text is its address: editing it would part the two, so it is not edited in place.
        const autolink = node.type === 'link' && toString(node) === node.url.replace(/^mailto:/, '');
        for (const child of children) (autolink ? opaque : visit)(child, depth + 1);
      }
      const first = children[0]?.position?.start.offset;
      const last = children.at(-1)?.position?.end.offset;
      const label = node.type === 'link' && node.data?.wiki?.label !== undefined && children.length > 0 && children.every((child) => child.position !== undefined);
      const key = `${node.type} ${'url' in node ? node.url : 'identifier' in node ? node.identifier : ''}`;
      spans.push({ sourceStart: start, sourceEnd: end, innerStart: first ?? start, innerEnd: last ?? end, plainStart, plainEnd: text.length, depth, key, ...(label ? { label: true as const } : {}) });
      return;
    }
    if ('children' in node) {
      const children = (node.children as Nodes[]).filter(inBlock);
      children.forEach((child, k) => {
        // A quote's blocks read as lines of its text (the outline's reading): the line break between two is no character of the source.
        if (k > 0 && node.type === 'blockquote') {
          leaves.push({ plainStart: text.length, plainEnd: text.length + 1, depth, kind: 'text' });
          text += '\n';
        }
        visit(child, depth);
      });
      return;
    }
    const value = toString(node);
    if (value === '') return;
    const map = node.type === 'text' && start !== undefined && end !== undefined ? charMap(value, source, start, end) : undefined;
    leaves.push({ plainStart: text.length, plainEnd: text.length + value.length, depth, kind: 'text', ...(map ? { map } : {}) });
    text += value;
  };
  const opaque = (node: Nodes, depth: number): void => {
    const value = toString(node);
    if (value !== '') leaves.push({ plainStart: text.length, plainEnd: text.length + value.length, depth, kind: 'text' });
    text += value;
  };
  visit(tree, 0);
  return { text, leaves, spans, comments: (tree.data?.comments ?? []).filter((comment) => comment.end <= source.length) };
}

/** Does writing over `from`..`to` drop a formatting node whole (its text gone, or written again plain)? */
const swallows = (reading: Reading, place: { readonly from: number; readonly to: number }): boolean =>
  reading.spans.some((span) => place.from <= span.sourceStart && span.sourceEnd <= place.to);

/** A place in the source for a plain offset, and how deep in formatting it is. */
type Slot = { readonly offset: number; readonly depth: number; readonly leaf?: Leaf };

/**
 * The places a plain offset can be written at, from one side: `start` (text beginning there) or `end` (text
 * ending there). Inside an editable leaf, or at the outer edge of a formatting node.
 */
function slots(reading: Reading, p: number, side: 'start' | 'end'): Slot[] {
  const out: Slot[] = [];
  for (const leaf of reading.leaves) {
    if (!leaf.map) continue;
    const inside = side === 'start' ? leaf.plainStart <= p && p < leaf.plainEnd : leaf.plainStart < p && p <= leaf.plainEnd;
    const at = leaf.map[p - leaf.plainStart];
    if (inside && at !== undefined) out.push({ offset: at, depth: leaf.depth, leaf });
  }
  for (const span of reading.spans) {
    if (side === 'start' && span.plainStart === p) out.push({ offset: span.sourceStart, depth: span.depth });
    if (side === 'end' && span.plainEnd === p) out.push({ offset: span.sourceEnd, depth: span.depth });
  }
  return out;
}

/** Does replacing source `from`..`to` leave every formatting node whole (untouched, gone entirely, or edited inside)? */
function balanced(reading: Reading, from: number, to: number): boolean {
  return (
    reading.spans.every(
      (span) => span.sourceEnd <= from || span.sourceStart >= to || (span.sourceStart >= from && span.sourceEnd <= to) || (span.innerStart <= from && to <= span.innerEnd),
    ) && reading.comments.every((comment) => comment.end <= from || comment.start >= to || (from <= comment.start && comment.end <= to))
  );
}

/**
 * The same insertion at every place it reads the same: `stone c29z ` after `backer` in `backerstone ` is
 * `c29z stone ` after `backerstone `. The word diff picks one; the edit may have been made at another (a
 * colleague's words typed between a link and an emphasis). Only through unchanged text (`from`..`to`).
 */
function slid(before: string, hunk: Hunk, from: number, to: number): Hunk[] {
  const out: Hunk[] = [hunk];
  for (let { at, inserted } = hunk; at > from && before[at - 1] === inserted.at(-1); ) {
    at -= 1;
    inserted = `${before[at] as string}${inserted.slice(0, -1)}`;
    out.push({ at, removed: 0, inserted });
  }
  for (let { at, inserted } = hunk; at < to && before[at] === inserted[0]; ) {
    inserted = `${inserted.slice(1)}${before[at] as string}`;
    at += 1;
    out.push({ at, removed: 0, inserted });
  }
  return out;
}

/**
 * Words added at the edge of a wiki link's label that belong to it: joined to it (`Plugin` → `Plugins`), or a
 * remark in brackets after it (`Liam Cain` → `Liam Cain (liamcain)`). The README promises a label's edit lands
 * in the label; words set apart (` for details`) may as well follow the link, and go after it as after any.
 */
function labelAddedTo(reading: Reading, hunk: Hunk): Span | undefined {
  if (hunk.removed > 0 || hunk.inserted === '') return undefined;
  return reading.spans.find(
    (span) =>
      span.label === true &&
      ((span.plainEnd === hunk.at && /^(?:[^\s]|\s+[([][^\n]*[)\]]$)/.test(hunk.inserted) && !/^[,.;:!?]/.test(hunk.inserted)) || (span.plainStart === hunk.at && /[^\s]$/.test(hunk.inserted))),
  );
}

/** Where a hunk is written and how its text is escaped, or undefined when it cannot be written without breaking formatting. */
function placeOf(reading: Reading, variants: readonly Hunk[]): { from: number; to: number; text: string; code: boolean } | undefined {
  const pairs = variants.flatMap((hunk) => {
    const end = hunk.at + hunk.removed;
    const found =
      hunk.removed === 0
        ? [...slots(reading, hunk.at, 'end'), ...slots(reading, hunk.at, 'start')].map((slot) => ({ from: slot, to: slot }))
        : slots(reading, hunk.at, 'start').flatMap((from) => slots(reading, end, 'end').map((to) => ({ from, to })));
    return found.map((pair) => ({ ...pair, hunk }));
  });
  // Text replaced inside formatting keeps it (a renamed bold word stays bold); text only added or only taken
  // away at its edge goes outside it, and formatting whose whole text went goes with it. An insertion that
  // reads the same in several places goes where it is least deep (the diff's own place first among equals).
  const first = variants[0] as Hunk;
  const label = variants.map((hunk) => labelAddedTo(reading, hunk)).find((span) => span !== undefined);
  const inner = first.removed > 0 && first.inserted !== '' ? -1 : 1;
  // Words added to a label go at the label's own depth: in it, not in its emphasis.
  const off = (slot: Slot): number => Math.abs(slot.depth - ((label?.depth ?? 0) + 1));
  if (label) pairs.sort((x, y) => off(x.from) + off(x.to) - (off(y.from) + off(y.to)));
  else pairs.sort((x, y) => inner * (x.from.depth + x.to.depth - (y.from.depth + y.to.depth)));
  for (const { from, to, hunk } of pairs) {
    if (from.offset > to.offset || !balanced(reading, from.offset, to.offset)) continue;
    const code = from.leaf?.kind === 'code' || to.leaf?.kind === 'code';
    if (code && (from.leaf !== to.leaf || hunk.inserted.includes('`') || /[\r\n]/.test(hunk.inserted))) continue;
    return { from: from.offset, to: to.offset, text: code ? hunk.inserted : escapeInline(hunk.inserted), code };
  }
  return undefined;
}

/** A block's source with an edit written in; `simplified` when formatting whose text the edit kept is gone from it. */
type Retexted = { readonly markdown: string; readonly simplified: boolean };

/**
 * A block's Markdown source with its text changed to `text`, each edit written where it happened, so that
 * links, inline code, emphasis, escapes and line prefixes around unchanged text stay as written. Undefined
 * when an edit cannot be written so (it cuts into a link or a code span, or rewrites most of the text):
 * then the text can only be written plain, which the caller must say. Where the words the edit changed are
 * found word by word, and written so they lose formatting whose characters the edit kept (`third [line](…)`
 * → `thirdline`: issue 44), they are found again by characters; what still loses some is `simplified`, for
 * the caller to say.
 */
export function retext(source: string, text: string, definitions = ''): Retexted | undefined {
  const reading = read(source, definitions);
  const before = reading.text;
  if (normaliseText(before) === normaliseText(text)) return { markdown: source, simplified: false };
  const byWords = wordHunks(before, text);
  // A text rewritten more than it was kept is a new text: its pieces would land in markup at random. Not
  // counted in the words the diff took: it takes a joined or split word whole (`third line` → `thirdline`
  // removes ten characters for one space), and a short paragraph looked rewritten (issue 44).
  const characters = characterHunks(before, text);
  if (keptOf(before, byWords, characters) * 2 < before.length) return undefined;
  const alignments = characters ? [byWords, cutAt(characters, reading.spans.flatMap((span) => [span.plainStart, span.plainEnd]))] : [byWords];
  // The formatting the edit left alone: no change inside its text or across it, as its words or its characters
  // tell (where they disagree, the read cannot tell which; losing it is said).
  const survivors = reading.spans.filter((span) => alignments.some((hunks) => hunks.every((hunk) => !touches(hunk, span))));
  const tries = alignments.map((hunks) => ({ hunks, source }));
  for (const hunks of alignments) {
    const other = starred(source, reading, hunks);
    if (other !== source) tries.push({ hunks, source: other });
  }
  // The words' writing stands, unless another keeps more of that formatting: characters matched by chance in a
  // word replaced (`all now` → `everything`) would write it across a code span's edge (`` `make everythi`ng ``).
  let best: { readonly markdown: string; readonly kept: number } | undefined;
  for (const [k, { hunks, source }] of tries.entries()) {
    const written = writeHunks(reading, source, hunks, definitions);
    if (written === undefined || normaliseText(written.reading.text) !== normaliseText(text)) continue;
    const kept = survivors.length - lostSpans(reading, survivors, written.reading);
    if (kept > (best?.kept ?? (k === 0 ? -1 : 0))) best = { markdown: written.markdown, kept };
    if (best?.kept === survivors.length) break;
  }
  return best && { markdown: best.markdown, simplified: best.kept < survivors.length };
}

/**
 * A block's source with the spacing of `text`, a reading of it that differs only there (a line another kbsync
 * machine rewrapped, which a read shows): each line break or space written where it stands, so that the file
 * reads as the document does, byte for byte. The source as it is when that cannot be written in place (inside a
 * code span): spacing is not worth writing a block plain. `continuation`: what a new line starts with, when the
 * source is a list item's text alone (no line of it says).
 */
export function respaced(source: string, text: string, definitions = '', continuation?: string): string {
  const reading = read(source, definitions);
  if (reading.text === text || normaliseText(reading.text) !== normaliseText(text)) return source;
  const out = writeHunks(reading, source, spacingHunks(reading.text, text), definitions, continuation);
  return out !== undefined && out.reading.text === text ? out.markdown : source;
}

/**
 * The spacing changes between two texts of the same words: each run of whitespace paired with the run in its
 * place, so repeated words cannot pull markup along as a word diff's alignment of them may.
 */
function spacingHunks(before: string, after: string): Hunk[] {
  const runs = (text: string): RegExpExecArray[] => [...text.matchAll(/\s+/g)];
  const old = runs(before);
  const now = runs(after);
  // Both read the same words once spacing is collapsed, so runs pair up but for one at either end.
  const skipOld = old[0]?.index === 0 ? 1 : 0;
  const skipNow = now[0]?.index === 0 ? 1 : 0;
  const hunks: Hunk[] = [];
  for (let i = 0; i + skipOld < old.length && i + skipNow < now.length; i++) {
    const from = old[i + skipOld] as RegExpExecArray;
    const to = now[i + skipNow] as RegExpExecArray;
    if (from[0] !== to[0]) hunks.push({ at: from.index, removed: from[0].length, inserted: to[0] });
  }
  return hunks;
}

/**
 * The source with `_` emphasis written with `*` where a change meets its edge: `_gg_` with a word typed right
 * after it (`_gg_wyz`) is no emphasis (an underscore inside a word is a letter), `*gg*wyz` is. Of the same
 * length, so the reading's offsets hold for it.
 */
function starred(source: string, reading: Reading, hunks: readonly Hunk[]): string {
  let out = source;
  for (const span of reading.spans) {
    if (source[span.sourceStart] !== '_' || !hunks.some((hunk) => hunk.at === span.plainEnd || hunk.at + hunk.removed === span.plainStart)) continue;
    const stars = (from: number, to: number): string => '*'.repeat(to - from);
    out = out.slice(0, span.sourceStart) + stars(span.sourceStart, span.innerStart) + out.slice(span.innerStart, span.innerEnd) + stars(span.innerEnd, span.sourceEnd) + out.slice(span.sourceEnd);
  }
  return out;
}

/** Does a change reach into a span's text? Not one at its edge; one across where it holds no text (a footnote reference) does. */
const touches = (hunk: Hunk, span: Span): boolean =>
  hunk.removed === 0 ? span.plainStart < hunk.at && hunk.at < span.plainEnd : hunk.at < span.plainEnd && span.plainStart < hunk.at + hunk.removed;

/** How many of `survivors` (spans of `reading`) `after` lacks: no span of the same kind and target there holds its text. */
function lostSpans(reading: Reading, survivors: readonly Span[], after: Reading): number {
  const left = after.spans.map((span) => ({ key: span.key, text: after.text.slice(span.plainStart, span.plainEnd) }));
  return survivors.filter((span) => {
    const text = reading.text.slice(span.plainStart, span.plainEnd);
    const at = left.findIndex((other) => other.key === span.key && other.text.includes(text));
    if (at !== -1) left.splice(at, 1);
    return at === -1;
  }).length;
}

/** The source with each hunk written where it happened, and how it reads; undefined when one cannot be written. */
function writeHunks(reading: Reading, source: string, hunks: readonly Hunk[], definitions: string, continuation?: string): { markdown: string; reading: Reading } | undefined {
  const before = reading.text;
  let out = source;
  for (let i = hunks.length - 1; i >= 0; i--) {
    const hunk = hunks[i] as Hunk;
    const previous = hunks[i - 1];
    const around = { from: previous ? previous.at + previous.removed : 0, to: hunks[i + 1]?.at ?? before.length };
    const variantsOf = (h: Hunk): Hunk[] => (h.removed === 0 ? slid(before, h, around.from, around.to) : [h]);
    // A word rewritten as the words are (`ids` → `id lamp harbors`) may take markup with it (`` `id`s `` written
    // plain) or cut into it, where the characters it really changed do not (model seed 140149): then only those
    // are written. A word renamed inside markup (`**foo**` → `**food**`) keeps being written whole.
    const whole = placeOf(reading, variantsOf(hunk));
    const place = whole && !swallows(reading, whole) ? whole : (placeOf(reading, variantsOf(trimmed(before, hunk))) ?? whole);
    if (!place) return undefined;
    // A line the edit adds keeps the block's line prefix (a quote's `> `, an item's indentation), not a lazy line.
    // The comments it writes over stay, after its words: the colleague never saw them.
    const comments = reading.comments.filter((comment) => place.from <= comment.start && comment.end <= place.to).map((comment) => source.slice(comment.start, comment.end));
    // A `!` typed right before a link would make it an image: it is written escaped there.
    const bang = !place.code && comments.length === 0 && out[place.to] === '[' && place.text.endsWith('!');
    const words = bang ? `${place.text.slice(0, -1)}\\!` : place.text;
    const text = words.replaceAll('\n', `\n${continuation ?? linePrefix(source, place.from)}`) + comments.join('');
    out = out.slice(0, place.from) + text + out.slice(place.to);
  }
  // The proof (the caller's): the result reads as the new text. Anything else (an escape that did not hold) is refused.
  return { markdown: out, reading: read(out, definitions) };
}

/** What the lines of a block start with before their text, as the line holding `offset` has it: `> `, indentation. */
function linePrefix(source: string, offset: number): string {
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t>]*/.exec(source.slice(lineStart, offset))?.[0] ?? '';
}

/** Does a block's source say more than its plain text (links, emphasis, code, escapes)? Then writing it plain loses that. */
export function hasMarkup(source: string, definitions = ''): boolean {
  const { text, leaves, spans, comments } = read(source, definitions);
  const literal = (leaf: Leaf): boolean => {
    const map = leaf.map;
    return map !== undefined && map.every((at, i) => i === map.length - 1 || source[at] === text[leaf.plainStart + i]);
  };
  if (spans.length > 0 || !leaves.every(literal)) return true;
  // Without its block marker (heading, list, quote) and its comments (kept through a plain rewrite: rebuild.ts),
  // plain source reads exactly as it is written.
  const uncommented = [...comments].reverse().reduce((rest, comment) => rest.slice(0, comment.start) + rest.slice(comment.end), source);
  const body = uncommented.replace(/^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)/, '');
  return normaliseText(body) !== normaliseText(text);
}

/**
 * The link reference definitions of a body, as source to read a block of it with (see retext). A fact of its
 * parse (factOf): every merge into a file asks it of the file's text, whose tree is often gone by then.
 */
export const definitionsOf = factOf((tree, body): string =>
  tree.children
    .filter((node) => node.type === 'definition' || node.type === 'footnoteDefinition')
    .map((node) => body.slice(node.position?.start.offset ?? 0, node.position?.end.offset ?? 0))
    .join('\n\n'),
);
