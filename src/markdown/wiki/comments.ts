import type { List, Nodes, Parent, Root, Text } from 'mdast';
import { charMap } from '../source-map.js';
import type { Points, Span } from './points.js';
import { PLACEHOLDER_PREFIX } from '../to-markdown.js';

/*
 * Comments: `%%…%%` (inline, or over lines and blocks) and HTML's `<!--…-->`. The editor never shows them, so
 * they are no words of the note: no link in one is a link, none is reported broken, and a push leaves them out
 * (the knowledge base would show them as text). The file keeps them byte for byte: a pull writes a colleague's
 * edit around them, and a block the colleague deleted leaves its comments where it was (merge.ts).
 */

/** What a push leaves out, and writes in its place (its line breaks, unless `sent` says otherwise). */
export type HiddenSpan = Span & { readonly sent?: string };

/** One HTML comment and nothing else (`<!-- a --> b <!-- c -->` shows its `b`). */
const HTML_COMMENT = /^<!--(?:(?!-->)[\s\S])*-->$/;

/**
 * A comment that is no comment of the note: kbsync's placeholder for a block the service holds and does not show
 * (code, an image). It stands for that block, as in any dialect: read as a comment, a push left it out (the block
 * went with it), and the blocks a file was predicted to read as lacked it (model seeds 8003, 8024: a forced push
 * deleted a colleague's code block; a merge over such a prediction wrote every placeholder into the file twice).
 */
const isComment = (html: string): boolean => HTML_COMMENT.test(html) && !html.startsWith(PLACEHOLDER_PREFIX);

/**
 * Where the comments are written: from a `%%` to the next (to the end of the note when none follows, as the
 * editor reads it), not in code and not escaped; and every HTML node that is only a comment.
 */
function commentSpans(tree: Root, markdown: string): Span[] {
  const code: Span[] = [];
  const html: Span[] = [];
  const walk = (node: Nodes): void => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start !== undefined && end !== undefined) {
      if (node.type === 'code' || node.type === 'inlineCode') code.push({ start, end });
      else if (node.type === 'html') (isComment(node.value.trim()) ? html : code).push({ start, end });
    }
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  const inCode = (at: number): boolean => code.some((span) => span.start <= at && at < span.end);
  const spans: Span[] = [];
  let open: number | undefined;
  for (let at = markdown.indexOf('%%'); at !== -1; at = markdown.indexOf('%%', at)) {
    if (inCode(at) || (open === undefined && markdown[at - 1] === '\\')) {
      at += 1;
      continue;
    }
    if (open === undefined) open = at;
    else {
      spans.push({ start: open, end: at + 2 });
      open = undefined;
    }
    at += 2;
  }
  if (open !== undefined) spans.push({ start: open, end: markdown.length });
  return [...spans.filter((span) => !html.some((h) => h.start <= span.start && span.end <= h.end)), ...html.filter((h) => !spans.some((span) => span.start <= h.start && h.end <= span.end))].sort((a, b) => a.start - b.start);
}

/**
 * A comment with the blanks that would be left doubled or dangling once it is gone: those after it when it
 * starts a line or follows a blank (`a %%c%% b` reads `a b`), those before it when it ends a line (`a %%c%%`
 * reads `a`), and both when it holds a line break (the break stands for it).
 */
function widened(span: Span, markdown: string): Span {
  const blank = (c: string | undefined): boolean => c === ' ' || c === '\t';
  let { start, end } = span;
  const lineStart = start === 0 || markdown[start - 1] === '\n';
  const lineEnd = end === markdown.length || markdown[end] === '\n' || markdown[end] === '\r';
  const breaks = markdown.slice(start, end).includes('\n');
  if ((lineStart || blank(markdown[start - 1]) || breaks) && !lineEnd) while (blank(markdown[end])) end++;
  // Only blanks after words on its line: a line's indentation or a marker's blank (`- %%c%%`) stays.
  let before = start;
  while (before > 0 && blank(markdown[before - 1])) before--;
  if ((lineEnd || breaks) && before > 0 && markdown[before - 1] !== '\n') start = before;
  return { start, end };
}

