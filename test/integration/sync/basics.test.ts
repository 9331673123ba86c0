import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

const GUIDE = `# Guide

Intro paragraph with **bold** and a [link](https://example.com).

\`\`\`js
const x = 1; // code the service cannot show
\`\`\`

| a | b |
|---|---|
| 1 | 2 |

Closing paragraph.
`;

describe('kbsync sync end to end against the emulator', () => {
  test('first sync creates one document per file (in mirrored folders); a second push makes zero calls', async () => {
    await withSyncFixture(async (f) => {
      await f.write('guide.md', GUIDE);
      await f.write('team/notes.md', '# Notes\n\nHello.\n');
      const first = await f.sync();
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.report?.counts['pushed'], 2);
      assert.equal(f.remoteDocs().length, 2);
      const notes = f.remoteDoc('Notes');
      const folder = f.em.admin.dump().nodes.find((n) => n.dentryUuid === notes.parentId);
      assert.equal(folder?.docType, 'FOLDER');
      assert.equal(folder?.title, 'team');

      const noop = await f.sync(['--push']);
      assert.equal(noop.code, 0, noop.stderr);
      assert.equal(noop.report?.calls, 0);
      assert.deepEqual(noop.report?.planned, []);
    });
  });

  test('a remote edit of one paragraph reaches the file and keeps code, tables and links byte for byte', async () => {
    await withSyncFixture(async (f) => {
      await f.write('guide.md', GUIDE);
      assert.equal((await f.sync()).code, 0);
      const doc = f.remoteDoc('Guide');
      f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Closing paragraph.', 'Closing paragraph, edited in the web editor.'));
      const result = await f.sync();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await f.read('guide.md'), GUIDE.replace('Closing paragraph.', 'Closing paragraph, edited in the web editor.'));
      // Steady state: nothing more to do, on either side.
      const again = await f.sync();
      assert.ok(again.report?.results.every((r) => r.ok && r.result === 'unchanged'), JSON.stringify(again.report?.results));
    });
  });

  test('a local edit is pushed after the remote is re-read; the pushed body has no front matter', async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '---\ntitle: Alpha\ncustom: kept\n---\n# Heading\n\nFirst.\n');
      assert.equal((await f.sync()).code, 0);
      await f.write('a.md', '---\ntitle: Alpha\ncustom: kept\n---\n# Heading\n\nFirst, edited.\n');
      const result = await f.sync(['--push']);
      assert.equal(result.code, 0, result.stderr);
      const doc = f.remoteDoc('Alpha');
      assert.equal(doc.markdown, '# Heading\n\nFirst, edited.\n');
      // The document's node (its time: an edit inside code reads the same, but moves it), the re-read and the
      // overwrite (read back by the next read, once its minute is over); then the shared state: one append to
      // its index, one to its sources.
      assert.deepEqual(result.report?.callsByEndpoint, { getNode: 1, readBlocks: 1, overwriteContent: 1, appendText: 2 });
    });
  });

  test('an edit of the front matter or the line endings alone is said as recorded (kept in the shared state), never as unchanged; the document is not written', async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '---\ntags: [x]\n---\n# A\n\nText.\n');
      assert.equal((await f.sync()).code, 0);
      for (const text of ['---\ntags: [x, y]\n---\n# A\n\nText.\n', '---\r\ntags: [x, y]\r\n---\r\n# A\r\n\r\nText.\r\n']) {
        await f.write('a.md', text);
        const run = await f.sync();
        assert.equal(run.code, 0, run.stderr);
        const result = run.report?.results.find((r) => r.path === 'a.md');
        assert.ok(result?.ok && result.result === 'recorded', JSON.stringify(result));
        assert.match(result.detail ?? '', /front matter, line endings/);
        assert.equal(run.report?.callsByEndpoint['overwriteContent'], undefined, 'the document holds neither');
      }
      // Said as unchanged when a re-check reads it, or not at all when the minute of the last write is over.
      const human = await f.cli(['sync']);
      assert.match(human.stdout, /unchanged|nothing to change/, 'bytes that did not change are unchanged');
      assert.doesNotMatch(human.stdout, /recorded/, 'what was recorded is not said again');
    });
  });

  test('both sides edit different paragraphs: a clean merge into the file and the knowledge base, with no person involved', async () => {
    await withSyncFixture(async (f) => {
      await f.write('m.md', '# M\n\nOne.\n\nTwo.\n\nThree.\n');
      assert.equal((await f.sync()).code, 0);
      const doc = f.remoteDoc('M');
      f.em.admin.editDocument(doc.dentryUuid, '# M\n\nOne, remote.\n\nTwo.\n\nThree.\n');
      await f.write('m.md', '# M\n\nOne.\n\nTwo.\n\nThree, local.\n');
      const result = await f.sync();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await f.read('m.md'), '# M\n\nOne, remote.\n\nTwo.\n\nThree, local.\n');
      // A page a read shows whole: the colleague's words are known, so the merge is published (merge.webEdits).
      assert.equal(f.remoteDoc('M').markdown, '# M\n\nOne, remote.\n\nTwo.\n\nThree, local.\n');
      const merged = result.report?.results.find((r) => r.path === 'm.md');
      assert.ok(merged?.ok && merged.result === 'merged', JSON.stringify(merged));
      assert.deepEqual(result.report?.conflicts, []);
    });
  });

  test('both sides edit the same paragraph differently: local kept, remote written beside it, the knowledge base keeps theirs until resolved', async () => {
    await withSyncFixture(async (f) => {
      await f.write('c.md', '# C\n\nShared paragraph.\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.editDocument(f.remoteDoc('C').dentryUuid, '# C\n\nShared paragraph, their words.\n');
      await f.write('c.md', '# C\n\nShared paragraph, my words.\n');
      const result = await f.sync();
      // Held for a person (exit 1), so a script or CI job sees it.
      assert.equal(result.code, 1, result.stderr);
      assert.equal(f.remoteDoc('C').markdown, '# C\n\nShared paragraph, their words.\n');
      assert.equal(result.report?.conflicts.length, 1);
      const copy = result.report?.conflicts[0] ?? '';
      assert.match(copy, /^c\.conflict-\d{8}-\d{6}\.md$/);
      assert.equal(await f.read('c.md'), '# C\n\nShared paragraph, my words.\n');
      assert.match(await f.read(copy), /their words/);
      // The conflict copy is never synced as a new document.
      const again = await f.sync();
      assert.equal(f.remoteDocs().length, 1);
      assert.deepEqual(again.report?.conflictCopies, [copy]);
    });
  });

  test('a new remote document becomes a file; a remote delete moves the file to the trash', async () => {
    await withSyncFixture(async (f) => {
      await f.write('keep.md', '# Keep\n\nx\n');
      await f.write('gone.md', '# Gone\n\ny\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.createDocument({ name: 'From the web', markdown: '# From the web\n\nWritten by a colleague.\n' });
      f.em.admin.deleteNode(f.remoteDoc('Gone').dentryUuid);
      const result = await f.sync();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await f.read('From the web.md'), '# From the web\n\nWritten by a colleague.\n');
      assert.equal(await f.exists('gone.md'), false);
      const trashed = result.report?.results.find((r) => r.path === 'gone.md');
      assert.match(trashed && trashed.ok ? (trashed.detail ?? '') : '', /trash/);
    });
  });

  test('a local delete deletes the document; --dry-run first shows it and changes nothing', async () => {
    await withSyncFixture(async (f) => {
      for (const name of ['a', 'b', 'c']) await f.write(`${name}.md`, `# ${name}\n`);
      assert.equal((await f.sync()).code, 0);
      await f.remove('b.md');
      const dry = await f.sync(['--dry-run']);
      const gone = f.remoteDoc('b');
      assert.deepEqual(dry.report?.planned, [{ kind: 'delete-remote', path: 'b.md', url: `${f.em.seed.baseUrl}/i/nodes/${gone.dentryUuid}` }], 'the page that would go is named');
      assert.equal(f.remoteDocs().length, 3);
      assert.equal((await f.sync()).code, 0);
      assert.deepEqual(f.remoteDocs().map((d) => d.title).sort(), ['a', 'c']);
    });
  });

  // Issue 29: a dry run in a fresh folder made .kbsync/ledger.sqlite and recorded the workspace in it, and
  // ended "Would do 1 action(s) … Dry run: nothing to change".
  test('a dry run leaves the folder byte for byte as it was, fresh or synced, and says what it would do', async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '# A\n\nText.\n');
      const fresh = await treeOf(f.root);
      const first = await f.cli(['sync', '--dry-run']);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /Dry run: would do 1 create; nothing was changed;/);
      assert.deepEqual(await treeOf(f.root), fresh, 'no ledger, no state folder');
      assert.deepEqual(f.remoteDocs(), []);

      assert.equal((await f.sync()).code, 0);
      await f.write('a.md', '# A\n\nText, edited.\n');
      await f.write('b.md', '# B\n\nMore.\n');
      const synced = await treeOf(f.root);
      const second = await f.sync(['--dry-run']);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(second.report?.planned.map((p) => `${p.kind} ${p.path}`).sort(), ['create b.md', 'push a.md']);
      assert.deepEqual(await treeOf(f.root), synced, 'the ledger and its side files untouched');
      const real = await f.sync();
      assert.deepEqual(real.report?.planned.map((p) => `${p.kind} ${p.path}`).sort(), ['create b.md', 'push a.md'], 'the run does what the dry run said');
    });
  });

  test('deleting most files trips the mass-delete guard (exit 3, nothing deleted) until --force', async () => {
    await withSyncFixture(async (f) => {
      for (let i = 0; i < 6; i++) await f.write(`n${i}.md`, `# n${i}\n`);
      assert.equal((await f.sync()).code, 0);
      for (let i = 0; i < 5; i++) await f.remove(`n${i}.md`);
      const refused = await f.sync();
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /would delete 5 of 6/);
      assert.equal(f.remoteDocs().length, 6);
      assert.equal((await f.sync(['--force'])).code, 0);
      assert.equal(f.remoteDocs().length, 1);
    });
  });

  test('a fresh clone with no ledger adopts the existing documents instead of duplicating them', async () => {
    await withSyncFixture(async (f) => {
      await f.write('x.md', '# X\n\nbody\n');
      await f.write('sub/y.md', '# Y\n\nbody\n');
      assert.equal((await f.sync(['--push'])).code, 0);
      const { rm } = await import('node:fs/promises');
      await rm(`${f.root}/.kbsync`, { recursive: true });
      const again = await f.sync(['--push']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(f.remoteDocs().length, 2);
      assert.equal(again.report?.callsByEndpoint['createDocument'], undefined);
    });
  });

  test('a pulled document with hidden content (code) is never overwritten while its placeholder is in the file', async () => {
    await withSyncFixture(async (f) => {
      // One service minute: a document written in a minute that has since ended is re-read once (a recheck,
      // not the hold's cost), which a slow run crossing a minute's end would otherwise count here.
      f.em.admin.freezeClock(Date.UTC(2026, 10, 2, 9, 0, 30));
      f.em.admin.createDocument({ name: 'Runbook', markdown: '# Runbook\n\nSteps:\n\n```sh\nrestart --all\n```\n' });
      assert.equal((await f.sync()).code, 0);
      const pulled = await f.read('Runbook.md');
      assert.match(pulled, /<!-- kbsync:/);
      await f.write('Runbook.md', pulled.replace('Steps:', 'Steps, carefully:'));
      const held = await f.sync();
      assert.equal(held.code, 1, 'a held document is reported as not synced');
      const result = held.report?.results.find((r) => r.path === 'Runbook.md');
      assert.ok(result?.ok && result.result === 'held' && /placeholder/.test(result.detail ?? ''), JSON.stringify(result));
      assert.match(f.remoteDoc('Runbook').markdown ?? '', /restart --all/, 'the code the API never showed is still there');
      // The local edit is not forgotten: it is held again on the next run, and that costs no read of the document.
      const again = await f.sync();
      const still = again.report?.results.find((r) => r.path === 'Runbook.md');
      assert.deepEqual(still && still.ok && [still.action, still.reason, still.repeated], ['held', 'PLACEHOLDERS', true]);
      assert.equal(again.report?.callsByEndpoint['readBlocks'], undefined, 'a standing hold is free');
    });
  });

  test('--pull merges remote edits into an edited file and keeps the local edit pending for the next push', async () => {
    await withSyncFixture(async (f) => {
      await f.write('p.md', '# P\n\nOne.\n\nTwo.\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.editDocument(f.remoteDoc('P').dentryUuid, '# P\n\nOne, remote.\n\nTwo.\n');
      await f.write('p.md', '# P\n\nOne.\n\nTwo, local.\n');
      const pulled = await f.sync(['--pull']);
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.equal(await f.read('p.md'), '# P\n\nOne, remote.\n\nTwo, local.\n');
      assert.equal(f.remoteDoc('P').markdown, '# P\n\nOne, remote.\n\nTwo.\n', 'a pull never writes the service');
      // The colleague's words are known (a page a read shows whole): the next push publishes the file.
      const pushed = await f.sync(['--push']);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.equal(f.remoteDoc('P').markdown, '# P\n\nOne, remote.\n\nTwo, local.\n');
    });
  });
});

/** Every file under `root` with its bytes (base64), by path. */
async function treeOf(root: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    tree[relative(root, path)] = (await readFile(path)).toString('base64');
  }
  return tree;
}
