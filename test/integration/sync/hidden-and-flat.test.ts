import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { DumpedNode } from '../../../src/emulator/index.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * What the service does not show must not be undone or flattened by an overwrite. The service reads a
 * code block or an image as `unknown` and a table as its size, and paragraphs as plain text: an edit
 * inside a code block is invisible but for the document's time, and a file made from the service's
 * reading has none of the document's links or emphasis.
 */

const RUNBOOK = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';

/** The run's result for one file, when it succeeded (held and conflicts are successes: nothing failed). */
const resultOf = (run: Awaited<ReturnType<SyncFixture['sync']>>, path: string) => {
  const result = run.report?.results.find((r) => r.path === path);
  return result?.ok ? result : undefined;
};

/** RUNBOOK published (and re-checked in a later minute), then a colleague edits inside its code block. */
async function colleagueEditsTheCode(f: SyncFixture): Promise<DumpedNode> {
  await f.write('runbook.md', RUNBOOK);
  assert.equal((await f.sync()).code, 0);
  // The next run in a later minute learns the time of our own write.
  f.em.admin.setClockOffset(2 * 60_000);
  assert.equal((await f.sync()).code, 0);
  f.em.admin.setClockOffset(4 * 60_000);
  const doc = f.remoteDoc('Runbook');
  f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('restart --all', 'restart --all --graceful'));
  // Judged once the minutes in which a kbsync writer's record of it could still come are over (BodyDecision.waiting).
  f.em.admin.setClockOffset(7 * 60_000);
  return doc;
}

