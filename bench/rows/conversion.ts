import { benchConversion } from '../conversion.js';
import type { Section } from '../lib/context.js';

/** Row 7: Markdown conversion speed on real-world documents, from bench/conversion.ts. */
export const conversionSection: Section = {
  name: 'Markdown conversion',
  rows: ['7'],
  timeoutMs: 60_000,
  async run(ctx) {
    ctx.log('row 7: Markdown conversion on real-world READMEs…');
    const { rows } = await benchConversion();
    ctx.note('7', 'Documents per second over real-world Markdown (READMEs and docs under node_modules), each operation beside a plain remark parse (CommonMark + GFM) of the same documents in the same run (bench/conversion.ts).');
    return rows.map((row) => ({ ...row, id: '7' }));
  },
};
