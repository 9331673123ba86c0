import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, lstat, mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { silentLogger } from '../../../src/log.js';
import { openStateStore } from '../../../src/sync/state/store.js';
import { pathOf } from '../../../src/sync/decide/placement.js';
import type { Plan } from '../../../src/sync/decide/types.js';
import { runSync } from '../../../src/sync/engine.js';
import { observeAndPlan, workspaceRoot, type Observation } from '../../../src/sync/observe/observe.js';
import { plannedLines, pushInProcess, withInProcess, type InProcess } from '../../helpers/in-process-sync.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A push over a tree the ledger holds as settled takes the empty plan its fingerprint stands for, reading no
 * row (observe/settled-tree.ts). These check that it reads nothing then, and that whatever changes after it
 * (files, folders, options, the ledger) is planned exactly as a push without the fingerprint plans it.
 */

/** The push's observation, with or without the settled-tree fingerprint. */
async function observe(run: InProcess, settledTree: boolean): Promise<Observation> {
  const { client, ledger, options } = run;
  const secret = await options.stateKey?.get();
  return observeAndPlan(
    {
      client,
      ledger,
      rootId: () => workspaceRoot(client, ledger, options, false),
      store: (rootId) => openStateStore({ client, ledger, logger: silentLogger }, { workspaceId: options.workspaceId, rootId }, secret),
    },
    { ...options, listRemote: 'if-needed', settledTree },
  );
}

const shape = (plan: Plan): unknown => ({
  actions: plan.actions.map((action) => `${action.kind} ${pathOf(action)}`),
  pending: plan.pending,
  notices: plan.notices.map((notice) => `${notice.code} ${notice.path}`),
  refusal: plan.refusal?.code,
});

/** Counts the ledger's reads of its document rows during `fn`. */
async function rowReads<T>(run: InProcess, fn: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const documents = run.ledger.documents;
  let reads = 0;
  const counted = ['allStats', 'allSummaries', 'summariesByPath', 'summaries', 'summary'] as const;
  const originals = counted.map((name) => [name, documents[name]] as const);
  for (const [name, original] of originals) {
    Object.defineProperty(documents, name, { configurable: true, value: (...args: unknown[]) => (reads++, (original as (...a: unknown[]) => unknown).apply(documents, args)) });
  }
  try {
    return { result: await fn(), reads };
  } finally {
    for (const [name] of originals) delete (documents as unknown as Record<string, unknown>)[name];
  }
}

const FILES = ['top.md', 'a/one.md', 'a/two.md', 'a/b/three.md', 'a/b/four.md', 'c/five.md', 'c/six.md'];
const textOf = (path: string): string => `# ${path.replace(/\W+/g, ' ').trim()}\n\nText of ${path}.\n`;

async function settledTree(f: SyncFixture): Promise<void> {
  for (const path of FILES) await f.write(path, textOf(path));
  assert.equal((await pushInProcess(f)).counts['pushed'], FILES.length);
  // The run after the creates finds every file settled, plans nothing, and records the fingerprint.
  assert.deepEqual(plannedLines(await pushInProcess(f)), []);
}