/**
 * Takes the comments out of a freshly parsed tree, in place: nodes wholly inside one go, texts lose the
 * characters inside one, and a paragraph left without words goes. Returns where the comments are written,
 * and what a push leaves out (with the blanks that would be left dangling).
 */
export function dropComments(tree: Root, markdown: string, points: Points): { readonly comments: readonly Span[]; readonly hidden: HiddenSpan[] } {
  const comments = commentSpans(tree, markdown);
  // Comments only blanks apart (`%%a%% %%b%%`) go as one.
  const runs: Span[] = [];
  for (const span of comments) {
    const last = runs.at(-1);
    if (last && /^[ \t]*$/.test(markdown.slice(last.end, span.start))) runs[runs.length - 1] = { start: last.start, end: span.end };
    else runs.push(span);
  }
  const spans = withoutLeadingItemComments(
    tree,
    runs.map((run) => widened(run, markdown)),
  );
  if (spans.length === 0) return { comments, hidden: [] };
  const hidden: HiddenSpan[] = spans.map((span) => ({ ...span }));
  // Where the top-level block being read ends: line breaks a push cannot send inside it go after it.
  let blockEnd = markdown.length;
  const strip = (parent: Parent): void => {
    const out: Nodes[] = [];
    let changed = false;
    for (const child of parent.children as Nodes[]) {
      const start = child.position?.start.offset;
      const end = child.position?.end.offset;
      if (parent.type === 'root') blockEnd = end ?? markdown.length;
      const over = start === undefined || end === undefined ? [] : spans.filter((span) => span.start < end && span.end > start);
      if (over.length === 0) out.push(child);
      else if (over.some((span) => span.start <= (start as number) && (end as number) <= span.end)) changed = true;
      else if (child.type === 'text') {
        changed = true;
        out.push(...cut(child, over, markdown, points, hidden, blockEnd));
      }
      else {
        if ('children' in child) strip(child);
        if (child.type !== 'paragraph' || child.children.some((c) => c.type !== 'text' || c.value.trim() !== '')) out.push(child);
      }
    }
    // A text a comment left at the edge of its block loses the blanks there too, as the block's own text would.
    if (changed && (parent.type === 'paragraph' || parent.type === 'heading' || parent.type === 'tableCell')) {
      const first = out[0];
      const last = out.at(-1);
      if (first?.type === 'text') trimmed(first, 'start', markdown, points);
      if (last?.type === 'text') trimmed(last, 'end', markdown, points);
      if (out.length > 0 && out.every((node) => node.type === 'text' && node.value === '')) out.length = 0;
    }
    parent.children = (changed ? joinedLists(out, markdown, points) : out) as typeof parent.children;
  };
  strip(tree);
  return { comments, hidden };
}

/**
 * The spans, but those that hold a list item's first block and not its marker (all the item holds, or the
 * words before its nested list or second paragraph): left out, the marker would stand alone on its line, which
 * reads otherwise (after a paragraph, `-` underlines it as a heading; a blank line after it ends the item, and
 * what followed is read outside the list). Such a comment stays words.
 */
function withoutLeadingItemComments(tree: Root, spans: readonly Span[]): Span[] {
  const leading = new Set<Span>();
  const inside = (node: Nodes): Span | undefined => spans.find((span) => span.start <= (node.position?.start.offset ?? -1) && (node.position?.end.offset ?? Infinity) <= span.end);
  const walk = (node: Nodes): void => {
    const first = node.type === 'listItem' ? node.children[0] : undefined;
    const holding = first === undefined ? undefined : inside(first);
    // One that holds the whole item, marker and all (`%%` over a list), goes with it.
    if (holding && !inside(node)) leading.add(holding);
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  return spans.filter((span) => !leading.has(span));
}

/** The marker a list's items are written with (`-`, `*`, `+`, `.` or `)` after a number): one list as long as it holds. */
const markerOf = (list: List, markdown: string): string | undefined => /^[ \t]*(?:([-*+])|\d{1,9}([.)]))/.exec(markdown.slice(list.position?.start.offset ?? 0))?.slice(1).join('');

