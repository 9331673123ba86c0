import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FaultKind } from '../../../src/emulator/calls.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import {
  convergenceProblems,
  localFiles,
  locallyPresent,
  readTree,
  remotelyPresent,
  steadyProblems,
  writeCalls,
} from '../../helpers/reliability.js';

/**
 * Sync under the emulator's fault injection. Each case starts from a synced folder, changes both
 * sides (edits, new documents, one delete on each side), and syncs with the faults on. A run may fail,
 * but it must fail SAFE: after every run nothing is deleted that should not be (only the one file the
 * user deleted, only the one document deleted remotely), and nothing is duplicated. Within a few runs
 * it converges with every edit on both sides; then a fault-free run must write nothing.
 */

type Baseline = { readonly uuids: ReadonlyMap<string, string>; readonly markers: Markers };
type Markers = { readonly remote: readonly string[]; readonly local: readonly string[] };

type Case = {
  readonly name: string;
  readonly spec: string;
  /** Faulted runs allowed before the case must have converged (with the faults still on). */
  readonly runs: number;
  /** A fault no run can get past (a listing that always fails): every run must abort, writing nothing. */
  readonly blocking?: boolean;
  /** Extra synced documents in the top folder (a listing of more than one page). */
  readonly bulk?: number;
  /** Fewer changes: for slow faults. */
  readonly small?: boolean;
};

const CASES: readonly Case[] = [
  { name: '429 storm (40% of calls throttled)', spec: '429=0.4,seed=7', runs: 3 },
  { name: '10% 5xx', spec: '5xx=0.1,seed=11', runs: 4 },
  { name: '5% connection resets', spec: 'reset=0.05,seed=13', runs: 4 },
  { name: '2-second latency', spec: 'latency=2000', runs: 2, small: true },
  { name: 'every create answer dropped', spec: 'drop=1,only=createDocument', runs: 3 },
  { name: 'listing fails from page 2', spec: 'listFailPage=2', runs: 2, blocking: true, bulk: 55 },
];

const summary: string[] = [];
let faultsSurvived = 0;

after(() => {
  console.log(`\nfault runs (${faultsSurvived} injected faults survived)\n${summary.join('\n')}\n`);
});

async function baseline(f: SyncFixture, kase: Case): Promise<Baseline> {
  for (const n of [1, 2, 3, 4]) await f.write(`b${n}.md`, `# B${n}\n\nBody of b${n}.\n\nMore of b${n}\n`);
  await f.write('sub/s1.md', '# S1\n\nBody of s1.\n');
  for (let i = 0; i < (kase.bulk ?? 0); i++) await f.write(`bulk-${String(i).padStart(2, '0')}.md`, `# Bulk ${i}\n\nBulk body ${i}.\n`);
  const run = await f.sync();
  assert.equal(run.code, 0, run.stderr);
  return { uuids: new Map(f.remoteDocs().map((doc) => [doc.title, doc.dentryUuid])), markers: await change(f, kase) };
}

/** Both sides change: what each side must end up holding. */
async function change(f: SyncFixture, kase: Case): Promise<Markers> {
  await f.write('b1.md', (await f.read('b1.md')).replace('Body of b1.', 'Body of b1 localeditmarker.'));
  const b2 = f.remoteDoc('B2');
  f.em.admin.editDocument(b2.dentryUuid, (b2.markdown ?? '').replace('Body of b2.', 'Body of b2 remoteeditmarker.'));
  await f.write('n1.md', '# N1\n\nnewlocalmarker.\n');
  if (kase.small) return { remote: ['localeditmarker', 'newlocalmarker'], local: ['remoteeditmarker'] };
  await f.write('fresh/n2.md', '# N2\n\nnewfoldermarker.\n');
  // More traffic, so that a share of faults hits each kind of call.
  const extra = [1, 2, 3, 4, 5, 6].map((n) => `extra${n}marker`);
  for (const [i, marker] of extra.entries()) await f.write(`extra/x${i}.md`, `# X${i}\n\n${marker}.\n`);
  f.em.admin.createDocument({ name: 'R1', markdown: '# R1\n\nnewremotemarker.\n' });
  f.em.admin.createDocument({ name: 'R2', markdown: '# R2\n\nnewremotemarker2.\n' });
  await f.remove('b3.md');
  f.em.admin.deleteNode(f.remoteDoc('B4').dentryUuid);
  return { remote: ['localeditmarker', 'newlocalmarker', 'newfoldermarker', ...extra], local: ['remoteeditmarker', 'newremotemarker', 'newremotemarker2'] };
}

