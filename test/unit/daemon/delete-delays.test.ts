import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BURST, DeleteDelays } from '../../../src/daemon/delete-delays.js';
import { findGitHead, GitBranch, readGitHead } from '../../../src/daemon/git-head.js';
import type { ActionResult } from '../../../src/sync/run/executor.js';

const MIN = 60_000;
const waiting = (...paths: string[]): ActionResult[] => paths.map((path) => ({ path, action: 'held', ok: true, result: 'held', reason: 'DELETE_WAITING' }));
const deleted = (path: string): ActionResult => ({ path, action: 'delete-remote', ok: true, result: 'pushed' });

test('a delete waits deleteDelayMinutes from the cycle that first found its file gone; one that comes back is said back', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 5, checkoutDelayMinutes: 60 });
  assert.equal(delays.deferring(0), true);
  assert.deepEqual(delays.observe(waiting('a.md'), 0), { back: [], burst: [] });
  assert.deepEqual(delays.observe(waiting('a.md', 'b.md'), 2 * MIN), { back: [], burst: [] });
  assert.deepEqual([...delays.due(4 * MIN)], []);
  assert.deepEqual([...delays.due(5 * MIN)], ['a.md']);
  assert.equal(delays.nextDue(), 5 * MIN);
  // a.md went; b.md came back (no result for it at all).
  assert.deepEqual(delays.observe([deleted('a.md')], 6 * MIN), { back: ['b.md'], burst: [] });
  assert.equal(delays.waiting, 0);
  assert.equal(delays.nextDue(), undefined);
});

test('with no delay and no checkout, deletes are not deferred at all (as in a one-shot sync)', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 0, checkoutDelayMinutes: 60 });
  assert.equal(delays.deferring(0), false);
  delays.checkout(0);
  assert.equal(delays.deferring(59 * MIN), true);
  assert.equal(delays.deferring(60 * MIN), false);
});

test('a checkout, or a burst of files gone at once, makes every waiting delete wait until the branch has stayed', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 1, checkoutDelayMinutes: 60 });
  const many = Array.from({ length: BURST }, (_, i) => `p${i}.md`);
  assert.deepEqual(delays.observe(waiting(...many), 0).burst, many);
  assert.deepEqual([...delays.due(30 * MIN)], [], 'the plain delay has passed, the checkout wait has not');
  assert.equal(delays.nextDue(), 60 * MIN);
  assert.equal(delays.due(60 * MIN).size, BURST);
  const few = new DeleteDelays({ deleteDelayMinutes: 1, checkoutDelayMinutes: 60 });
  assert.deepEqual(few.observe(waiting(...many.slice(1)), 0).burst, [], 'fewer files are deletions one by one');
  few.checkout(10 * MIN);
  assert.deepEqual([...few.due(20 * MIN)], []);
  assert.equal(few.due(70 * MIN).size, BURST - 1);
});

test('git HEAD: found from a folder inside the repository (also through a .git file), read as a branch or a detached commit', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-git-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'repo', '.git'), { recursive: true });
  await mkdir(join(dir, 'repo', 'docs', 'notes'), { recursive: true });
  await writeFile(join(dir, 'repo', '.git', 'HEAD'), 'ref: refs/heads/main\n');
  assert.equal(findGitHead(join(dir, 'repo', 'docs', 'notes')), join(dir, 'repo', '.git', 'HEAD'));
  assert.equal(readGitHead(join(dir, 'repo', '.git', 'HEAD')), 'main');
  await mkdir(join(dir, 'main-git', 'worktrees', 'wt'), { recursive: true });
  await mkdir(join(dir, 'wt'));
  await writeFile(join(dir, 'wt', '.git'), `gitdir: ${join(dir, 'main-git', 'worktrees', 'wt')}\n`);
  await writeFile(join(dir, 'main-git', 'worktrees', 'wt', 'HEAD'), `${'a1b2c3d4e5'.repeat(4)}\n`);
  assert.equal(readGitHead(findGitHead(join(dir, 'wt')) ?? ''), 'a1b2c3d4e5a1 (detached)');

  const branch = new GitBranch(join(dir, 'repo', 'docs'));
  assert.equal(branch.switched(), undefined);
  await writeFile(join(dir, 'repo', '.git', 'HEAD'), 'ref: refs/heads/feature/x\n');
  assert.deepEqual(branch.switched(), { from: 'main', to: 'feature/x' });
  assert.equal(branch.switched(), undefined, 'said once');
});
