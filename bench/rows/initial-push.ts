import type { Section } from '../lib/context.js';
import { makeRow } from '../lib/row.js';
import { afterFirstPublish, callRows } from './calls.js';
import { SERVICE_LIMIT } from '../lib/site.js';
import { fileCount } from '../lib/tree.js';

/** Row 3: the first push of 1,000 documents against the emulator at its default per-endpoint limit, the run after it and a no-op run. */
export const initialPushSection: Section = {
  name: 'initial push of 1,000 documents',
  rows: ['3'],
  timeoutMs: 900_000,
  async run(ctx) {
    const site = await ctx.freshOneK();
    const docs = fileCount(site.tree.shape);
    site.em.admin.resetCalls();
    ctx.log(`row 3: kbsync sync --push of ${docs} new documents at ${SERVICE_LIMIT} calls/s per endpoint (about a minute)…`);
    const { run, report } = await site.sync('push', { timeoutMs: 600_000 });
    const service = site.em.admin.calls();
    const endpoints = Object.entries(service.byEndpoint).filter(([, e]) => e.calls > 0);
    const [busiestName, busiest] = endpoints.reduce((a, b) => (b[1].calls > a[1].calls ? b : a));
    const lowerBoundMs = (busiest.calls / SERVICE_LIMIT) * 1000;
    // A document costs createDocument + overwriteContent + readBlocks: its read-back (rule 8) is the next run's first read of it, except for a
    // body whose blocks read alike (these pages' two code blocks), read back at once for their ids. Folders are created once each.
    // Body calls are counted on the users' documents themselves, so kbsync's state documents are not charged to them.
    const folders = site.tree.folders.length;
    const created = report.counts['created'] ?? report.results.filter((r) => r.ok).length;
    // modifiedTime has minute precision, so each document written is read back once its minute is over, by the
    // next run's first read of it: counted here, in the first two-way run after the push (the emulator's clock past the minute).
    ctx.log('row 3: the first two-way run after the push (the read-backs), then a no-op run…');
    if (report.failed > 0) throw new Error(`the initial push failed for ${report.failed} documents`);
    const calls = await afterFirstPublish(site);
    ctx.keepSettledOneK(site);
    const documentCalls = calls.pushOnDocuments;
    ctx.note(
      '3',
      `\`kbsync sync --push\` (CLI process, start included) of ${docs} new files in ${site.tree.folders.length} folders, emulator at its default ${SERVICE_LIMIT} calls/s per endpoint, ` +
        `client at its default pacing. Calls by endpoint: ${endpoints.map(([name, e]) => `${name} ${e.calls}`).join(', ')} (${service.throttled} answered 429). ` +
        `Lower bound = the busiest endpoint (${busiestName}, ${busiest.calls} calls: one per document and folder) at ${SERVICE_LIMIT}/s. ${created} results ok, ${report.failed} failed. ` +
        `Calls per document count the calls made for the documents (${documentCalls}); the other calls are the ${folders} folders and the run's workspace and listing calls; all calls ÷ documents = ${(service.total / docs).toFixed(3)}. ` +
        `CPU = user + system time of the CLI process (start included), beside the lower bound's wall time: below half of it, the push waits on the limit, not on the CPU. ` +
        `The notes are realistic ~3 KB pages (headings, nested and task lists, a table, two code blocks, a quote, links to the web and to a sibling note). ` +
        `The next run: the first two-way run after the push made ${calls.next} calls, ${calls.onDocuments - calls.pushOnDocuments} of them body calls on the documents (${calls.nextReads} reads in all) (${calls.nextS.toFixed(1)} s with the limit off): ` +
        `each write is read back once, by the first read after its minute is over (modifiedTime has minute precision: a read in the write's own minute could not tell a colleague's later edit in it). ` +
        `A no-op two-way run after it, at the service's pace, made ${calls.noOp} calls.`,
    );
    return [
      makeRow({ id: '3', metric: 'initial push 1,000 docs (3 KB): wall time ÷ lower bound', ours: run.ms / 1000, baseline: lowerBoundMs / 1000, unit: 's', baselineIs: `the busiest endpoint's calls ÷ its limit (${SERVICE_LIMIT}/s)`, target: { on: 'ratio', op: '<=', value: 1.1 } }),
      makeRow({ id: '3', metric: 'initial push: CPU time ÷ lower bound', ours: run.cpuMs / 1000, baseline: lowerBoundMs / 1000, unit: 's', baselineIs: `the busiest endpoint's calls ÷ its limit (${SERVICE_LIMIT}/s)`, target: { on: 'ratio', op: '<=', value: 0.5 } }),
      makeRow({ id: '3', metric: 'initial push: calls per document', ours: documentCalls / docs, unit: 'calls/doc', target: { on: 'ours', op: '<=', value: 3 } }),
      ...callRows('3', '1,000 pages', site.tree.shape, calls),
      makeRow({ id: '3', metric: 'initial push: other calls (folders, workspace, listing)', ours: service.total - documentCalls, unit: 'calls' }),
      makeRow({ id: '3', metric: 'initial push: 429s provoked', ours: service.throttled, unit: '429s', target: { on: 'ours', op: '=', value: 0 } }),
    ];
  },
};
