import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BURST, CHECKOUT_SPAN_MS, DeleteDelays } from '../../../src/daemon/delete-delays.js';
import { findGitHead, GitBranch, readGitHead } from '../../../src/daemon/git-head.js';
import { publishesFrom } from '../../../src/daemon/removal-waits.js';
import type { ActionResult } from '../../../src/sync/run/executor.js';

const MIN = 60_000;
const waiting = (...paths: string[]): ActionResult[] => paths.map((path) => ({ path, action: 'held', ok: true, result: 'held', reason: 'DELETE_WAITING' }));
const moving = (from: string, to: string): ActionResult => ({ path: to, from, action: 'held', ok: true, result: 'held', reason: 'MOVE_WAITING' });
const deleted = (path: string): ActionResult => ({ path, action: 'delete-remote', ok: true, result: 'pushed' });
const due = (delays: DeleteDelays, now: number): string[] => [...(delays.deferral(now)?.due ?? [])].sort();

test('a delete waits deleteDelayMinutes from the cycle that first found its file gone; one that comes back is said back', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 5, checkoutDelayMinutes: 60 });
  assert.deepEqual(delays.deferral(0), { due: new Set(), moves: new Set() });
  const first = delays.observe(waiting('a.md'), 0);
  assert.deepEqual(first, { deleted: [{ path: 'a.md', kind: 'delete', since: 0, checkout: false, dueAt: 5 * MIN }], back: [] });
  assert.deepEqual(delays.observe(waiting('a.md', 'b.md'), 2 * MIN).deleted.map((wait) => wait.path), ['b.md'], 'a.md was said already');
  assert.deepEqual(due(delays, 4 * MIN), []);
  assert.deepEqual(due(delays, 5 * MIN), ['a.md']);
  assert.equal(delays.nextDue(), 5 * MIN);
  // a.md went (it was due); b.md came back (no result for it at all).
  assert.deepEqual(delays.observe([deleted('a.md')], 6 * MIN).back.map((wait) => wait.path), ['b.md']);
  assert.equal(delays.waiting, 0);
  assert.equal(delays.nextDue(), undefined);
});

test('with no delay and no checkout, deletes are not deferred at all (as in a one-shot sync)', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 0, checkoutDelayMinutes: 60 });
  assert.equal(delays.deferral(0), undefined);
  delays.checkout(0);
  assert.deepEqual(delays.deferral(59 * MIN), { due: new Set(), moves: 'all' });
  delays.observe([], 59 * MIN);
  assert.equal(delays.deferral(60 * MIN), undefined);
});

test('a checkout holds what it removed until the branch has stayed, and leaves an earlier delete its own wait', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 5, checkoutDelayMinutes: 60 });
  delays.observe(waiting('mine.md'), 0);
  delays.checkout(3 * MIN);
  assert.deepEqual(delays.deferral(3 * MIN), { due: new Set(), moves: 'all' }, 'every move the checkout cycle finds waits');
  const news = delays.observe(waiting('mine.md', 'p1.md', 'p2.md'), 3 * MIN);
  assert.deepEqual(news.deleted, []);
  assert.deepEqual(news.checkout?.brought.map((wait) => wait.path), ['p1.md', 'p2.md']);
  assert.deepEqual(news.checkout?.extended, []);
  assert.equal(news.checkout?.dueAt, 63 * MIN);
  assert.deepEqual(due(delays, 5 * MIN), ['mine.md'], 'the delete the checkout did not bring goes after its own 5 minutes');
  assert.deepEqual(due(delays, 62 * MIN), ['mine.md']);
  assert.deepEqual(due(delays, 63 * MIN), ['mine.md', 'p1.md', 'p2.md']);
});

