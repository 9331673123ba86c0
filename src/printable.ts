/**
 * Text kbsync did not write (titles, workspace names, paths, URLs, the service's messages, a document's
 * body in a diff) reaches a person's terminal, a log, a GitHub annotation or a Markdown comment inside
 * kbsync's own lines. A line break in it would print a line of its own that reads as kbsync's (a forged
 * "✓ everything synced"); any other control character could retitle the window, clear the screen, move the
 * cursor or reverse the text. So every printer takes lines, not text: each line it is given is one line,
 * and passes through `printableLine` here, which shows every such character as a visible escape (`\u000a`,
 * `\u001b`, `\u202e`): a person sees what the text holds, and neither the terminal nor a reader is fooled.
 * Where a line's structure is made from values already made one line (a log line as pino-pretty lays it
 * out), `printable` keeps the structure's line breaks. The escapes are JSON's own, so a JSON line passed
 * through here (a `--json` report) is still the same JSON.
 */

// C0 controls (ESC, CR, BEL, backspace…) but tab and line feed; DEL and the C1 controls (U+0080–U+009F, which
// some terminals read as CSI/OSC); Unicode's bidirectional marks, embeddings, overrides and isolates; and the
// line and paragraph separators, which some terminals and editors break lines at.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same, with line feed: one line of a printer's output, whose tabs only move its text along.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const STEERING_OR_LINE_FEED = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same, with tab and line feed: inside one value (a title, a message quoted on one line).
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const STEERING_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const visible = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Lines laid out from values already made one line: line breaks and tabs stay, every other control character is made visible. */
export const printable = (text: string): string => text.replace(STEERING, visible);

/** One line of a printer's output: tabs stay, every other control character (line breaks too) is made visible. */
export const printableLine = (line: string): string => line.replace(STEERING_OR_LINE_FEED, visible);

/** A document of lines (a Markdown comment, a job summary): each line one line, then joined. */
export const printableLines = (lines: readonly string[]): string => lines.map(printableLine).join('\n');

/** One value shown inside a line (a title, a name, a quoted message): line breaks and tabs are made visible too. */
export const oneLine = (text: string): string => text.replace(STEERING_OR_BREAK, visible);

/** Someone else's words quoted in a message: one line, at most `maxChars` characters of it (an ellipsis says it was cut). */
export function quoted(text: string, maxChars: number): string {
  const chars = [...text];
  return oneLine(chars.length > maxChars ? `${chars.slice(0, maxChars).join('')}…` : text);
}

/** How many paths a log line names: a run over thousands of files says how many, names a few, and `--json` has them all. */
const PATHS_NAMED = 10;

/** Fields for a log line about many paths: the first few (in order) and how many more there are. */
export function pathsNamed(paths: readonly string[]): { readonly paths: readonly string[]; readonly more?: number } {
  const sorted = [...paths].sort();
  return sorted.length <= PATHS_NAMED ? { paths: sorted } : { paths: sorted.slice(0, PATHS_NAMED), more: sorted.length - PATHS_NAMED };
}
