import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWatcher, type LocalWatcher, type RawListener, type WatcherOptions } from '../../../src/local/watcher.js';
import { tempDir, writeTree } from './temp.js';
import { ManualClock } from '../../helpers/manual-clock.js';

type Recorder = { readonly batches: string[][]; all(): string[]; next(): Promise<string[]> };

function record(watcher: LocalWatcher): Recorder {
  const batches: string[][] = [];
  let waiter: ((paths: string[]) => void) | undefined;
  watcher.on('hint', (paths) => {
    batches.push(paths);
    waiter?.(paths);
    waiter = undefined;
  });
  return {
    batches,
    all: () => [...new Set(batches.flat())].sort(),
    next: () => new Promise((resolve) => (waiter = resolve)),
  };
}

async function start(t: TestContext, root: string, options: WatcherOptions = {}): Promise<LocalWatcher> {
  const watcher = createWatcher(root, { debounceMs: 50, ...options });
  t.after(() => watcher.close());
  await watcher.ready;
  return watcher;
}

/** Waits for the first hint, then for quiet, and returns every path hinted. */
async function settle(recorder: Recorder, quietMs = 600): Promise<string[]> {
  if (recorder.batches.length === 0) await recorder.next();
  let seen = -1;
  while (seen !== recorder.batches.length) {
    seen = recorder.batches.length;
    await sleep(quietMs);
  }
  return recorder.all();
}