test('a file gone within a minute before the checkout was seen is the checkout\'s (git moves HEAD last); a second checkout extends the first one\'s', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 5, checkoutDelayMinutes: 60 });
  delays.observe(waiting('early.md'), 0);
  delays.observe(waiting('early.md', 'half.md'), 10 * MIN - CHECKOUT_SPAN_MS);
  delays.checkout(10 * MIN);
  const news = delays.observe(waiting('early.md', 'half.md', 'rest.md'), 10 * MIN);
  assert.deepEqual(news.checkout?.brought.map((wait) => wait.path), ['half.md', 'rest.md']);
  delays.checkout(30 * MIN);
  const again = delays.observe([...waiting('half.md', 'rest.md', 'other.md'), moving('a/x.md', 'b/x.md')], 30 * MIN);
  assert.deepEqual(again.checkout?.brought.map((wait) => wait.path), ['a/x.md', 'other.md']);
  assert.deepEqual(again.checkout?.extended.map((wait) => wait.path), ['half.md', 'rest.md'], 'the branch did not stay');
  assert.deepEqual(again.back.map((wait) => wait.path), ['early.md']);
  assert.deepEqual(delays.deferral(89 * MIN), { due: new Set(), moves: new Set(['a/x.md']) }, 'a waiting move keeps waiting, a new one would not');
  assert.deepEqual(due(delays, 90 * MIN), ['a/x.md', 'half.md', 'other.md', 'rest.md']);
});

test('a move a checkout made that moves back is said back; one that went is not', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 5, checkoutDelayMinutes: 60 });
  delays.checkout(0);
  delays.observe([moving('a/x.md', 'b/x.md'), moving('a/y.md', 'b/y.md')], 0);
  assert.deepEqual(delays.list().map((wait) => [wait.path, wait.kind, wait.to, wait.dueAt]), [
    ['a/x.md', 'move', 'b/x.md', 60 * MIN],
    ['a/y.md', 'move', 'b/y.md', 60 * MIN],
  ]);
  // a/y.md is back where it was (no result for it at all) while a/x.md still waits.
  delays.deferral(30 * MIN);
  assert.deepEqual(delays.observe([moving('a/x.md', 'b/x.md')], 30 * MIN).back.map((wait) => [wait.path, wait.kind]), [['a/y.md', 'move']]);
  // a/x.md was due, and moved: its result names the new path only, and it is not said back.
  delays.deferral(60 * MIN);
  assert.deepEqual(delays.observe([{ path: 'b/x.md', action: 'move', ok: true, result: 'pushed' }], 60 * MIN).back, []);
  assert.equal(delays.waiting, 0);
});

test('a checkout, or a burst of files gone at once, makes what it removed wait until the folder has stayed', () => {
  const delays = new DeleteDelays({ deleteDelayMinutes: 1, checkoutDelayMinutes: 60 });
  const many = Array.from({ length: BURST }, (_, i) => `p${i}.md`);
  const news = delays.observe(waiting(...many), 0);
  assert.equal(news.checkout?.burst, true);
  assert.deepEqual(news.checkout?.brought.map((wait) => wait.path), many);
  assert.deepEqual(due(delays, 30 * MIN), [], 'the plain delay has passed, the checkout wait has not');
  assert.equal(delays.nextDue(), 60 * MIN);
  assert.equal(due(delays, 60 * MIN).length, BURST);
  const few = new DeleteDelays({ deleteDelayMinutes: 1, checkoutDelayMinutes: 60 });
  assert.equal(few.observe(waiting(...many.slice(1)), 0).checkout, undefined, 'fewer files are deletions one by one');
  few.checkout(10 * MIN);
  few.observe(waiting(...many.slice(1)), 10 * MIN);
  assert.equal(due(few, 20 * MIN).length, BURST - 1, 'deletes seen minutes before the checkout keep their own wait');
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

test('watch.publishBranches: a branch it names (or matches by glob) is published from; another, or a detached HEAD, is not; outside git, always', () => {
  assert.equal(publishesFrom(null, 'feature/x'), true);
  assert.equal(publishesFrom(['main', 'release/*'], 'main'), true);
  assert.equal(publishesFrom(['main', 'release/*'], 'release/2.1'), true);
  assert.equal(publishesFrom(['main', 'release/*'], 'feature/x'), false);
  assert.equal(publishesFrom(['main', 'release/*'], 'mainline'), false);
  assert.equal(publishesFrom(['*'], 'a1b2c3d4e5a1 (detached)'), false, 'a detached HEAD is on no branch');
  assert.equal(publishesFrom(['main'], undefined), true, 'no repository: nothing to choose by');
});
