import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { readTree, writeCalls } from '../../helpers/reliability.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, the move form: machine A's own change never reached the shared state (its append failed, or A was
 * killed before it published or before it pushed), then machine B moved the file to another folder (a new
 * document of B's text, the old one deleted). A follows the move: its change is a local edit against B's version,
 * kept and published on top, never overwritten by it. Front matter, which only the state carries, was lost
 * everywhere: B's move carried B's older front matter, and A took it as the only change.
 */
const TEXT = '# Guide\n\nHow to start.\n\nThen carry on.\n';
const WITH_HEAD = `---\nowner: u26z\n---\n${TEXT}`;

type Lost = 'append failed' | 'killed before publishing';

/** A's run whose state record is lost: the state's appends fail (the service answers 500), or the run is killed before it publishes. */
async function syncLosingRecord(em: RunningEmulator, a: SyncFixture, lost: Lost): Promise<void> {
  if (lost === 'append failed') {
    em.admin.setFaults({ error5xx: 1, only: ['appendText'] });
    const failed = await a.sync();
    em.admin.setFaults({});
    assert.notEqual(failed.code, 0, `the run says its publish failed: ${failed.stderr}`);
  } else {
    const killed = await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
    assert.equal(killed.signal, 'SIGKILL', 'the run reached before-publish');
  }
}

async function moveFile(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

/** Both machines synced and published in minutes now over; B then reads the state in the next one. */
async function pairAt(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<void> {
  await publishedOnBoth(em, a, b, { 'guides/guide.md': TEXT, 'ref/other.md': '# Other\n\nElsewhere.\n' });
  em.admin.setClockOffset(4 * 60_000);
  await reported(b);
}

/** A sync that holds nothing and makes no conflict: what a clean merge of a local and a remote edit is. */
async function synced(f: SyncFixture): Promise<SyncReport> {
  const report = await reported(f);
  const stuck = report.results.filter((r) => !r.ok || r.result === 'held' || r.result === 'conflict');
  assert.deepEqual(stuck, [], 'nothing held, nothing in conflict');
  return report;
}

/**
 * B's change (`change`: the move, with any edit) synced, `createLost`: the answer to that run's create lost (the
 * document made all the same, found again and adopted); then both machines in turn, a few minutes on.
 */
async function settle(em: RunningEmulator, a: SyncFixture, b: SyncFixture, change: () => Promise<void>, createLost = false): Promise<void> {
  await change();
  if (createLost) em.admin.setFaults({ drop: 1, only: ['createDocument'] });
  const changed = await synced(b);
  em.admin.setFaults({});
  if (createLost) assert.match(JSON.stringify(changed.results), /an earlier create whose answer was lost/, "B's move found its new document again");
  em.admin.setClockOffset(7 * 60_000);
  for (const f of [a, b, a, b]) await synced(f);
}

/** One document for the file, and every file the same on both machines (no conflict copy anywhere); `path`'s text. */
async function converged(em: RunningEmulator, a: SyncFixture, b: SyncFixture, path: string): Promise<{ readonly file: string; readonly doc: string }> {
  const mine = { skip: (rel: string) => rel.startsWith('.kbsync/') };
  const [onA, onB] = await Promise.all([readTree(a.root, mine), readTree(b.root, mine)]);
  const files = (tree: Map<string, string>) => [...tree.keys()].filter((p) => p.endsWith('.md')).sort();
  assert.deepEqual(files(onA), files(onB), 'both machines have the same files');
  for (const p of files(onA)) assert.equal(onB.get(p), onA.get(p), `${p} is the same on both machines`);
  assert.ok(onA.has(path), `the file is at ${path}`);
  const docs = a.remoteDocs().filter((node) => node.title === 'Guide');
  assert.equal(docs.length, 1, `one document for the file: ${JSON.stringify(a.remoteDocs().map((d) => d.title))}`);
  // Steady: two more rounds a few minutes on (the read-backs done) write nothing anywhere.
  em.admin.setClockOffset(10 * 60_000);
  for (const f of [a, b]) await synced(f);
  em.admin.resetCalls();
  for (const f of [a, b]) await synced(f);
  assert.deepEqual(writeCalls(em.admin.calls()), {}, 'a settled pair writes nothing');
  return { file: onA.get(path) ?? '', doc: docs[0]?.markdown ?? '' };
}

/** B's change to the file after A's lost record: its body edited (as `edited`), its file moved to ref/, or both. */
const FRONT_MATTER_CASES: readonly { readonly lost: Lost; readonly onB: string; readonly edited: string; readonly moved: boolean }[] = [
  { lost: 'append failed', onB: 'the file moved on B', edited: TEXT, moved: true },
  { lost: 'killed before publishing', onB: 'the file moved on B', edited: TEXT, moved: true },
  { lost: 'append failed', onB: 'the body edited and the file moved on B', edited: TEXT.replace('Then carry on.', 'Then carry on, as B says.'), moved: true },
  { lost: 'killed before publishing', onB: 'the body edited in place on B', edited: TEXT.replace('How to start.', 'How to start, as B says.'), moved: false },
];

for (const { lost, onB, edited, moved } of FRONT_MATTER_CASES) {
  test(`front matter edited on A, its state record never published (${lost}), ${onB}: both machines end with A's front matter and B's text, nothing held`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await pairAt(em, a, b);
      await a.write('guides/guide.md', WITH_HEAD);
      await syncLosingRecord(em, a, lost);

      await settle(em, a, b, async () => {
        if (edited !== TEXT) await b.write('guides/guide.md', edited);
        if (moved) await moveFile(b, 'guides/guide.md', 'ref/guide.md');
      });
      const { file, doc } = await converged(em, a, b, moved ? 'ref/guide.md' : 'guides/guide.md');
      assert.equal(file, `---\nowner: u26z\n---\n${edited}`, "A's front matter with B's text, on both machines");
      assert.equal(doc.includes('as B says'), edited.includes('as B says'), `the document holds B's text: ${doc}`);
    });
  });
}

