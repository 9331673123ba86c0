import { performance } from 'node:perf_hooks';
import { openSession, openSyncLedger, syncOptionsOf } from '../../src/cli/session.js';
import { runSync } from '../../src/sync/engine.js';
import type { BenchContext, Section } from '../lib/context.js';
import { commitTree, gitStatusMs } from '../lib/git.js';
import { runChecked } from '../lib/proc.js';
import { makeRow, type Row } from '../lib/row.js';
import { SERVICE_LIMIT, createSettledSite, kbsyncBin, scaledSite, type Site } from '../lib/site.js';
import { median } from '../lib/stats.js';
import { fileCount, minListingCalls } from '../lib/tree.js';
import { prepareWalk } from '../lib/walk.js';

const ROUNDS = 5;

/**
 * Row 1: `kbsync sync --push` on unchanged files, beside a bare walk + stat of the same tree (and, at
 * 10,000 files, `git status`). In process too: runSync alone beside the same walk imported.
 */
async function noOpPush(ctx: BenchContext, site: Site, options: { readonly git: boolean; readonly rounds: number }): Promise<Row[]> {
  const files = fileCount(site.tree.shape);
  const n = files.toLocaleString('en-US');
  if (options.git) {
    ctx.log(`row 1 (${n}): committing the tree to git…`);
    await commitTree(site.root, '.kbsync');
  }
  const walk = await prepareWalk(site.dir);
  const node = process.execPath;
  const samples = { cli: [] as number[], walkSync: [] as number[], walkAsync: [] as number[], git: [] as number[], node: [] as number[], version: [] as number[] };
  const walked = async (walker: 'sync' | 'async'): Promise<number> => {
    const done = await runChecked(node, walk.nodeArgs(walker, site.root));
    if (Number(done.stdout.trim()) !== files) throw new Error(`the ${walker} walk found ${done.stdout.trim()} files, not ${files}`);
    return done.ms;
  };
  site.em.admin.resetCalls();
  ctx.log(`row 1 (${n}): ${options.rounds} rounds of CLI push / node -e walks${options.git ? ' / git status' : ''} (one warm-up round first)…`);
  // Round 0 warms the page cache and git's index stat data; it is not counted.
  for (let round = 0; round <= options.rounds; round++) {
    const cli = await site.cli(['sync', '--push']);
    if (cli.code !== 0) throw new Error(`kbsync sync --push exited ${cli.code ?? cli.signal}: ${cli.stderr.slice(-1500)}`);
    const sync = await walked('sync');
    const async = await walked('async');
    const git = options.git ? await gitStatusMs(site.root) : Number.NaN;
    // The fixed cost every run pays before any work: Node itself, and Node loading kbsync.
    const bare = await runChecked(node, ['-e', '0']);
    const version = await runChecked(node, [kbsyncBin, '--version']);
    if (round === 0) continue;
    samples.cli.push(cli.ms);
    samples.walkSync.push(sync);
    samples.walkAsync.push(async);
    samples.git.push(git);
    samples.node.push(bare.ms);
    samples.version.push(version.ms);
  }

  // In process: the engine's own time for the same no-op, beside the same walks imported here.
  const session = await openSession({ config: site.configPath, quiet: true, cwd: site.dir });
  const ledger = openSyncLedger(session);
  const inProcess = { runSync: [] as number[], walkSync: [] as number[], walkAsync: [] as number[] };
  try {
    const syncOptions = syncOptionsOf(session.config, { mode: 'push', dryRun: false, force: false });
    for (let round = 0; round <= options.rounds; round++) {
      let t = performance.now();
      const report = await runSync({ client: session.client, ledger, logger: session.logger }, syncOptions);
      const syncMs = performance.now() - t;
      if (report.planned.length !== 0) throw new Error(`the in-process no-op push planned ${report.planned.length} actions`);
      t = performance.now();
      walk.module.walkSync(site.root);
      const syncWalkMs = performance.now() - t;
      t = performance.now();
      await walk.module.walkAsync(site.root);
      const asyncWalkMs = performance.now() - t;
      if (round === 0) continue;
      inProcess.runSync.push(syncMs);
      inProcess.walkSync.push(syncWalkMs);
      inProcess.walkAsync.push(asyncWalkMs);
    }
  } finally {
    ledger.close();
  }
  const calls = site.em.admin.calls().total;

  const walkProc = Math.min(median(samples.walkSync), median(samples.walkAsync));
  const walkIn = Math.min(median(inProcess.walkSync), median(inProcess.walkAsync));
  const cli = median(samples.cli);
  ctx.note(
    '1',
    `No-op push on ${n} unchanged files in ${site.tree.folders.length} nested folders; medians of ${options.rounds} interleaved rounds after a warm-up round (warm page cache). ` +
      `CLI = \`node bin/kbsync.js sync --push\` as a user runs it, process start, config, ledger open and lock included. ` +
      `Walk process = \`node -e\` running a plain readdir + lstat of every .md file (sync: ${ms(median(samples.walkSync))}, async: ${ms(median(samples.walkAsync))}; the faster is the baseline). ` +
      `In process = runSync alone (modules loaded, session and ledger open) beside the same walk imported (sync ${ms(median(inProcess.walkSync))}, async ${ms(median(inProcess.walkAsync))}). ` +
      `Fixed cost in the same rounds: \`node -e 0\` ${ms(median(samples.node))}, \`kbsync --version\` ${ms(median(samples.version))}. ` +
      (options.git ? 'git status = `git status --porcelain` on the same tree committed in a repository in the folder (index already refreshed). ' : '') +
      `Node's own start (\`node -e 0\`) is part of both process figures.`,
  );
  const walkIs = 'a `node -e` process that walks the tree and lstats every .md file (faster of sync/async)';
  // Issue 48 asks 1.3 × a bare walk at 10,000 files; issue 14's 2 × stands at the other sizes.
  const ratio = files === 10_000 ? 1.3 : 2;
  return [
    makeRow({ id: '1', metric: `no-op push ${n}, CLI process ÷ node -e walk+stat process`, ours: cli, baseline: walkProc, unit: 'ms', baselineIs: walkIs, target: { on: 'ratio', op: '<=', value: ratio } }),
    makeRow({ id: '1', metric: `no-op push ${n}, in-process runSync ÷ in-process walk+stat`, ours: median(inProcess.runSync), baseline: walkIn, unit: 'ms', baselineIs: 'the same walk + lstat, imported and run in the benchmark process', target: { on: 'ratio', op: '<=', value: ratio } }),
    ...(options.git
      ? [makeRow({ id: '1', metric: `no-op push ${n}, CLI process ÷ git status`, ours: cli, baseline: median(samples.git), unit: 'ms', baselineIs: '`git status --porcelain` on the same tree committed in git (info: git keeps an index of stat data too)' })]
      : []),
    makeRow({ id: '1', metric: `no-op push ${n}: API calls in ${options.rounds * 2 + 2} runs`, ours: calls, unit: 'calls', target: { on: 'ours', op: '=', value: 0 } }),
  ];
}