/**
 * Two lists a comment stood between, written with the same marker: without it (what a push sends) the blank
 * lines between them do not part them, so they read as one (loose) list.
 */
function joinedLists(nodes: readonly Nodes[], markdown: string, points: Points): Nodes[] {
  const out: Nodes[] = [];
  for (const node of nodes) {
    const last = out.at(-1);
    if (node.type === 'list' && last?.type === 'list' && last.ordered === node.ordered && markerOf(last, markdown) === markerOf(node, markdown)) {
      out[out.length - 1] = { ...last, spread: true, children: [...last.children, ...node.children], position: points.span(last.position?.start.offset ?? 0, node.position?.end.offset ?? 0) };
    } else out.push(node);
  }
  return out;
}

/**
 * A text without its blanks and line breaks at one edge, as a block's own text ends (a line's `> ` or
 * indentation between them, which the text does not hold, is stepped over in the source).
 */
function trimmed(node: Text, side: 'start' | 'end', markdown: string, points: Points): void {
  let value = node.value;
  let start = node.position?.start.offset;
  let end = node.position?.end.offset;
  if (start === undefined || end === undefined) return;
  const blank = /[ \t\r\n]/;
  const prefix = /[ \t>]/;
  if (side === 'end') {
    while (value !== '' && blank.test(value.at(-1) as string)) {
      const c = value.at(-1);
      while (end > start && markdown[end - 1] !== c && prefix.test(markdown[end - 1] as string)) end--;
      if (markdown[end - 1] !== c) break;
      end--;
      value = value.slice(0, -1);
    }
  } else {
    while (value !== '' && blank.test(value[0] as string)) {
      const c = value[0];
      while (start < end && markdown[start] !== c && prefix.test(markdown[start] as string)) start++;
      if (markdown[start] !== c) break;
      start++;
      value = value.slice(1);
    }
  }
  node.value = value;
  node.position = points.span(start, end);
}

/**
 * A text without what lies in the spans. Where a span is cut out between words, what the push sends there
 * must read as what is left: a line break stands for a span holding some (one however many it held, so that
 * no blank line parts the paragraph), and a span that filled a line of its own goes with that line's break
 * (an empty line would part it too). The line breaks the push cannot send in the block go after it, so the
 * lines after the block keep their numbers.
 */
function cut(node: Text, spans: readonly Span[], markdown: string, points: Points, hidden: HiddenSpan[], blockEnd: number): Text[] {
  const start = node.position?.start.offset as number;
  const end = node.position?.end.offset as number;
  const map = charMap(node.value, markdown, start, end);
  // Written some way kbsync cannot follow: the text is left whole rather than cut wrongly.
  if (!map) return [node];
  const out: Text[] = [];
  let from = 0;
  const keep = (to: number): void => {
    if (to <= from) return;
    const piece: Text = { type: 'text', value: node.value.slice(from, to), position: points.span(map[from] as number, to === node.value.length ? end : (map[to] as number)) };
    out.push(piece);
  };
  const sendInstead = (span: Span, sent: string, until: number): void => {
    const at = hidden.findIndex((h) => h.start === span.start && h.end === span.end);
    hidden[at] = { start: span.start, end: until, sent };
    const lost = markdown.slice(span.start, until).split('\n').length - sent.split('\n').length;
    if (lost > 0) hidden.push({ start: blockEnd, end: blockEnd, sent: '\n'.repeat(lost) });
  };
  for (const span of spans) {
    const first = map.findIndex((at) => at >= span.start);
    if (first === -1 || first >= node.value.length) break;
    keep(first);
    const after = map.findIndex((at, i) => i >= first && at >= span.end);
    from = after === -1 ? node.value.length : after;
    if (first === 0 || from >= node.value.length) continue;
    const breaks = markdown.slice(span.start, span.end).split('\n').length - 1;
    if (breaks > 0) {
      out.push({ type: 'text', value: '\n' });
      if (breaks > 1) sendInstead(span, '\n', span.end);
    } else if (node.value[first - 1] === '\n' && node.value[from] === '\n') {
      from += 1;
      sendInstead(span, '', from === node.value.length ? end : (map[from] as number));
    }
  }
  keep(node.value.length);
  return out;
}