/** Fail-safe: only the user's own deletes happened (b3's document, b4's file to the trash), nothing duplicated. */
async function safetyProblems(f: SyncFixture, base: Baseline, kase: Case): Promise<string[]> {
  const problems: string[] = [];
  const alive = new Set(f.remoteDocs().map((doc) => doc.dentryUuid));
  for (const [title, uuid] of base.uuids) {
    if (!['B3', 'B4'].includes(title) && !alive.has(uuid)) problems.push(`document ${title} was deleted`);
  }
  const files = await localFiles(f.root);
  for (const path of ['b1.md', 'b2.md', 'sub/s1.md', 'n1.md', ...(kase.small ? ['b3.md', 'b4.md'] : ['fresh/n2.md'])]) {
    if (!files.has(path)) problems.push(`${path} is gone locally`);
  }
  const trashed = [...(await readTree(join(f.root, '.kbsync', 'trash'))).keys()];
  const wrongTrash = trashed.filter((path) => !path.endsWith('/b4.md'));
  if (wrongTrash.length > 0) problems.push(`trashed what was not deleted remotely: ${wrongTrash.join(', ')}`);
  const titles = f.remoteDocs().map((doc) => doc.title);
  const twice = titles.filter((title, i) => titles.indexOf(title) !== i || / \(\d+\)$/.test(title));
  if (twice.length > 0) problems.push(`duplicate documents: ${twice.join(', ')}`);
  return problems;
}

function injected(f: SyncFixture): Partial<Record<FaultKind, number>> {
  const byKind = f.em.admin.calls().faultsByKind;
  return Object.fromEntries(Object.entries(byKind).filter(([, n]) => n > 0));
}

describe('sync under injected faults fails safe and converges', { concurrency: 2 }, () => {
  for (const kase of CASES) {
    test(kase.name, async () => {
      await withSyncFixture(async (f) => {
        const base = await baseline(f, kase);
        f.em.admin.resetCalls();
        f.em.admin.setFaults(kase.spec);
        const codes: (number | null)[] = [];
        const failedSafely: string[] = [];
        for (let run = 0; run < kase.runs; run++) {
          const writesBefore = writeCalls(f.em.admin.calls());
          const result = await f.sync();
          codes.push(result.code);
          for (const r of result.report?.results ?? []) if (!r.ok) failedSafely.push(`${r.action} ${r.path}: ${r.code}`);
          if (!result.report && result.code !== 0) failedSafely.push(result.stderr.slice(0, 300));
          assert.deepEqual(await safetyProblems(f, base, kase), [], `after faulted run ${run + 1}`);
          if (kase.blocking) {
            assert.notEqual(result.code, 0, 'a run whose listing failed must not report success');
            assert.deepEqual(writeCalls(f.em.admin.calls()), writesBefore, 'a failed listing must abort the cycle before any write');
          }
          if (result.code === 0) break;
        }
        const faults = injected(f);
        const survived = Object.entries(faults).reduce((sum, [, n]) => sum + (n ?? 0), 0);
        f.em.admin.setFaults({});
        if (!kase.blocking) assert.equal(codes.at(-1), 0, `not converged within ${kase.runs} faulted runs (exit codes ${codes.join(', ')})`);
        else {
          const healed = await f.sync();
          assert.equal(healed.code, 0, healed.stderr);
        }
        assert.deepEqual(await safetyProblems(f, base, kase), []);
        assert.deepEqual(await convergenceProblems(f), []);
        for (const marker of base.markers.remote) assert.ok(remotelyPresent(f, marker), `lost remotely: ${marker}`);
        for (const marker of base.markers.local) assert.ok(await locallyPresent(f, marker), `lost locally: ${marker}`);
        if (!kase.small) {
          assert.equal(await f.exists('b4.md'), false, 'the remotely deleted document leaves the folder (to the trash)');
          assert.equal(f.remoteDocs().some((doc) => doc.title === 'B3'), false, 'the locally deleted file takes its document along');
        }
        assert.deepEqual(await steadyProblems(f), []);
        faultsSurvived += survived;
        summary.push(`  ${kase.name.padEnd(38)} runs: ${codes.map(String).join(',').padEnd(8)} faults: ${JSON.stringify(faults)}`);
        if (failedSafely.length > 0) summary.push(`    failed safely, then recovered: ${failedSafely.join('; ').slice(0, 300)}`);
      });
    });
  }
});
