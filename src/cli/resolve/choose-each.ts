import { createInterface } from 'node:readline/promises';
import { InputError } from '../../errors.js';
import { resolved, type Choice, type OpenConflict } from '../../sync/settle/conflict-regions.js';
import { invocation } from '../../invocation.js';
import { terminal } from '../../terminal.js';

const CHOICES: Readonly<Record<string, Choice>> = { m: 'mine', mine: 'mine', t: 'theirs', theirs: 'theirs', b: 'both', both: 'both' };

/** The clashing regions of a conflict, as `kbsync resolve` lists and shows them. */
export const clashesOf = (conflict: OpenConflict) =>
  conflict.regions.flatMap((region) => (region.kind === 'clash' ? [{ line: region.line, base: region.base.join('\n'), mine: region.mine.join('\n'), theirs: region.theirs.join('\n') }] : []));

/** One clash as it is shown: each version's lines under its heading, every line printed as one (terminal.ts). */
const shown = (conflict: OpenConflict, clash: ReturnType<typeof clashesOf>[number]): string[] => [
  '',
  `${conflict.path}, line ${clash.line}:`,
  '--- as agreed before',
  ...clash.base.split('\n'),
  '--- yours',
  ...clash.mine.split('\n'),
  '--- theirs (the knowledge base)',
  ...clash.theirs.split('\n'),
];

/** Block by block on a terminal (or from answers piped in): yours, theirs, or both. */
export async function chooseEach(conflict: OpenConflict): Promise<string> {
  const rl = createInterface({ input: invocation().stdin, terminal: false });
  // Read as a stream of lines: it ends when the input does (a question left waiting would hang the process).
  const answers = rl[Symbol.asyncIterator]();
  const choices: Choice[] = [];
  try {
    for (const clash of clashesOf(conflict)) {
      terminal.out(...shown(conflict, clash));
      for (;;) {
        invocation().stdout.write('Keep [m]ine, [t]heirs or [b]oth? ');
        const next = await answers.next();
        if (next.done) {
          throw new InputError('RESOLVE_NO_ANSWER', `No answer for ${conflict.path}, line ${clash.line}: nothing was changed.`, {
            hint: 'Answer on a terminal, pipe the answers in (one of m, t, b per line), or choose for the whole file with --mine, --theirs or --tool.',
          });
        }
        const choice = CHOICES[next.value.trim().toLowerCase()];
        if (choice) {
          choices.push(choice);
          break;
        }
      }
    }
  } finally {
    rl.close();
  }
  return resolved(conflict.regions, (_clash, index) => choices[index] ?? 'mine');
}
