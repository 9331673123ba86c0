/** The longest `written` a report holds: a link is rarely longer, and a runaway one is cut (with an ellipsis). */
const WRITTEN_CHARS = 160;

/** A link as a report quotes it: its line breaks and the blanks around them one space, cut at WRITTEN_CHARS. */
export function asWritten(text: string): string {
  const flat = text.replace(/[ \t]*\r?\n[ \t]*/g, ' ');
  const chars = [...flat];
  return chars.length > WRITTEN_CHARS ? `${chars.slice(0, WRITTEN_CHARS).join('')}…` : flat;
}

/** The 1-based column of `offset` in its line of `text`. */
export const columnAt = (text: string, offset: number): number => offset - text.lastIndexOf('\n', offset - 1);

/** A link as its file has it: the text quoted (asWritten), its column, and whether a lowering made it (`made`). */
export type WrittenAs = { readonly written: string; readonly column: number; readonly made: boolean };
