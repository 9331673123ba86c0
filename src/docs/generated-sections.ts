import { EXIT_CODES, exitCodeOfCode } from '../cli/exit-codes.js';
import { CODE_TABLE, type ErrorCode } from '../codes.js';
import { HELD_REASONS } from '../sync/decide/held.js';

/**
 * The README tables made from the lists the code uses, so that a code, an exit code or a hold reason
 * cannot exist without being documented (`npm run gen:docs` rewrites them; a test fails when stale).
 */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A row's exit: the one most of its codes have (the first code's on a tie), then the codes that exit otherwise ("2; `UNSAFE_PATH` 3"). */
function exitCell(codes: readonly ErrorCode[]): string {
  const exits = codes.map(exitCodeOfCode);
  const count = (exit: number): number => exits.filter((e) => e === exit).length;
  const main = exits.reduce((best, exit) => (count(exit) > count(best) ? exit : best));
  const others = [...new Set(exits.filter((exit) => exit !== main))].map((exit) => `${codes.filter((code) => exitCodeOfCode(code) === exit).map((code) => `\`${code}\``).join(', ')} ${exit}`);
  return [String(main), ...others].join('; ');
}

export const GENERATED_SECTIONS: Readonly<Record<string, () => string>> = {
  'exit-codes': () => ['| Code | Meaning |', '|---|---|', ...EXIT_CODES.map((e) => `| ${e.code} | ${cell(e.means)} |`)].join('\n'),
  'error-codes': () => {
    const codesOf = (row: (typeof CODE_TABLE)[number]): ErrorCode[] => Object.keys(row.codes) as ErrorCode[];
    const line = (codes: readonly ErrorCode[], means: string): string => `| ${codes.map((c) => `\`${c}\``).join(', ')} | ${exitCell(codes)} | ${cell(means)} |`;
    return ['| Code | Exit | What it means and what to do |', '|---|---|---|', ...CODE_TABLE.map((row) => line(codesOf(row), row.means))].join('\n');
  },
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
