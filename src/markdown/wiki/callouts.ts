import type { Blockquote, Strong, Text } from 'mdast';
import type { Points } from './points.js';

/* Callouts (`> [!tip]- Title`, GitHub's `> [!NOTE]`): the marker reads as the bold label the push sends. */

/** A callout's marker (`[!warning]-`) at the start of a quote. */
export type CalloutMark = {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  /** The bold label it reads as: `Warning:` before a title, `Warning` alone. */
  readonly label: string;
};

const CALLOUT = /^\[!([\p{L}\p{N}][\p{L}\p{N}_-]*)\]([+-]?)/u;

/** The bold label of a callout type: `warning` and `WARNING` read `Warning`. */
export const calloutLabel = (type: string, titled: boolean): string => `${type.charAt(0).toUpperCase()}${type.slice(1).toLowerCase()}${titled ? ':' : ''}`;

/** A quote that opens with `[!type]` (GitHub's alerts too): the marker becomes the callout's bold label. */
export function markCallout(quote: Blockquote, markdown: string, points: Points): void {
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
