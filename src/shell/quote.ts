/** Characters a POSIX shell reads as themselves in a word: such a word needs no quotes. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One word for a POSIX shell: as it is when nothing in it is special, else in single quotes (inside
 * which nothing is expanded, so `$LOCAL` and spaces survive; a quote itself is written '\'').
 */
export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line of words, each quoted as needed, to show a person or write into a unit file. */
export const shellLine = (words: readonly string[]): string => words.map(shellQuote).join(' ');