for (const killedAt of ['after-intent', 'before-publish'] as const) {
  const when = killedAt === 'after-intent' ? 'before its push' : 'after its push, before publishing';
  test(`a body edit on A, A killed ${when}, the file moved on B: A's edit survives at the new path and reaches B and the document`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await pairAt(em, a, b);
      const edited = TEXT.replace('How to start.', 'How to start, edited on A.');
      await a.write('guides/guide.md', edited);
      const killed = await a.sync([], { KBSYNC_CRASH_AT: killedAt });
      assert.equal(killed.signal, 'SIGKILL', `the run reached ${killedAt}`);

      await settle(em, a, b, () => moveFile(b, 'guides/guide.md', 'ref/guide.md'));
      const { file, doc } = await converged(em, a, b, 'ref/guide.md');
      assert.equal(file, edited, "A's edit is kept at the new path, and B has it");
      assert.match(doc, /edited on A/, 'and the document');
    });
  });
}

test("front matter edited on A, its state record never published, the file deleted on B: an edit beats a delete, the file comes back on both machines with it", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await pairAt(em, a, b);
    await a.write('guides/guide.md', WITH_HEAD);
    await syncLosingRecord(em, a, 'append failed');

    await settle(em, a, b, () => b.remove('guides/guide.md'));
    const { file } = await converged(em, a, b, 'guides/guide.md');
    assert.equal(file, WITH_HEAD, "A's edit, on both machines");
  });
});

// Convergence soak 744: A's change was front matter and words, and B read the words plainly (a colleague's edit as far
// as it knew, its own front matter carried) before A's record came, then moved the file: a new document of B's text.
// The move's record said B's text exactly, its front matter no longer carried, so A's record, come later, said no more
// of it: B kept its file without the front matter, A kept its own, and the machines' files differed for good.
const HEAD_AND_WORDS = WITH_HEAD.replace('Then carry on.', 'Then carry on, as A says.');
const PLAIN_READING_CASES: readonly { readonly lost: Lost; readonly apart: boolean; readonly createLost?: true }[] = [
  { lost: 'append failed', apart: true },
  { lost: 'append failed', apart: false },
  { lost: 'killed before publishing', apart: true },
  { lost: 'killed before publishing', apart: false },
  { lost: 'killed before publishing', apart: true, createLost: true },
];
for (const { lost, apart, createLost } of PLAIN_READING_CASES) {
  test(`front matter and words edited on A, its state record never published (${lost}), B reads the words plainly and moves the file${apart ? ' in a later run' : ' in the same run'}${createLost ? ", the answer to the move's create lost" : ''}: both machines end with A's front matter and words`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await pairAt(em, a, b);
      await a.write('guides/guide.md', HEAD_AND_WORDS);
      await syncLosingRecord(em, a, lost);
      if (apart) {
        em.admin.setClockOffset(5 * 60_000);
        await synced(b);
        assert.equal(await b.read('guides/guide.md'), TEXT.replace('Then carry on.', 'Then carry on, as A says.'), "B read A's words plainly, its own (no) front matter carried");
      }
      await settle(em, a, b, () => moveFile(b, 'guides/guide.md', 'ref/guide.md'), createLost);
      const { file } = await converged(em, a, b, 'ref/guide.md');
      assert.equal(file, HEAD_AND_WORDS, "A's front matter and words, on both machines");
    });
  });
}
