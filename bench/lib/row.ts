import { round } from './stats.js';

/** What a row promises, checked against either the ratio or our own figure. */
export type Target = { readonly on: 'ratio' | 'ours'; readonly op: '<=' | '>=' | '='; readonly value: number };

export type Unit = 'ms' | 's' | 'calls' | 'calls/doc' | 'calls/h' | 'calls/s' | 'per 1000' | 'docs/s' | 'MB' | 'ms CPU/min' | '429s' | '';

/** One line of the results table. Every figure is ours beside a baseline measured in the same run. */
export type Row = {
  readonly id: string;
  readonly metric: string;
  readonly ours: number;
  readonly baseline: number | null;
  readonly unit: Unit;
  /** What the baseline is, in a few words (shown in the notes under the table). */
  readonly baselineIs: string;
  readonly ratio: number | null;
  readonly target: string;
  readonly met: 'yes' | 'no' | '—';
};

export type RowInput = {
  readonly id: string;
  readonly metric: string;
  readonly ours: number;
  readonly baseline?: number | null;
  readonly unit: Unit;
  readonly baselineIs?: string;
  readonly target?: Target;
  /** Shown instead of a computed target text (e.g. "info"). */
  readonly targetText?: string;
};

const opText = { '<=': '≤', '>=': '≥', '=': '=' } as const;

export function makeRow(input: RowInput): Row {
  const baseline = input.baseline ?? null;
  const ratio = baseline === null || baseline === 0 || !Number.isFinite(baseline) ? null : input.ours / baseline;
  const target = input.target;
  let met: Row['met'] = '—';
  if (target) {
    const value = target.on === 'ratio' ? ratio : input.ours;
    met = value !== null && Number.isFinite(value) && compare(value, target) ? 'yes' : 'no';
  }
  const targetText = input.targetText ?? (target ? `${target.on === 'ratio' ? 'ratio ' : ''}${opText[target.op]} ${target.value}` : '—');
  return {
    id: input.id,
    metric: input.metric,
    ours: round(input.ours, 3),
    baseline: baseline === null ? null : round(baseline, 3),
    unit: input.unit,
    baselineIs: input.baselineIs ?? '',
    ratio: ratio === null ? null : round(ratio, 3),
    target: targetText,
    met,
  };
}

function compare(value: number, target: Target): boolean {
  // Ratios are shown to two decimals; judge them as shown, so "1.00" never reads as a miss of "≤ 1".
  const shown = target.on === 'ratio' ? round(value, 2) : value;
  if (target.op === '<=') return shown <= target.value;
  if (target.op === '>=') return shown >= target.value;
  return shown === target.value;
}
