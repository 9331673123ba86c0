import type { Definition, Image, Link } from 'mdast';
import type { Span } from './types.js';

/**
 * Finds the destination of an inline link or image (`[text](dest "title")`) or of a definition
 * (`[label]: dest`) in the source, following CommonMark: past the label's closing bracket, then
 * `(` or `:`, then blanks (one line break at most), then `<dest>` or a run without blanks whose
 * parentheses balance. Undefined for anything else (autolinks, links written as references).
 */
export function destinationSpan(source: string, node: Link | Image | Definition): Span | undefined {
  const start = node.position?.start.offset;
  if (start === undefined) return undefined;
  let at = labelEnd(source, node, start);
  if (at === undefined) return undefined;
  const opener = node.type === 'definition' ? ':' : '(';
  if (source[at] !== opener) return undefined;
  at = skipBlanks(source, at + 1);
  if (source[at] === '<') {
    const close = scan(source, at + 1, (c) => c === '>' || c === '\n');
    return source[close] === '>' ? { start: at + 1, end: close } : undefined;
  }
  let depth = 0;
  const end = scan(source, at, (c) => {
    if (c === '(') depth++;
    else if (c === ')') depth--;
    return depth < 0 || /\s/.test(c);
  });
  return end > at ? { start: at, end } : undefined;
}

/** The offset just after the `]` that closes the link text, image alt or definition label. */
function labelEnd(source: string, node: Link | Image | Definition, start: number): number | undefined {
  const last = node.type === 'link' ? node.children.at(-1)?.position?.end.offset : undefined;
  // A link's text ends where its last child does; an alt text or a label is scanned, brackets nested.
  let at = last ?? start + (node.type === 'image' ? 2 : 1);
  if (last === undefined && source[at - 1] !== '[') return undefined;
  let depth = 0;
  at = scan(source, at, (c) => {
    if (c === '[') depth++;
    else if (c === ']') depth--;
    return depth < 0;
  });
  return source[at] === ']' ? at + 1 : undefined;
}

/** The first offset from `from` where `stop` holds, stepping over backslash escapes. */
function scan(source: string, from: number, stop: (c: string) => boolean): number {
  let at = from;
  while (at < source.length) {
    const c = source[at] as string;
    if (c === '\\' && at + 1 < source.length && !/\s/.test(source[at + 1] as string)) {
      at += 2;
      continue;
    }
    if (stop(c)) return at;
    at++;
  }
  return at;
}

function skipBlanks(source: string, from: number): number {
  let at = from;
  let breaks = 0;
  while (at < source.length && /\s/.test(source[at] as string)) {
    if (source[at] === '\n' && ++breaks > 1) break;
    at++;
  }
  return at;
}

/** The destination as written, with its backslash escapes resolved: what the parser's `url` holds. */
export const unescapeDestination = (written: string): string => written.replace(/\\([!-/:-@[-`{-~])/g, '$1');
