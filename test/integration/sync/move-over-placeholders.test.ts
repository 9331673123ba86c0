import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PLACEHOLDER_PREFIX } from '../../../src/markdown/to-markdown.js';
import { resultsFor, stripped } from '../../helpers/held-move.js';
import { saidIn, withArmedPair, type ArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Model seed 6018 (issue 44): a page whose document holds a code block a colleague added in the web editor, so both
 * files hold its placeholder. A moves the file: held MOVE_LOSSY, and forced, the move was made (a new document, the
 * old one deleted) while its first body was held for the placeholders, so the new document stayed empty and the
 * page was in the files alone until a person settled that hold (B kept its file, BODY_COMING). No new document can
 * take the blocks the placeholders stand for: the move is not made, forced or not (MOVE_PLACEHOLDERS), until the
 * person deletes them, and then it carries the whole page, which B follows.
 */
const PROSE = '# Tasks\n\nA list of things to do.\n\nEach one has an owner.\n';
const WITH_CODE = '# Tasks\n\nA list of things to do.\n\n```sh\ntodo --list\n```\n\nEach one has an owner.\n';

/** Both machines hold the page with the colleague's code block as a placeholder; A has moved the file. Returns the old document's key and B's page. */
async function movedOverPlaceholders({ em, a, b, sync }: ArmedPair): Promise<{ oldKey: string; kept: string }> {
  await a.write('guides/tasks.md', PROSE);
  for (const f of [a, b]) await sync(f);
  const oldKey = a.remoteDoc('Tasks').dentryUuid;
  em.admin.editDocument(oldKey, WITH_CODE);
  // A takes the code block in on its second run after the save, as the model did.
  for (const f of [a, b, a]) await sync(f);
  const kept = await b.read('guides/tasks.md');
  assert.ok(kept.includes(PLACEHOLDER_PREFIX) && (await a.read('guides/tasks.md')).includes(PLACEHOLDER_PREFIX), 'both files hold the code block as a placeholder');
  await rename(join(a.root, 'guides/tasks.md'), join(a.root, 'tasks.md'));
  return { oldKey, kept };
}

/** The knowledge base holds the page as before the move: one document of its title, the old one, code block and all. */
function untouched(pair: ArmedPair, oldKey: string): void {
  const made = pair.a.remoteDocs().filter((node) => node.title === 'Tasks');
  assert.deepEqual(made.map((node) => [node.dentryUuid, node.markdown]), [[oldKey, WITH_CODE]], 'no new document, the old one whole');
}

for (const keyless of [true, false]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a file moved over a colleague's code block (its placeholder): the move waits, even forced, and says why; nothing changes in the knowledge base (${team})`, async () => {
    await withArmedPair(keyless, () => false, async (pair) => {
      const { a, b, sync } = pair;
      const { oldKey, kept } = await movedOverPlaceholders(pair);
      const moved = await sync(a);
      assert.deepEqual(resultsFor(moved, 'tasks.md'), [['held', 'MOVE_PLACEHOLDERS']], JSON.stringify(moved.results));
      const forced = (await a.sync(['--force'])).report;
      assert.ok(forced);
      assert.deepEqual(resultsFor(forced, 'tasks.md'), [['held', 'MOVE_PLACEHOLDERS']], JSON.stringify(forced.results));
      const said = forced.results.find((r) => r.path === 'tasks.md');
      assert.match(said?.ok ? (said.detail ?? '') : '', /delete the placeholder comments .* `kbsync sync --force`/);
      untouched(pair, oldKey);

      // Listed for a person, and released only as the hold says: --mine cannot publish placeholders.
      const listed = JSON.parse((await a.cli(['resolve', '--json'])).stdout) as { held: { path: string; code: string }[] };
      assert.deepEqual(listed.held.map((h) => [h.path, h.code]), [['guides/tasks.md', 'MOVE_PLACEHOLDERS']]);
      const mine = await a.cli(['resolve', '--mine', 'guides/tasks.md']);
      assert.notEqual(mine.code, 0);
      assert.match(mine.stderr, /RESOLVE_CANNOT_RELEASE|cannot end that hold/);
      untouched(pair, oldKey);

      // B sees nothing to follow: its file stays as it was.
      assert.deepEqual(saidIn(await sync(b)), []);
      assert.equal(await b.read('guides/tasks.md'), kept);
    });
  });

  test(`…then A's person deletes the placeholders and forces: the new document carries the whole page, the old one is backed up and deleted, and B follows (${team})`, async () => {
    await withArmedPair(keyless, () => false, async (pair) => {
      const { a, b, sync } = pair;
      const { oldKey, kept } = await movedOverPlaceholders(pair);
      assert.deepEqual(saidIn(await sync(a)), ['MOVE_PLACEHOLDERS']);
      await a.write('tasks.md', stripped(await a.read('tasks.md')));
      const forced = (await a.sync(['--force'])).report;
      assert.ok(forced);
      const [moved] = forced.results.filter((r) => r.path === 'tasks.md');
      assert.ok(moved?.ok && moved.action === 'move' && moved.result !== 'held', JSON.stringify(forced.results));
      const made = a.remoteDocs().filter((node) => node.title === 'Tasks');
      assert.equal(made.length, 1, 'one document of the title');
      assert.notEqual(made[0]?.dentryUuid, oldKey);
      assert.equal(made[0]?.markdown, stripped(kept), 'the new document holds the page');
      const backups = join(a.root, '.kbsync/backups/remote');
      const backedUp = (await readdir(backups, { recursive: true })).filter((name) => name.endsWith(join('guides', 'tasks.md')));
      assert.equal(backedUp.length, 1, 'the old document backed up before its deletion');
      assert.equal(await readFile(join(backups, backedUp[0] ?? ''), 'utf8'), kept, 'as the service showed it: the code block as its placeholder');

      const followed = await sync(b);
      assert.ok(!saidIn(followed).includes('BODY_COMING'), JSON.stringify(followed.results));
      assert.equal(await b.exists('guides/tasks.md'), false);
      assert.equal(await b.read('tasks.md'), await a.read('tasks.md'), 'B takes the body A sent');
      assert.deepEqual(saidIn(await sync(a)), []);
      assert.deepEqual(saidIn(await sync(b)), []);
      assert.equal(a.remoteDocs().filter((node) => node.title === 'Tasks').length, 1);
    });
  });
}

