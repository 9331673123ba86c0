import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PLACEHOLDER_PREFIX } from '../../../src/markdown/to-markdown.js';
import { saidIn, withArmedPair, type ArmedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Model seed 6018 (keyless): a page a colleague gave a code block in the web editor, so both files hold its
 * placeholder. A moves the file and forces the move: the new document is made, the old one deleted (backed up),
 * and A's first body is held (PLACEHOLDERS), so the new document stays empty with only A's record of its ids.
 * B follows: that is the document a move's maker has yet to fill (issue 44), and B keeps its file; but its maker's
 * body comes only once A's person deletes the placeholders, so the page is on B's file alone meanwhile. Kept quiet
 * (a plain follow, "pulled"), no run said why B's file holds a page its document does not.
 */
const PROSE = '# Tasks\n\nA list of things to do.\n\nEach one has an owner.\n';
const WITH_CODE = '# Tasks\n\nA list of things to do.\n\n```sh\ntodo --list\n```\n\nEach one has an owner.\n';

const stripped = (text: string): string => text.replace(new RegExp(`^[ \\t]*${PLACEHOLDER_PREFIX}[^\\n]*-->[ \\t]*\\n?`, 'gm'), '');
const resultsFor = (report: SyncReport, path: string): unknown[] =>
  report.results.filter((r) => r.path === path).map((r) => (r.ok ? [r.result, r.reason ?? ''] : [r.code, '']));

/** The page moved by A, its first body held, and followed by B. Returns B's page (the file it kept) and the new document's key. */
async function heldMoveFollowed({ em, a, b, sync }: ArmedPair): Promise<{ kept: string; key: string }> {
  await a.write('guides/tasks.md', PROSE);
  for (const f of [a, b]) await sync(f);
  const oldKey = a.remoteDoc('Tasks').dentryUuid;
  em.admin.editDocument(oldKey, WITH_CODE);
  // A takes the code block in on its second run after the save, as the model did (its first, the first to learn its
  // own write's time, finds nothing to pull: seen here, not looked into).
  for (const f of [a, b, a]) await sync(f);
  const kept = await b.read('guides/tasks.md');
  assert.ok(kept.includes(PLACEHOLDER_PREFIX) && (await a.read('guides/tasks.md')).includes(PLACEHOLDER_PREFIX), 'both files hold the code block as a placeholder');

  await rename(join(a.root, 'guides/tasks.md'), join(a.root, 'tasks.md'));
  const moved = await sync(a);
  assert.deepEqual(resultsFor(moved, 'tasks.md'), [['held', 'MOVE_LOSSY']], JSON.stringify(moved.results));
  const forced = (await a.sync(['--force'])).report;
  assert.ok(forced);
  // The move is made; its first body, decided within it, is held (the move's own report names no reason).
  const [first] = forced.results.filter((r) => r.path === 'tasks.md');
  assert.ok(first?.ok && first.action === 'move' && first.result === 'held' && /placeholder comments/.test(first.detail ?? ''), JSON.stringify(forced.results));
  const made = a.remoteDocs().filter((node) => node.title === 'Tasks');
  assert.ok(made.length === 1 && made[0]?.dentryUuid !== oldKey && (made[0]?.markdown ?? '') === '', 'one document, the new one, empty');
  return { kept, key: made[0]?.dentryUuid ?? '' };
}

for (const keyless of [true, false]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a followed move whose maker's first body is held: the follower keeps its file and says why, then takes that body (${team})`, async () => {
    await withArmedPair(keyless, () => false, async (pair) => {
      const { a, b, sync } = pair;
      const { kept, key } = await heldMoveFollowed(pair);
      const followed = await sync(b);
      assert.deepEqual(resultsFor(followed, 'tasks.md'), [['held', 'BODY_COMING']], JSON.stringify(followed.results));
      assert.equal(await b.read('tasks.md'), kept, "B's file keeps the page: never the empty document pulled over it");

      // A's person does as the hold says: the placeholders go, and the page fills the new document.
      await a.write('tasks.md', stripped(await a.read('tasks.md')));
      const pushed = await sync(a);
      assert.deepEqual(resultsFor(pushed, 'tasks.md'), [['pushed', '']], JSON.stringify(pushed.results));
      const taken = await sync(b);
      assert.deepEqual(saidIn(taken), [], JSON.stringify(taken.results));
      assert.equal(await b.read('tasks.md'), await a.read('tasks.md'), 'B takes the body A sent');
      assert.equal(a.remoteDocs().find((node) => node.dentryUuid === key)?.markdown, stripped(kept));
    });
  });
}

test("…and while that maker's body stays held past its two minutes, the follower's own first push is held for the same placeholders: the page is never emptied", async () => {
  await withArmedPair(true, () => false, async (pair) => {
    const { a, b, sync, tick } = pair;
    const { kept, key } = await heldMoveFollowed(pair);
    assert.deepEqual(saidIn(await sync(b)), ['BODY_COMING']);
    tick();
    tick();
    const later = await sync(b);
    assert.deepEqual(resultsFor(later, 'tasks.md'), [['held', 'PLACEHOLDERS']], JSON.stringify(later.results));
    assert.equal(await b.read('tasks.md'), kept);
    assert.equal(a.remoteDocs().find((node) => node.dentryUuid === key)?.markdown ?? '', '', 'nothing written over the placeholders');
  });
});
