import { EXIT_CODES } from '../cli/exit-codes.js';
import { CODE_TABLE } from '../codes.js';
import { HELD_REASONS } from '../sync/decide/held.js';

/**
 * The README tables made from the lists the code uses, so that a code, an exit code or a hold reason
 * cannot exist without being documented (`npm run gen:docs` rewrites them; a test fails when stale).
 */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export const GENERATED_SECTIONS: Readonly<Record<string, () => string>> = {
  'exit-codes': () => ['| Code | Meaning |', '|---|---|', ...EXIT_CODES.map((e) => `| ${e.code} | ${cell(e.means)} |`)].join('\n'),
  'error-codes': () => ['| Code | What it means and what to do |', '|---|---|', ...CODE_TABLE.map((row) => `| ${row.codes.map((c) => `\`${c}\``).join(', ')} | ${cell(row.means)} |`)].join('\n'),
  'held-reasons': () =>
    ['| Reason | What kbsync says, and what to do |', '|---|---|', ...Object.entries(HELD_REASONS).map(([code, message]) => `| \`${code}\` | ${cell(message)} |`)].join('\n'),
};

/** `text` with every `<!-- generated:NAME -->…<!-- /generated -->` block rewritten from its source. */
export function regenerate(text: string): string {
  return text.replace(/<!-- generated:([a-z-]+) -->[\s\S]*?<!-- \/generated -->/g, (whole, name: string) => {
    const make = GENERATED_SECTIONS[name];
    return make ? `<!-- generated:${name} -->\n${make()}\n<!-- /generated -->` : whole;
  });
}