test("a file moved as a colleague adds a code block to its document (the file holds no placeholder yet): forced, the move still waits, and a move back brings the block in to be settled (keyed)", async () => {
  await withArmedPair(false, () => false, async (pair) => {
    const { em, a, b, sync, tick } = pair;
    await a.write('guides/tasks.md', PROSE);
    for (const f of [a, b]) await sync(f);
    const oldKey = a.remoteDoc('Tasks').dentryUuid;
    em.admin.editDocument(oldKey, WITH_CODE);
    await rename(join(a.root, 'guides/tasks.md'), join(a.root, 'tasks.md'));
    tick();
    tick();
    tick();
    // The new document would be made from the file with the document's new block merged in: as a placeholder.
    const forced = (await a.sync(['--force'])).report;
    assert.ok(forced);
    assert.deepEqual(resultsFor(forced, 'tasks.md'), [['held', 'MOVE_PLACEHOLDERS']], JSON.stringify(forced.results));
    assert.equal(await a.read('tasks.md'), PROSE, 'nothing written: the file as the user left it');
    untouched(pair, oldKey);

    // As the hold says: the file back, a sync brings the block in, the person lets it go, and the forced move carries the page.
    await rename(join(a.root, 'tasks.md'), join(a.root, 'guides/tasks.md'));
    await sync(a);
    const pulled = await a.read('guides/tasks.md');
    assert.ok(pulled.includes(PLACEHOLDER_PREFIX), pulled);
    await a.write('guides/tasks.md', stripped(pulled));
    await rename(join(a.root, 'guides/tasks.md'), join(a.root, 'tasks.md'));
    const moved = (await a.sync(['--force'])).report;
    assert.ok(moved);
    assert.deepEqual(moved.results.filter((r) => r.path === 'tasks.md').map((r) => (r.ok ? [r.action, r.result] : [r.code])), [['move', 'pushed']], JSON.stringify(moved.results));
    assert.deepEqual(a.remoteDocs().filter((node) => node.title === 'Tasks').map((node) => node.markdown), [stripped(pulled)]);
    await sync(b);
    assert.equal(await b.read('tasks.md'), stripped(pulled));
    assert.equal(await b.exists('guides/tasks.md'), false);
  });
});
