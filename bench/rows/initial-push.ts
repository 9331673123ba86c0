import type { Section } from '../lib/context.js';
import { makeRow } from '../lib/row.js';
import { SERVICE_LIMIT } from '../lib/site.js';
import { fileCount } from '../lib/tree.js';

/** Row 3: the first push of 1,000 documents against the emulator at its default per-endpoint limit. */
export const initialPushSection: Section = {
  name: 'initial push of 1,000 documents',
  rows: ['3'],
  timeoutMs: 240_000,
  async run(ctx) {
    const site = await ctx.freshOneK();
    const docs = fileCount(site.tree.shape);
    site.em.admin.resetCalls();
    ctx.log(`row 3: kbsync sync --push of ${docs} new documents at ${SERVICE_LIMIT} calls/s per endpoint (about a minute)…`);
    const { run, report } = await site.sync('push');
    const service = site.em.admin.calls();
    ctx.keepPushedOneK(site);
    const endpoints = Object.entries(service.byEndpoint).filter(([, e]) => e.calls > 0);
    const [busiestName, busiest] = endpoints.reduce((a, b) => (b[1].calls > a[1].calls ? b : a));
    const lowerBoundMs = (busiest.calls / SERVICE_LIMIT) * 1000;
    // A document costs createDocument + overwriteContent + readBlocks (read back, rule 8); folders are created once each.
    const folders = site.tree.folders.length;
    const documentCalls = service.byEndpoint.createDocument.calls - folders + service.byEndpoint.overwriteContent.calls + service.byEndpoint.readBlocks.calls;
    const created = report.counts['created'] ?? report.results.filter((r) => r.ok).length;
    ctx.note(
      '3',
      `\`kbsync sync --push\` (CLI process, start included) of ${docs} new files in ${site.tree.folders.length} folders, emulator at its default ${SERVICE_LIMIT} calls/s per endpoint, ` +
        `client at its default pacing. Calls by endpoint: ${endpoints.map(([name, e]) => `${name} ${e.calls}`).join(', ')} (${service.throttled} answered 429). ` +
        `Lower bound = the busiest endpoint (${busiestName}, ${busiest.calls} calls: one per document and folder) at ${SERVICE_LIMIT}/s. ${created} results ok, ${report.failed} failed. ` +
        `Calls per document count the calls made for the documents (${documentCalls}); the other calls are the ${folders} folders and the run's workspace and listing calls; all calls ÷ documents = ${(service.total / docs).toFixed(3)}.`,
    );
    if (report.failed > 0) throw new Error(`the initial push failed for ${report.failed} documents`);
    return [
      makeRow({ id: '3', metric: 'initial push 1,000 docs: wall time ÷ lower bound', ours: run.ms / 1000, baseline: lowerBoundMs / 1000, unit: 's', baselineIs: `the busiest endpoint's calls ÷ its limit (${SERVICE_LIMIT}/s)`, target: { on: 'ratio', op: '<=', value: 1.15 } }),
      makeRow({ id: '3', metric: 'initial push: calls per document', ours: documentCalls / docs, unit: 'calls/doc', target: { on: 'ours', op: '<=', value: 3 } }),
      makeRow({ id: '3', metric: 'initial push: other calls (folders, workspace, listing)', ours: service.total - documentCalls, unit: 'calls' }),
      makeRow({ id: '3', metric: 'initial push: 429s provoked', ours: service.throttled, unit: '429s', target: { on: 'ours', op: '=', value: 0 } }),
    ];
  },
};