describe('never undo what the service hides', () => {
  // Model seed 11001: the time a rename moved was excused on every later listing too, so a colleague's edit
  // inside the code of a renamed document was never seen, and the next push overwrote it.
  // Model seed 21012: the check after a move in the web editor compared against the folder the move had just
  // recorded, so the time the move changed was said as a hidden edit (and the next local edit held).
  test('a document moved in the web editor: its file moves, and the time the move changed is no hidden edit', async () => {
    await withSyncFixture(async (f) => {
      await f.write('runbook.md', RUNBOOK);
      await f.write('ops/other.md', '# Other\n\nElsewhere.\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);
      const ops = f.em.admin.dump().nodes.find((n) => n.docType === 'FOLDER' && n.title === 'ops');
      assert.ok(ops);
      f.em.admin.setClockOffset(4 * 60_000);
      f.em.admin.moveNode(f.remoteDoc('Runbook').dentryUuid, ops.dentryUuid);
      const moved = await f.sync();
      assert.equal(moved.code, 0, moved.stderr);
      assert.equal(await f.read('ops/runbook.md'), RUNBOOK, 'the file moved, byte for byte');
      assert.doesNotMatch(JSON.stringify(moved.report?.results), /HIDDEN_EDIT/, 'a move is no hidden edit');
      await f.write('ops/runbook.md', RUNBOOK.replace('check the dashboard', 'check the dashboard and the logs'));
      const pushed = await f.sync();
      assert.equal(pushed.code, 0, JSON.stringify(pushed.report?.results));
      assert.match(f.remoteDoc('Runbook').markdown ?? '', /and the logs/);
    });
  });

  // Model seed 50057: a file moved into the folder a colleague had just moved its document to. The move was
  // held MOVE_LOSSY (the document had web-editor formatting), and forced, it made a document beside itself:
  // refused (API_CONFLICT), then a second document under a uniquified title.
  test('a file moved to the folder its document was just moved to in the web editor: the document stays, nothing is made', async () => {
    await withSyncFixture(async (f) => {
      await f.write('runbook.md', RUNBOOK);
      await f.write('ops/other.md', '# Other\n\nElsewhere.\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(2 * 60_000);
      const doc = f.remoteDoc('Runbook');
      f.em.admin.editDocument(doc.dentryUuid, RUNBOOK.replace('read this', 'read **this**'));
      const ops = f.em.admin.dump().nodes.find((n) => n.docType === 'FOLDER' && n.title === 'ops');
      assert.ok(ops);
      f.em.admin.moveNode(doc.dentryUuid, ops.dentryUuid);
      await rename(join(f.root, 'runbook.md'), join(f.root, 'ops', 'runbook-moved.md'));
      f.em.admin.setClockOffset(4 * 60_000);

      const moved = await f.sync();
      assert.equal(moved.code, 0, `${moved.stderr} ${JSON.stringify(moved.report?.results)}`);
      assert.equal(moved.report?.callsByEndpoint['createDocument'] ?? 0, 0, `nothing created: ${JSON.stringify(moved.report?.results)}`);
      assert.notEqual(resultOf(moved, 'ops/runbook-moved.md')?.result, 'held', 'nothing to hold: the document is where the file went');
      const again = await f.sync(['--force']);
      assert.equal(again.code, 0, `${again.stderr} ${JSON.stringify(again.report?.results)}`);
      assert.equal(again.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created, forced either');
      assert.deepEqual(f.remoteDocs().filter((n) => n.docType === 'DOC').map((n) => n.title).sort(), ['Other', 'Runbook']);
    });
  });

  test("a document renamed in the web editor: the rename moves its time once, a later edit inside its code is still seen", async () => {
    await withSyncFixture(async (f) => {
      await f.write('runbook.md', RUNBOOK);
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);
      const doc = f.remoteDoc('Runbook');
      f.em.admin.setClockOffset(4 * 60_000);
      f.em.admin.renameNode(doc.dentryUuid, 'Runbook (ops)');
      const renamed = await f.sync();
      assert.equal(renamed.code, 0, renamed.stderr);
      assert.doesNotMatch(resultOf(renamed, 'runbook.md')?.detail ?? '', /HIDDEN_EDIT/, 'a rename is no hidden edit');

      f.em.admin.setClockOffset(6 * 60_000);
      f.em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Runbook (ops)').markdown ?? '').replace('restart --all', 'restart --all --graceful'));
      f.em.admin.setClockOffset(9 * 60_000);
      const seen = await f.sync();
      assert.match(resultOf(seen, 'runbook.md')?.detail ?? '', /HIDDEN_EDIT/, 'the later edit inside code is said');
      await f.write('runbook.md', RUNBOOK.replace('check the dashboard', 'check the dashboard and the logs'));
      const held = await f.sync();
      const result = resultOf(held, 'runbook.md');
      assert.ok(result?.ok && result.result === 'held' && result.reason === 'HIDDEN_EDIT', JSON.stringify(result));
      assert.match(f.remoteDoc('Runbook (ops)').markdown ?? '', /--graceful/, "the colleague's edit stands");
    });
  });

  test('a colleague\'s edit inside a code block, then a local edit of another paragraph: the overwrite is held, said once, and --force replaces it', async () => {
    await withSyncFixture(async (f) => {
      await colleagueEditsTheCode(f);

      const seen = await f.sync();
      assert.equal(seen.code, 0, 'nothing to hold yet: the file is unchanged');
      assert.match(resultOf(seen, 'runbook.md')?.detail ?? '', /HIDDEN_EDIT/, 'said when first seen');

      await f.write('runbook.md', RUNBOOK.replace('check the dashboard', 'check the dashboard and the logs'));
      const held = await f.sync();
      assert.equal(held.code, 1, held.stderr);
      const result = resultOf(held, 'runbook.md');
      assert.ok(result?.ok && result.result === 'held' && result.reason === 'HIDDEN_EDIT', JSON.stringify(result));
      assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's edit is still there");
      const callsBefore = f.em.admin.callsOn(f.remoteDoc('Runbook').dentryUuid);
      const again = await f.sync();
      assert.equal(resultOf(again, 'runbook.md')?.repeated, true, 'said once, then repeated quietly');
      // The state changed (the hold's record told the other machines), so it is read once; the document is not.
      assert.equal(again.report?.callsByEndpoint['overwriteContent'], undefined, 'a standing hold writes nothing');
      assert.equal(f.em.admin.callsOn(f.remoteDoc('Runbook').dentryUuid).readBlocks ?? 0, callsBefore.readBlocks ?? 0, 'a standing hold reads nothing of its document');
      // Another save of the held file waits for the reason already said: no news (a daemon would warn at every save).
      await f.write('runbook.md', RUNBOOK.replace('check the dashboard', 'check the dashboard and the logs, then the alerts'));
      const savedAgain = resultOf(await f.sync(), 'runbook.md');
      assert.ok(savedAgain?.ok && savedAgain.result === 'held' && savedAgain.reason === 'HIDDEN_EDIT' && savedAgain.repeated === true, JSON.stringify(savedAgain));

      const forced = await f.sync(['--force']);
      assert.equal(forced.code, 0, forced.stderr);
      const now = f.remoteDoc('Runbook').markdown ?? '';
      assert.match(now, /and the logs/);
      assert.doesNotMatch(now, /--graceful/, '--force replaces it, as the message says');
      f.em.admin.setClockOffset(9 * 60_000);
      await f.write('runbook.md', RUNBOOK.replace('Before you start', 'Before you begin'));
      assert.equal((await f.sync()).code, 0, 'after --force, edits push again');
    });
  });

  test('merged in the web editor, then `kbsync resolve --theirs FILE`: the hold ends and the file takes the knowledge base\'s version', async () => {
    await withSyncFixture(async (f) => {
      const doc = await colleagueEditsTheCode(f);
      await f.write('runbook.md', RUNBOOK.replace('check the dashboard', 'check the dashboard and the logs'));
      assert.equal((await f.sync()).code, 1);
      // The person makes the same change in the web editor, beside the colleague's.
      f.em.admin.setClockOffset(9 * 60_000);
      f.em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Runbook').markdown ?? '').replace('check the dashboard', 'check the dashboard and the logs'));
      const resolved = await f.cli(['resolve', '--theirs', 'runbook.md']);
      assert.equal(resolved.code, 0, resolved.stderr);
      assert.match(resolved.stdout, /released \(--theirs\): the file is back to the text last synced .*the next `kbsync sync` takes the knowledge base's version/);
      const run = await f.sync();
      assert.equal(run.code, 0, run.stderr + JSON.stringify(run.report?.results));
      assert.match(await f.read('runbook.md'), /check the dashboard and the logs/);
      const now = f.remoteDoc('Runbook').markdown ?? '';
      assert.match(now, /--graceful/, "the colleague's edit is still there");
      assert.equal((await f.sync()).code, 0, 'steady');
    });
  });

  test('an append (text added at the end of the last paragraph) after a hidden edit is still sent: it keeps everything already there', async () => {
    await withSyncFixture(async (f) => {
      await colleagueEditsTheCode(f);
      await f.write('runbook.md', RUNBOOK.replace('check the dashboard.', 'check the dashboard. One more line at the end.'));
      const run = await f.sync();
      assert.equal(run.code, 0, run.stderr + JSON.stringify(run.report?.results));
      const now = f.remoteDoc('Runbook').markdown ?? '';
      assert.match(now, /--graceful/);
      assert.match(now, /One more line at the end/);
    });
  });
});

// Model seed 1015: a colleague's edit of words and of a code line, pulled as one change (the code line reads
// as \`unknown\`), then the file deleted: the delete took the code edit nobody here had seen, and the backup
// made from reads could not hold it.
test("a file deleted after a pull that could not show all of a colleague's edit is held DELETE_LOSSY; --force deletes", async () => {
  await withSyncFixture(async (f) => {
    await f.write('runbook.md', RUNBOOK);
    await f.write('other.md', '# Other\n\nStays.\n');
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(2 * 60_000);
    const doc = f.remoteDoc('Runbook');
    f.em.admin.editDocument(doc.dentryUuid, RUNBOOK.replace('read this', 'read this twice').replace('restart --all', 'restart --all --graceful'));
    assert.equal((await f.sync()).code, 0);
    assert.match(await f.read('runbook.md'), /read this twice/);

    await f.remove('runbook.md');
    const held = await f.sync();
    assert.equal(held.code, 1, held.stderr);
    assert.equal(resultOf(held, 'runbook.md')?.reason, 'DELETE_LOSSY', JSON.stringify(held.report?.results));
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code edit stands");

    const forced = await f.sync(['--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(f.remoteDocs().map((d) => d.title), ['Other'], 'deleted, as the user asked');
  });
});

describe('never flatten the knowledge base', () => {
  const WEB = '# Guide\n\nRead the [install notes](https://example.com/install) and run `make`.\n\nThis part is **important**.\n';

  test('a one-word edit of a file pulled from a web-created document is held (FLATTEN); an append is sent; --force publishes', async () => {
    await withSyncFixture(async (f) => {
      f.em.admin.createDocument({ name: 'Guide', markdown: WEB });
      assert.equal((await f.sync()).code, 0);
      const pulled = await f.read('Guide.md');
      assert.doesNotMatch(pulled, /\]\(https/, 'the service reads paragraphs back as plain text');

      await f.write('Guide.md', pulled.replace('This part', 'This section'));
      const held = await f.sync();
      assert.equal(held.code, 1, held.stderr);
      const result = resultOf(held, 'Guide.md');
      assert.ok(result?.ok && result.reason === 'FLATTEN', JSON.stringify(result));
      assert.match(result.detail ?? '', /links, bold and italic text, inline code/);
      assert.equal(f.remoteDoc('Guide').markdown, WEB, 'links, code and bold are all still there');

      // Undo the word, append to the last paragraph instead: an append keeps the rest.
      await f.write('Guide.md', pulled.replace(/important\.?\n$/, (end) => end.replace('\n', ' A new closing sentence.\n')));
      const appended = await f.sync();
      assert.equal(appended.code, 0, appended.stderr + JSON.stringify(appended.report?.results));
      const after = f.remoteDoc('Guide').markdown ?? '';
      assert.match(after, /\[install notes\]\(https:\/\/example\.com\/install\)/);
      assert.match(after, /A new closing sentence/);

      await f.write('Guide.md', (await f.read('Guide.md')).replace('This part', 'This section'));
      const forced = await f.sync(['--force']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(f.remoteDoc('Guide').markdown ?? '', /This section/);
      // Published from the file once, the file is the source now: later edits are ordinary pushes.
      await f.write('Guide.md', (await f.read('Guide.md')).replace('This section', 'This chapter'));
      assert.equal((await f.sync()).code, 0);
    });
  });

  // Model seed 139: a held file, moved, was taken for a deleted file and a new one. Its row had no inode (a
  // hold whose sync took the colleague's edit into the file recorded none) and bytes no sync recorded, so the
  // document and its formatting were deleted and a second one made from the plain file.
  const MOVES: readonly { readonly how: string; move(f: SyncFixture): Promise<void> }[] = [
    {
      how: 'moved (mv) and edited',
      async move(f) {
        await rename(join(f.root, 'Guide.md'), join(f.root, 'docs', 'Guide.md'));
        await f.write('docs/Guide.md', (await f.read('docs/Guide.md')).replace('This bit', 'This section'));
      },
    },
    {
      how: 'copied elsewhere, then deleted',
      async move(f) {
        await f.write('docs/Guide.md', await f.read('Guide.md'));
        await f.remove('Guide.md');
      },
    },
  ];
  for (const { how, move } of MOVES) {
    test(`a held file ${how} stays one document: no delete and create drops its web-editor formatting`, async () => {
      await withSyncFixture(async (f) => {
        f.em.admin.createDocument({ name: 'Guide', markdown: WEB });
        assert.equal((await f.sync()).code, 0);
        f.em.admin.setClockOffset(2 * 60_000);
        f.em.admin.editDocument(f.remoteDoc('Guide').dentryUuid, WEB.replace('run `make`', 'run `make` twice'));
        await f.write('Guide.md', (await f.read('Guide.md')).replace('This part', 'This bit'));
        const held = await f.sync();
        assert.equal(resultOf(held, 'Guide.md')?.reason, 'FLATTEN', JSON.stringify(held.report?.results));
        assert.match(await f.read('Guide.md'), /twice/, "the colleague's edit was taken into the held file");

        await mkdir(join(f.root, 'docs'));
        await move(f);
        const run = await f.sync();
        assert.equal(run.code, 1, `held, not published: ${run.stderr} ${JSON.stringify(run.report?.results)}`);
        assert.deepEqual(run.report?.results.filter((r) => !r.ok || r.result !== 'held').map((r) => r.path), [], 'nothing deleted, nothing created');
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title), ['Guide'], 'one document');
        assert.match(f.remoteDoc('Guide').markdown ?? '', /\[install notes\]\(https:\/\/example\.com\/install\) and run `make` twice/, 'its formatting stands');
      });
    });
  }

  test('a clone of a document kbsync published keeps its source (the shared state): a one-word edit pushes without --force and keeps the formatting', async () => {
    await withSyncFixture(async (f) => {
      await f.write('guide.md', WEB);
      assert.equal((await f.sync()).code, 0);
      // A second machine: the same folder with no ledger and no files, cloned from the knowledge base.
      await f.remove('guide.md');
      await f.remove('.kbsync/ledger.sqlite');
      assert.equal((await f.sync()).code, 0);
      assert.equal(await f.read('guide.md'), WEB, 'the kept source, byte for byte');
      await f.write('guide.md', WEB.replace('This part', 'This section'));
      const run = await f.sync();
      assert.equal(run.code, 0, run.stderr + JSON.stringify(run.report?.results));
      assert.equal(f.remoteDoc('Guide').markdown, WEB.replace('This part', 'This section'));
    });
  });
});

// Soak seed 21: a colleague deleted an HTML comment standing before a run of link definitions, all of which read
// as `unknown`. The emulator's web editor gave the deletion to the last of them (it matched blocks by what reads
// show), and the pull deleted the last definition from the file and kept the comment, saying nothing.
test('a colleague deletes the first of several blocks that read alike: the pull deletes that one, and keeps the rest', async () => {
  await withSyncFixture(async (f) => {
    const text = '# Defs\n\nSee [a][] and [b][].\n\n<!-- Definitions -->\n\n[a]: https://example.com/a\n\n[b]: https://example.com/b\n';
    await f.write('defs.md', text);
    assert.equal((await f.sync()).code, 0);
    f.em.admin.setClockOffset(2 * 60_000);
    const doc = f.remoteDoc('Defs');
    const ids = f.em.admin.blocks(doc.dentryUuid).map((block) => block.id);
    f.em.admin.editDocument(doc.dentryUuid, text.replace('<!-- Definitions -->\n\n', ''));
    assert.deepEqual(f.em.admin.blocks(doc.dentryUuid).map((block) => block.id), ids.filter((_, i) => i !== 2), 'the web editor deleted the comment block, and kept the ids of the others');
    const pulled = await f.sync();
    assert.equal(pulled.code, 0, JSON.stringify(pulled.report?.results));
    assert.equal(await f.read('defs.md'), text.replace('<!-- Definitions -->\n\n', ''));
  });
});