/** Row 2: a two-way no-op on the same settled tree, at the service's default limit. */
async function noOpTwoWay(ctx: BenchContext, site: Site): Promise<Row[]> {
  const minimum = minListingCalls(site.tree.shape);
  site.em.admin.resetCalls();
  ctx.log('row 2: two-way no-op at 20 calls/s per endpoint…');
  const { run, report } = await site.sync('two-way');
  const service = site.em.admin.calls();
  const listing = service.byEndpoint.listNodes.calls;
  const busiest = Math.max(...Object.values(service.byEndpoint).map((e) => e.calls));
  const lowerBoundMs = (busiest / SERVICE_LIMIT) * 1000;
  ctx.note(
    '2',
    `Two-way no-op on the settled 10,000-note tree, emulator at its default ${SERVICE_LIMIT} calls/s per endpoint. Settled means: built with the real sync (limit off), then one two-way run made the ` +
      `one-time re-reads our own writes leave ('check': modifiedTime has minute precision, so a document written in the current minute is read once more); the emulator's clock was 150 s behind ` +
      `during the build and set right before that run, so every minute was over. This run planned ${report.planned.length} action(s); service calls: ${JSON.stringify(report.callsByEndpoint)} ` +
      `(${service.throttled} throttled). Minimum = one listNodes page of ≤ 50 per folder (root + ${site.tree.folders.length} folders) = ${minimum}.`,
  );
  return [
    makeRow({ id: '2', metric: 'no-op two-way: calls ÷ minimum listing calls', ours: service.total, baseline: minimum, unit: 'calls', baselineIs: 'one listNodes call per 50 children of every folder', target: { on: 'ratio', op: '<=', value: 1.1 } }),
    makeRow({ id: '2', metric: 'no-op two-way: wall time ÷ listing at 20/s', ours: run.ms, baseline: lowerBoundMs, unit: 'ms', baselineIs: `${listing} listNodes calls ÷ ${SERVICE_LIMIT}/s (the busiest endpoint's calls at its limit)` }),
    makeRow({ id: '2', metric: 'no-op two-way: actions planned (settled tree)', ours: report.planned.length, unit: '', target: { on: 'ours', op: '=', value: 0 } }),
  ];
}

export const noOpSection: Section = {
  name: 'no-op checks on 1,000, 10,000 and 50,000 files',
  rows: ['1', '2'],
  timeoutMs: 1_200_000,
  async run(ctx) {
    ctx.log('row 1: building a settled 1k tree of short notes…');
    const { site: small } = await createSettledSite('1k-noop', { top: 4, sub: 5, perFolder: 50, notes: 'short' });
    const rows = await noOpPush(ctx, small, { git: false, rounds: ROUNDS });
    await small.dispose();
    const site = await ctx.tenK();
    rows.push(...(await noOpPush(ctx, site, { git: true, rounds: ROUNDS })));
    rows.push(...(await noOpTwoWay(ctx, site)));
    ctx.log('row 1: the 50k tree (the 10k tree copied five times over, ledger rows included)…');
    const started = performance.now();
    const large = await scaledSite('50k', site, 5);
    ctx.log(`row 1: 50k tree ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    try {
      rows.push(...(await noOpPush(ctx, large, { git: false, rounds: 3 })));
    } finally {
      await large.dispose().catch(() => undefined);
    }
    return rows;
  },
};

const ms = (n: number): string => `${Math.round(n)} ms`;
