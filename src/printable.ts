/**
 * Text kbsync did not write (titles, workspace names, paths, the service's messages, a document's body in
 * a diff) reaches a person's terminal. A control character in it could retitle the window, clear the
 * screen, move the cursor or reverse the text to fake a result line. Every printer (the terminal's lines,
 * the log, error messages) passes text through here, and each such character is shown as a visible escape
 * (`\u001b`, `\u202e`) instead: a person sees what the text holds, and the terminal obeys none of it.
 * The escapes are JSON's own, so a JSON line passed through here (a `--json` report) is still the same JSON.
 */

// C0 controls (ESC, CR, BEL, backspace…) but tab and line feed; DEL and the C1 controls (U+0080–U+009F, which
// some terminals read as CSI/OSC); Unicode's bidirectional marks, embeddings, overrides and isolates; and the
// line and paragraph separators, which some terminals and editors break lines at.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same, with tab and line feed: inside one value (a title, a message quoted on one line) a line break
// would start a line that looks like kbsync's own.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const STEERING_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const visible = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Lines of text for a terminal: line breaks and tabs stay, every other control character is made visible. */
export const printable = (text: string): string => text.replace(STEERING, visible);

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