describe('a push over a settled tree', () => {
  test('reads no row and makes no call, and the preview and the run agree', async () => {
    await withSyncFixture(async (f) => {
      await settledTree(f);
      await withInProcess(f, 'push', async (run) => {
        assert.ok(run.ledger.settledTree.get(), 'the no-op run recorded the fingerprint');
        const { result: observation, reads } = await rowReads(run, () => observe(run, true));
        assert.equal(reads, 0);
        assert.equal(observation.settledTree?.recorded, true);
        assert.equal(observation.settled.size, FILES.length, 'every file counts as settled');
        assert.deepEqual(shape(observation.plan), shape((await observe(run, false)).plan));
        const { result: report, reads: runReads } = await rowReads(run, () => runSync({ client: run.client, ledger: run.ledger, logger: silentLogger }, run.options));
        assert.equal(runReads, 0);
        assert.equal(report.calls, 0);
        assert.deepEqual(plannedLines(report), []);
        assert.ok(run.ledger.settledTree.get(), 'a run that took the fingerprint keeps it');
      });
      assert.deepEqual(plannedLines(await pushInProcess(f, true)), []);
    });
  });

  test('an option that changes what is synced, and a hold placed in the ledger, are seen at once', async () => {
    await withSyncFixture(async (f) => {
      await settledTree(f);
      // A new exclude pattern: the files it leaves out are left alone (their documents are not deleted).
      const config = JSON.parse(await readFile(f.configPath, 'utf8')) as Record<string, unknown>;
      await writeFile(f.configPath, JSON.stringify({ ...config, exclude: ['c/**'] }));
      await withInProcess(f, 'push', async (run) => {
        const observation = await observe(run, true);
        assert.notEqual(observation.settledTree?.recorded, true, 'another exclude list is another fingerprint');
        assert.deepEqual(shape(observation.plan), shape((await observe(run, false)).plan));
      });
      assert.equal((await pushInProcess(f)).calls, 0);
      await withInProcess(f, 'push', async (run) => {
        // The excluded files' rows are left alone, which a plan must see: such a tree is never recorded as settled.
        assert.equal((await observe(run, true)).settledTree, undefined);
      });
      // Back to the old options over an unchanged ledger and tree: the old fingerprint holds again.
      await writeFile(f.configPath, JSON.stringify(config));
      await withInProcess(f, 'push', async (run) => {
        assert.equal((await observe(run, true)).settledTree?.recorded, true);
        run.ledger.documents.update('a/one.md', { heldCode: 'HIDDEN_EDIT', heldLocalHash: run.ledger.documents.summary('a/one.md')?.localHash ?? '', heldRemoteTime: '' });
        assert.equal(run.ledger.settledTree.get(), undefined, 'a ledger write drops the fingerprint');
        const held = await observe(run, true);
        assert.deepEqual(shape(held.plan), shape((await observe(run, false)).plan));
        assert.deepEqual((shape(held.plan) as { actions: string[] }).actions, ['held a/one.md']);
      });
    });
  });

  test('property: after any changes to files and folders, the plan is the one made without the fingerprint', async () => {
    type Change =
      | { readonly kind: 'file'; readonly op: 'edit' | 'touch' | 'replace-same-stat' | 'rewrite-in-place' | 'remove'; readonly file: number }
      | { readonly kind: 'add'; readonly name: number; readonly folder: number }
      | { readonly kind: 'folder'; readonly op: 'mkdir' | 'rmdir'; readonly folder: number };
    const folders = ['', 'a', 'a/b', 'c', 'd/e'];
    const change: fc.Arbitrary<Change> = fc.oneof(
      fc.record({ kind: fc.constant('file'), op: fc.constantFrom('edit', 'touch', 'replace-same-stat', 'rewrite-in-place', 'remove'), file: fc.nat() }),
      fc.record({ kind: fc.constant('add'), name: fc.nat(20), folder: fc.nat(folders.length - 1) }),
      fc.record({ kind: fc.constant('folder'), op: fc.constantFrom('mkdir', 'rmdir'), folder: fc.nat(folders.length - 1) }),
    ) as fc.Arbitrary<Change>;
    let fastPaths = 0;
    let changedPlans = 0;
    await withSyncFixture(async (f) => {
      await settledTree(f);
      const present = new Set(FILES);
      await fc.assert(
        fc.asyncProperty(fc.array(change, { minLength: 0, maxLength: 3 }), async (changes) => {
          let removed = 0;
          for (const c of changes) {
            const files = [...present].sort();
            if (c.kind === 'add') {
              const path = join(folders[c.folder] ?? '', `new-${c.name}.md`);
              await f.write(path, textOf(path));
              present.add(path);
            } else if (c.kind === 'folder') {
              const empty = join(f.root, folders[c.folder] ?? '', 'empty');
              await (c.op === 'mkdir' ? mkdir(empty, { recursive: true }) : rm(empty, { recursive: true, force: true }));
            } else if (files.length > 0) {
              const path = files[c.file % files.length] as string;
              const abs = join(f.root, path);
              const before = await lstat(abs);
              if (c.op === 'edit') await appendFile(abs, 'More text.\n');
              else if (c.op === 'touch') await utimes(abs, new Date(), new Date(before.mtimeMs + 5000));
              else if (c.op === 'remove') {
                // One deletion a round keeps the mass-delete guard out of it.
                if (removed++ > 0 || present.size < 4) continue;
                await rm(abs);
                present.delete(path);
              } else {
                // Same size and mtime: by a new inode (an editor's atomic save), or in place (which no stat can tell).
                const text = (await readFile(abs, 'utf8')).replace('Text', 'TEXT');
                if (c.op === 'replace-same-stat') {
                  await writeFile(`${abs}.tmp`, text);
                  await rename(`${abs}.tmp`, abs);
                } else await writeFile(abs, text);
                await utimes(abs, before.atime, before.mtime);
              }
            }
          }
          await withInProcess(f, 'push', async (run) => {
            const fast = await observe(run, true);
            const slow = await observe(run, false);
            if (fast.settledTree?.recorded) fastPaths++;
            if (slow.plan.actions.length > 0) changedPlans++;
            assert.deepEqual(shape(fast.plan), shape(slow.plan));
            if (fast.settledTree?.recorded) assert.equal(fast.settled.size, fast.scan.files.length);
          });
          // Settle what changed, then the run after records the new tree.
          await pushInProcess(f);
          await pushInProcess(f);
        }),
        { numRuns: 25, seed: 20261126 },
      );
    });
    assert.ok(fastPaths > 0, 'some rounds changed nothing and took the fingerprint');
    assert.ok(changedPlans > 0, 'some rounds changed what the push does');
  });
});
