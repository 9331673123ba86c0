import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, the move form: machine A's own change that never reached the shared state (its append failed, or A
 * was killed before it published), then machine B moved the file to another folder (a new document of B's text,
 * the old one deleted). A follows the move: its change is a local edit against B's, kept and published on top,
 * never overwritten by B's version (front matter, which only the state carries, was lost everywhere).
 */
const TEXT = '# Guide\n\nHow to start.\n\nThen carry on.\n';
const WITH_HEAD = `---\nowner: u26z\n---\n${TEXT}`;

async function moveFile(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

/** B moves guides/guide.md to ref/ and syncs; then both machines sync in turn, a few minutes on. */
async function moveOnBAndSettle(em: Parameters<Parameters<typeof withWorkstationPair>[1]>[0], a: SyncFixture, b: SyncFixture): Promise<void> {
  await moveFile(b, 'guides/guide.md', 'ref/guide.md');
  await synced(b);
  em.admin.setClockOffset(7 * 60_000);
  await synced(a);
  await synced(b);
  await synced(a);
  await synced(b);
}

/** What A's unpublished change leaves: the file on both machines, and the document's body. */
async function settledAtNewPath(a: SyncFixture, b: SyncFixture): Promise<{ readonly a: string; readonly b: string; readonly doc: string }> {
  assert.ok(await a.exists('ref/guide.md'), 'A follows the move');
  assert.ok(!(await a.exists('guides/guide.md')), 'A keeps no file at the old path');
  assert.ok(!(await b.exists('guides/guide.md')), 'B keeps no file at the old path');
  const docs = a.remoteDocs().filter((node) => node.title === 'guide' || node.title === 'Guide');
  assert.equal(docs.length, 1, `one document for the file: ${JSON.stringify(docs.map((d) => d.title))}`);
  return { a: await a.read('ref/guide.md'), b: await b.read('ref/guide.md'), doc: docs[0]?.markdown ?? '' };
}

for (const lost of ['append failed', 'killed before publishing'] as const) {
  test(`front matter edited on A, its state record never published (${lost}), the file moved on B: A's front matter survives at the new path and reaches B`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'guides/guide.md': TEXT, 'ref/other.md': '# Other\n\nElsewhere.\n' });
      em.admin.setClockOffset(4 * 60_000);
      await synced(b);

      await a.write('guides/guide.md', WITH_HEAD);
      if (lost === 'append failed') {
        em.admin.setFaults({ error5xx: 1, only: ['appendText'] });
        const failed = await a.sync();
        em.admin.setFaults({});
        assert.notEqual(failed.code, 0, 'the run says its publish failed');
      } else {
        const killed = await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' });
        assert.equal(killed.signal, 'SIGKILL', 'the run reached before-publish');
      }

      await moveOnBAndSettle(em, a, b);
      const settled = await settledAtNewPath(a, b);
      assert.match(settled.a, /owner: u26z/, "A's front matter is kept at the new path");
      assert.equal(settled.b, settled.a, 'and reaches B');
      assert.match(settled.doc, /How to start\./);
    });
  });
}

test("a body edit on A never pushed (A killed before its push), the file moved on B: A's edit survives at the new path and reaches B and the document", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'guides/guide.md': TEXT, 'ref/other.md': '# Other\n\nElsewhere.\n' });
    em.admin.setClockOffset(4 * 60_000);
    await synced(b);

    await a.write('guides/guide.md', TEXT.replace('How to start.', 'How to start, edited on A.'));
    const killed = await a.sync([], { KBSYNC_CRASH_AT: 'after-intent' });
    assert.equal(killed.signal, 'SIGKILL', 'the run reached after-intent');

    await moveOnBAndSettle(em, a, b);
    const settled = await settledAtNewPath(a, b);
    assert.match(settled.a, /edited on A/, "A's edit is kept at the new path");
    assert.equal(settled.b, settled.a, 'and reaches B');
    assert.match(settled.doc, /edited on A/, 'and the document');
  });
});

test("front matter edited on A and never published, the body edited and the file moved on B: both edits reach both machines, nothing held", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, { 'guides/guide.md': TEXT, 'ref/other.md': '# Other\n\nElsewhere.\n' });
    em.admin.setClockOffset(4 * 60_000);
    await synced(b);

    await a.write('guides/guide.md', WITH_HEAD);
    em.admin.setFaults({ error5xx: 1, only: ['appendText'] });
    await a.sync();
    em.admin.setFaults({});

    await b.write('guides/guide.md', TEXT.replace('Then carry on.', 'Then carry on, as B says.'));
    await moveOnBAndSettle(em, a, b);
    const settled = await settledAtNewPath(a, b);
    assert.match(settled.a, /owner: u26z/, "A's front matter is kept");
    assert.match(settled.a, /as B says/, "and B's body edit");
    assert.equal(settled.b, settled.a, 'both machines hold the same file');
    assert.match(settled.doc, /as B says/);
  });
});