describe('createWatcher', () => {
  test('an editor-style atomic save (temp file, rename over) hints the final path only', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'x.md': 'old', 'other.md': '' });
    const watcher = await start(t, root);
    const hints = record(watcher);
    await fsp.writeFile(path.join(root, '.x.md.tmp'), 'new content');
    await fsp.rename(path.join(root, '.x.md.tmp'), path.join(root, 'x.md'));
    assert.deepEqual(await settle(hints), ['x.md']);
  });

  test('a file copied in slowly is hinted once it is complete, never half way', async (t) => {
    const root = await tempDir(t);
    // The debounce in virtual time: 60 ms pass between chunks whatever the machine's load (on a busy one, a real
    // 60 ms sleep and a sync could take longer than the debounce, and the hint came half way).
    const clock = new ManualClock();
    let events = 0;
    const watcher = await start(t, root, { debounceMs: 250, clock, onRaw: (batch) => (events += batch.filter((event) => event.path.endsWith('slow.md')).length) });
    const contentAtHint: string[] = [];
    watcher.on('hint', () => contentAtHint.push(readFileSync(path.join(root, 'slow.md'), 'utf8')));
    const hints = record(watcher);
    const handle = await fsp.open(path.join(root, 'slow.md'), 'w');
    for (let chunk = 0; chunk < 8; chunk += 1) {
      const seen = events;
      await handle.write(`chunk ${chunk}\n`);
      await handle.sync();
      while (events === seen) await sleep(5); // the watcher has an event of this write (or of one before it)
      clock.advance(60);
    }
    await handle.close();
    assert.deepEqual(hints.batches, [], 'no hint while the writes come closer together than the debounce');
    // The debounce passes; an event of the last writes still on its way re-arms it (and a hint later than that
    // is the maximum wait's), so it passes again until the hint comes.
    while (hints.batches.length === 0) {
      clock.advance(250);
      await sleep(5);
    }
    const complete = Array.from({ length: 8 }, (_, i) => `chunk ${i}\n`).join('');
    assert.deepEqual(hints.batches[0], ['slow.md']);
    assert.deepEqual(new Set(contentAtHint), new Set([complete]), 'every hint comes once the writes have stopped for the debounce');
    clock.advance(10_000);
    assert.deepEqual(hints.all(), ['slow.md']);
  });

  test('a truncate-then-write save (in place) is one hint, with the new content in place', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'x.md': 'old text, longer than the new one' });
    const watcher = await start(t, root);
    const seen: string[] = [];
    watcher.on('hint', () => seen.push(readFileSync(path.join(root, 'x.md'), 'utf8')));
    const hints = record(watcher);
    const handle = await fsp.open(path.join(root, 'x.md'), 'r+');
    await handle.truncate(0);
    await handle.write('new', 0);
    await handle.close();
    assert.deepEqual(await settle(hints), ['x.md']);
    assert.deepEqual(seen, ['new']);
  });

  test('folders created (with files) and removed under the watch are hinted', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'keep.md': 'x' });
    const watcher = await start(t, root);
    const hints = record(watcher);
    // No pause between mkdir -p and the write: the file lands while the new folders' events are still
    // being handled (here the watcher's callbacks may run between the awaited calls; the next test
    // leaves them no chance at all).
    await fsp.mkdir(path.join(root, 'new', 'deeper'), { recursive: true });
    await fsp.writeFile(path.join(root, 'new', 'deeper', 'n.md'), 'n');
    assert.ok((await settle(hints)).includes('new/deeper/n.md'), hints.all().join());
    const later = record(watcher);
    await fsp.rm(path.join(root, 'new'), { recursive: true });
    const removed = await settle(later);
    assert.ok(removed.includes('new') || removed.includes('new/deeper/n.md'), removed.join());
  });

  test('files written at once into folders just made by mkdir -p are hinted (no pause for the new folders to be watched)', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'keep.md': 'x' });
    const watcher = await start(t, root);
    const hints = record(watcher);
    // The race the watcher was written to win: the inner folders and their files exist before any
    // event for the outer folder is handled (synchronous calls: this process's watcher cannot run in
    // between, as it could not keep up with a fast `mkdir -p && cp` in a shell), so a watch added per
    // folder on its event sees no create for them.
    mkdirSync(path.join(root, 'fresh', 'a', 'b'), { recursive: true });
    writeFileSync(path.join(root, 'fresh', 'a', 'b', 'deep.md'), 'deep');
    writeFileSync(path.join(root, 'fresh', 'a', 'mid.md'), 'mid');
    writeFileSync(path.join(root, 'fresh', 'top.md'), 'top');
    const all = await settle(hints);
    for (const file of ['fresh/a/b/deep.md', 'fresh/a/mid.md', 'fresh/top.md']) assert.ok(all.includes(file), `${file} not hinted: ${all.join()}`);
  });

  test('applies the scanner rules: temp files, state folder, node_modules, excluded and .kbsyncignored paths give no hint', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { '.kbsyncignore': 'private/\n', 'private/.keep': '', '.kbsync/.keep': '', 'node_modules/.keep': '', 'drafts/.keep': '' });
    const watcher = await start(t, root, { exclude: ['drafts/**'] });
    const hints = record(watcher);
    await writeTree(root, {
      '.kbsync/state.md': '',
      'node_modules/x.md': '',
      'private/secret.md': '',
      'drafts/wip.md': '',
      'notes.txt': '',
      '.#a.md': '',
      'a.md~': '',
      '.kbsync-tmp-123': '',
    });
    await writeTree(root, { 'real.md': 'x' }); // the one path that must be hinted
    assert.deepEqual(await settle(hints), ['real.md']);
  });

  test('a deletion is only a hint for its path', async (t) => {
    const root = await tempDir(t);
    await writeTree(root, { 'gone.md': 'x', 'sub/also.md': 'y' });
    const watcher = await start(t, root);
    const hints = record(watcher);
    await fsp.rm(path.join(root, 'gone.md'));
    await fsp.rm(path.join(root, 'sub'), { recursive: true });
    const all = await settle(hints);
    assert.ok(all.includes('gone.md'), all.join());
    assert.ok(all.includes('sub') || all.includes('sub/also.md'), all.join());
  });

  test('a watcher error (ENOSPC) switches to fallback and stops hinting', async (t) => {
    const root = await tempDir(t);
    let listener: RawListener | undefined;
    const watcher = await start(t, root, {
      watch: async (_root, onEvents) => {
        listener = onEvents;
        return { unsubscribe: async () => undefined };
      },
    });
    const reasons: string[] = [];
    watcher.on('fallback', (reason) => reasons.push(reason));
    assert.ok(listener);
    // What the native watcher reports when the kernel's watch limit is reached.
    listener(new Error('inotify_add_watch: No space left on device'), []);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0] ?? '', /max_user_watches.*periodic rescans/);
    const hints = record(watcher);
    listener(null, [{ type: 'create', path: path.join(root, 'after.md') }]);
    await writeTree(root, { 'after.md': '' });
    await sleep(500);
    assert.deepEqual(hints.batches, []);
  });
});
