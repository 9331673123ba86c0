import { COLLEAGUE } from './edits.js';
import type { SoakResult } from './driver.js';
import { PLACES } from './verdict.js';

/** The soak's summary table: edits per side, holds by reason, tokens by where they ended, duplicates, the verdict. */
export function summaryLines(result: SoakResult, replay: string, machines: readonly string[]): string[] {
  const { log, judgement } = result;
  const row = (label: string, text: string): string => `  ${label.padEnd(26)} ${text}`;
  const sides = [...machines, COLLEAGUE];
  const ops = (side: string): string => {
    const kinds = [...(log.ops.get(side) ?? [])].filter(([op]) => !op.startsWith('edit:')).map(([op, n]) => `${op} ${n}`);
    return `${side} ${log.total(side, 'edit:')}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`;
  };
  const tokens = [...log.written.values()];
  const bySide = sides.map((side) => `${side} ${tokens.filter((t) => t.author === side).length}`).join(', ');
  const lines = [
    row('steps', `${result.steps}; daemons started ${result.crew.starts}, killed ${result.crew.kills}, armed to crash ${result.crew.crashArmed} (crashed ${result.crew.crashed}), stopped ${result.crew.stops}; fault windows ${result.faultWindows}`),
    row('workspace at the end', `${result.sizes.documents} documents (${result.sizes.prose} prose pages); files ${machines.map((m) => `${m} ${result.sizes.files.get(m) ?? 0}`).join(', ')}`),
    row('edits', sides.map(ops).join('; ')),
    row('tokens written', `${tokens.length} (${bySide}); removed again on purpose ${log.removed.size}`),
    row('settled', result.settledAfter === undefined ? 'NO: the daemons did not come to rest' : `after ${result.settledAfter} round(s)`),
  ];
  const heldGroups = new Map<string, Map<string, number>>();
  for (const file of judgement.held) {
    const key = `${file.allowed ? 'allowed' : 'NOT ALLOWED'}: ${file.code}, ${file.why}`;
    const perMachine = heldGroups.get(key) ?? new Map<string, number>();
    perMachine.set(file.machine, (perMachine.get(file.machine) ?? 0) + 1);
    heldGroups.set(key, perMachine);
  }
  if (heldGroups.size === 0) lines.push(row('held', 'none'));
  for (const [key, perMachine] of [...heldGroups].sort()) lines.push(row('held', `${machines.map((m) => `${m} ${perMachine.get(m) ?? 0}`).join(', ')}  ${key}`));
  const conflicts = machines.map((m) => `${m} ${judgement.conflicts.filter((c) => c.machine === m).length}`).join(', ');
  lines.push(row('conflicts', `${conflicts} (genuine ${judgement.conflicts.filter((c) => c.genuine).length} of ${judgement.conflicts.length})`));
  for (const place of PLACES) lines.push(row(`tokens ${place}`, String(judgement.tokens.get(place)?.length ?? 0)));
  lines.push(row('duplicates', String(judgement.duplicates.length)));
  if (result.said.size > 0) lines.push(row('daemons warned', [...result.said].sort((x, y) => y[1] - x[1]).map(([code, n]) => `${code} ${n}`).join(', ')));
  lines.push(row('verdict', result.violations.length === 0 ? 'converged' : `FAILED: ${result.violations.length} violation(s) (replay: ${replay})`));
  return lines;
}
