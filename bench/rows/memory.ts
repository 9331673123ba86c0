import type { Section } from '../lib/context.js';
import { PEAK_RSS_IMPORT, runChecked } from '../lib/proc.js';
import { makeRow } from '../lib/row.js';
import { fileCount } from '../lib/tree.js';
import { prepareWalk } from '../lib/walk.js';

/** Issue 48: a one-shot sync of 10,000 notes within 150 MB at its peak. */
const PEAK_TARGET_MB = 150;

/**
 * Row 9: the RSS high-water mark of the one-shot syncs that built the 10,000-note tree (its first push, and
 * the two-way run after it that reads every write back), beside that of a node process that walks the same
 * tree and lstats every file (what any process that looks at every file holds at least).
 */
export const memorySection: Section = {
  name: 'peak memory of a one-shot sync of 10,000 notes',
  rows: ['9'],
  timeoutMs: 900_000,
  async run(ctx) {
    const site = await ctx.tenK();
    const setup = await ctx.tenKSetup();
    const walk = await prepareWalk(site.dir);
    const bare = await runChecked(process.execPath, [PEAK_RSS_IMPORT, ...walk.nodeArgs('sync', site.root)]);
    if (Number(bare.stdout.trim()) !== fileCount(site.tree.shape)) throw new Error(`the walk found ${bare.stdout.trim()} files, not ${fileCount(site.tree.shape)}`);
    const n = fileCount(site.tree.shape).toLocaleString('en-US');
    ctx.note(
      '9',
      `The RSS high-water mark (VmHWM, said by the process as it exits) of the two one-shot CLI runs that built the ${n}-note tree of row 1: ` +
        `\`kbsync sync --push\` of ${n} new short notes (${setup.pushS.toFixed(0)} s), then the two-way run after it that read every write back (${setup.checks} reads, ${setup.settleS.toFixed(0)} s), ` +
        `both with the emulator's limit off and the client unpaced (concurrency 16: more in flight than the default 8). ` +
        `Baseline: the same high-water mark of a \`node -e\` process that walks the tree and lstats every .md file.`,
    );
    const baselineIs = 'a `node -e` process that walks the tree and lstats every file: its peak RSS';
    return [
      makeRow({ id: '9', metric: `one-shot sync ${n} notes, first push: peak RSS`, ours: setup.pushPeakMb, baseline: bare.peakRssMb, unit: 'MB', baselineIs, target: { on: 'ours', op: '<=', value: PEAK_TARGET_MB } }),
      makeRow({ id: '9', metric: `one-shot sync ${n} notes, the next run (reads every write back): peak RSS`, ours: setup.settlePeakMb, baseline: bare.peakRssMb, unit: 'MB', baselineIs, target: { on: 'ours', op: '<=', value: PEAK_TARGET_MB } }),
    ];
  },
};
