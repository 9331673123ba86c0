import { benchApiThroughput } from '../api-throughput.js';
import type { Section } from '../lib/context.js';
import { makeRow, type Row } from '../lib/row.js';

const LIMITS = 40;

/** The API row: client throughput with two endpoints busy, from bench/api-throughput.ts. */
export const apiSection: Section = {
  name: 'API client throughput',
  rows: ['api'],
  timeoutMs: 90_000,
  async run(ctx) {
    ctx.log('api: two endpoints busy for 10 s (paced), then 5 s unpaced…');
    const { rows } = await benchApiThroughput({ seconds: 10 });
    const value = (prefix: string): number => {
      const row = rows.find((r) => r.metric.startsWith(prefix));
      if (!row) throw new Error(`bench/api-throughput.ts gave no row "${prefix}"`);
      return row.value;
    };
    const callsPerSecond = value('api: calls/s achieved');
    const paced429 = value('api: 429s per 1,000 calls (paced)');
    const unpaced429 = value('api: 429s per 1,000 calls (pacing off');
    const failed = value('api: failed operations');
    const agree = value('api: client call count');
    ctx.note(
      'api',
      `readBlocks and listNodes kept busy at once for 10 s through one client (default pacing), emulator at 20/s each. Failed operations: ${failed}; ` +
        `client's call count equals the service's: ${agree === 1 ? 'yes' : 'NO'}. With pacing off the same load provokes ${unpaced429} 429s per 1,000 calls.`,
    );
    const out: Row[] = [
      makeRow({ id: 'api', metric: 'API: calls/s with two endpoints busy ÷ sum of limits', ours: callsPerSecond, baseline: LIMITS, unit: 'calls/s', baselineIs: 'the two endpoints\' limits added (2 × 20/s)', target: { on: 'ratio', op: '>=', value: 0.9 } }),
      makeRow({ id: 'api', metric: 'API: 429s per 1,000 calls (paced)', ours: paced429, baseline: unpaced429, unit: 'per 1000', baselineIs: 'the same load with pacing off', target: { on: 'ours', op: '<=', value: 5 } }),
    ];
    return out;
  },
};
