import type { Section } from '../lib/context.js';
import { makeRow, type Row } from '../lib/row.js';
import { createSite, fastPush, IN_MEMORY, SERVICE_LIMIT, settle, type Site } from '../lib/site.js';
import { fileCount, minListingCalls, type TreeShape } from '../lib/tree.js';
import { ID_WINDOW } from '../../src/sync/state/journal.js';

/** 6,000 generated notes (about 400 bytes: a heading, paragraphs, a list): 6 areas × 10 topics × 100 files. */
const SIX_K: TreeShape = { top: 6, sub: 10, perFolder: 100, notes: 'full' };

/** kbsync's own documents (the shared state's index and sources), not charged to the notes. */
const STATE_TITLE = /^kbsync-(state|sources)-\d{6}(-[a-z2-7]{8}(-[0-9a-f]{16})?)?$/;

/** What a note costs at best: its create, its body, and one read that verifies the write (issue 48's 3 a note). */
const BARE_CALLS_PER_NOTE = 3;

/** The calls made on the users' documents (not kbsync's state documents): their creates plus every body call on them. */
function documentCalls(site: Site): () => number {
  const userDocs = site.em.admin.dump().nodes.filter((n) => n.docType === 'DOC' && !STATE_TITLE.test(n.title));
  return () => userDocs.length + userDocs.reduce((sum, n) => sum + Object.values(site.em.admin.callsOn(n.dentryUuid)).reduce((a, b) => a + (b ?? 0), 0), 0);
}

/** The calls of a first publish, of the run after it and of a no-op run after that (all counted by the emulator). */
export type PublishCalls = {
  readonly push: number;
  /** The push's calls on the notes' own documents (creates and bodies). */
  readonly pushOnDocuments: number;
  readonly next: number;
  /** The next run's reads: each write read back once its minute is over. */
  readonly nextReads: number;
  readonly nextS: number;
  /** Calls on the notes' own documents after both runs. */
  readonly onDocuments: number;
  readonly noOp: number;
};

/**
 * After a first push whose calls the emulator has counted since it began: the run after it (two-way, the
 * writes' minute over, limit off: the counts do not hang on the pace) and a no-op two-way run after that, at
 * the service's pace, as a user's next syncs would go. The site is left settled.
 */
export async function afterFirstPublish(site: Site): Promise<PublishCalls> {
  const push = site.em.admin.calls().total;
  const onDocumentsNow = documentCalls(site);
  const pushOnDocuments = onDocumentsNow();
  let next = 0;
  let onDocuments = 0;
  const { settleS, checks } = await settle(site, () => {
    next = site.em.admin.calls().total - push;
    onDocuments = onDocumentsNow();
  });
  const { report } = await site.sync('two-way');
  if (report.planned.length !== 0) throw new Error(`the no-op run after the first publish planned ${report.planned.length} action(s)`);
  const noOp = site.em.admin.calls().total;
  return { push, pushOnDocuments, next, nextReads: checks, nextS: settleS, onDocuments, noOp };
}

/**
 * Issue 48's call rows: a first publish plus the run after it within 3 calls a note in all (create, body, one
 * verification; the shared state's records, folders and listings included), and a no-op run at the listing
 * minimum. Row 3 measures them on 1,000 realistic pages at the service's pace, row 8 on 6,000 notes.
 */
export function callRows(id: string, label: string, shape: TreeShape, calls: PublishCalls): Row[] {
  const notes = fileCount(shape);
  const bare = `the bare minimum: a note's create, body and one verifying read (issue 48's target)`;
  return [
    makeRow({ id, metric: `first publish + next run, ${label}: calls per note (all)`, ours: (calls.push + calls.next) / notes, baseline: BARE_CALLS_PER_NOTE, unit: 'calls/doc', baselineIs: bare, target: { on: 'ours', op: '<=', value: 3 } }),
    makeRow({ id, metric: `first publish + next run, ${label}: calls per note on its document`, ours: calls.onDocuments / notes, baseline: BARE_CALLS_PER_NOTE, unit: 'calls/doc', baselineIs: bare, target: { on: 'ours', op: '<=', value: 3 } }),
    makeRow({ id, metric: `no-op two-way after them, ${label}: calls ÷ minimum listing calls`, ours: calls.noOp, baseline: minListingCalls(shape), unit: 'calls', baselineIs: 'one listNodes call per 50 children of every folder', target: { on: 'ratio', op: '<=', value: 1.1 } }),
  ];
}

/** The calls of each endpoint the emulator counted, as a note says them. */
const byEndpoint = (site: Site): string =>
  Object.entries(site.em.admin.calls().byEndpoint)
    .filter(([, e]) => e.calls > 0)
    .map(([name, e]) => `${name} ${e.calls}`)
    .join(', ');

/** Row 8: a first publish of 6,000 notes, the run after it and a no-op run. */
export const callsSection: Section = {
  name: 'calls of a first publish, the next run and a no-op run, 6,000 notes',
  rows: ['8'],
  timeoutMs: 900_000,
  async run(ctx) {
    // In memory (/dev/shm), as the 10k tree is built: the ledger's fsyncs are not what this row counts.
    const site = await createSite('6k', SIX_K, IN_MEMORY);
    try {
      ctx.log(`row 8: kbsync sync --push of ${fileCount(SIX_K)} new notes, limit off…`);
      site.em.admin.resetCalls();
      const { pushS } = await fastPush(site);
      const pushed = byEndpoint(site);
      ctx.log("row 8: the next run (two-way, the writes' minute over), then a no-op run…");
      const calls = await afterFirstPublish(site);
      ctx.note(
        '8',
        `A first \`kbsync sync --push\` of ${fileCount(SIX_K)} generated notes (about 400 bytes) in ${site.tree.folders.length} folders, then one two-way run with the writes' minute over (the emulator's clock moved on), ` +
          `both with the limit off and the client unpaced (the counts do not hang on the pace). A first \`--push\` finds its ledger empty and runs as one without a ledger (a CI job): ` +
          `up to ${ID_WINDOW} creates are sent before their ids are appended to the shared state, in one append once all have answered, so a kill loses at most ${ID_WINDOW} ids: one appendText per ${ID_WINDOW} notes. ` +
          `Then a no-op two-way run at the service's pace (${SERVICE_LIMIT} calls/s per endpoint). ` +
          `Push: ${calls.push} calls in ${pushS.toFixed(0)} s (${pushed}); next run: ${calls.next} calls in ${calls.nextS.toFixed(0)} s (${calls.nextReads} reads); no-op: ${calls.noOp} calls. ` +
          `On the notes' documents: ${calls.pushOnDocuments} calls in the push, ${calls.onDocuments} after the next run (create, body, the one read that verifies the write once its minute is over); the rest is the shared state (its index, the notes' sources), folders and listings.`,
      );
      return callRows('8', '6,000 notes', SIX_K, calls);
    } finally {
      await site.dispose();
    }
  },
};
