/**
 * API throughput: two endpoints (readBlocks and listNodes) kept busy at once against the emulator
 * at its default 20 calls/s per endpoint. Per-endpoint pacing should use nearly the whole budget of
 * both (target ≥ 0.9 of the sum of the limits) without failed operations and without provoking 429s.
 * Side by side, the same load with pacing off shows what pacing saves (the 429s it avoids).
 *
 * Run alone: node --import tsx bench/api-throughput.ts [seconds]
 */
import { pathToFileURL } from 'node:url';
import { KbClient } from '../src/api/client.js';
import { staticToken } from '../src/api/token.js';
import { startEmulator } from '../src/emulator/index.js';
import { asDocKey, asTreeNodeId, asUnionId } from '../src/model/ids.js';
import { RequestQueue } from '../src/queue/request-queue.js';

export type BenchRow = { readonly metric: string; readonly value: number; readonly unit: string; readonly target: string; readonly ok: boolean };

const SERVICE_LIMIT = 20;
/** Operations kept outstanding per endpoint: more than the pacing lets through, so the queue is never idle. */
const OUTSTANDING = 6;

type LoadResult = { callsPerSecond: number; failedOps: number; completedOps: number; throttledPer1000: number; countsAgree: boolean };

/** Keeps both endpoints busy for `seconds` through a queue pacing at `clientRate` (0 = unpaced). */
async function runLoad(clientRate: number, seconds: number): Promise<LoadResult> {
  const em = await startEmulator({ rateLimit: SERVICE_LIMIT });
  try {
    const doc = em.admin.createDocument({ name: 'Bench', markdown: '# Bench\n\nSome text.\n\n- a\n- b\n' });
    for (let i = 0; i < 10; i++) em.admin.createDocument({ name: `Sibling ${i}` });
    const queue = new RequestQueue({ rate: clientRate });
    const client = new KbClient({ baseUrl: em.seed.baseUrl, tokenHeader: em.seed.tokenHeader, token: staticToken(em.seed.token), operatorId: asUnionId(em.seed.operatorId), queue });
    const root = asTreeNodeId(em.seed.rootNodeId);
    const docKey = asDocKey(doc.docKey);

    let completedOps = 0;
    let failedOps = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const worker = async (operation: () => Promise<unknown>): Promise<void> => {
      while (performance.now() < deadline) {
        await operation().then(
          () => void completedOps++,
          () => void failedOps++,
        );
      }
    };
    await Promise.all([
      ...Array.from({ length: OUTSTANDING }, () => worker(() => client.readBlocks(docKey))),
      ...Array.from({ length: OUTSTANDING }, () => worker(() => client.listNodesPage(root, undefined))),
    ]);
    const elapsedS = (performance.now() - started) / 1000;
    const service = em.admin.calls();
    return {
      callsPerSecond: (service.total - service.throttled) / elapsedS,
      failedOps,
      completedOps,
      throttledPer1000: service.total === 0 ? 0 : (service.throttled / service.total) * 1000,
      countsAgree: queue.stats().totals.calls === service.total,
    };
  } finally {
    await em.close();
  }
}

export async function benchApiThroughput(options: { seconds?: number } = {}): Promise<{ rows: BenchRow[] }> {
  const seconds = options.seconds ?? 10;
  const paced = await runLoad(SERVICE_LIMIT, seconds);
  const unpaced = await runLoad(0, Math.max(2, seconds / 2));
  const ratio = paced.callsPerSecond / (2 * SERVICE_LIMIT);
  return {
    rows: [
      { metric: 'api: calls/s achieved (readBlocks + listNodes)', value: round(paced.callsPerSecond), unit: 'calls/s', target: `limit ${2 * SERVICE_LIMIT}`, ok: true },
      { metric: 'api: achieved ÷ sum of per-endpoint limits', value: round(ratio), unit: 'ratio', target: '≥ 0.9', ok: ratio >= 0.9 },
      { metric: 'api: failed operations', value: paced.failedOps, unit: 'ops', target: '0', ok: paced.failedOps === 0 },
      { metric: 'api: 429s per 1,000 calls (paced)', value: round(paced.throttledPer1000), unit: 'per 1000', target: '≈ 0', ok: paced.throttledPer1000 < 5 },
      { metric: 'api: 429s per 1,000 calls (pacing off, for comparison)', value: round(unpaced.throttledPer1000), unit: 'per 1000', target: 'info', ok: true },
      { metric: 'api: client call count = service call count', value: paced.countsAgree && unpaced.countsAgree ? 1 : 0, unit: 'bool', target: '1', ok: paced.countsAgree && unpaced.countsAgree },
    ],
  };
}

const round = (n: number): number => Math.round(n * 100) / 100;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { rows } = await benchApiThroughput({ seconds: Number(process.argv[2] ?? 10) });
  console.table(rows.map((r) => ({ metric: r.metric, value: r.value, unit: r.unit, target: r.target, ok: r.ok ? 'yes' : 'NO' })));
}
