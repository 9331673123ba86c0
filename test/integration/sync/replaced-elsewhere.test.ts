import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { userNodes, type SyncFixture } from '../../helpers/sync-fixture.js';
import { withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * The service cannot move a document: a move makes a new one and deletes the old, and a file edited while its
 * document was deleted is created again. Another workstation still pairs its file with the old document; it
 * must follow the new one (the shared state says which replaced which), never make a document of its own.
 * Found by the model test: seed 47 (two machines moved one file at once) and seed 32 (a colleague deleted a
 * document, and both machines had edited its file).
 */
const documents = (a: SyncFixture): string[] => userNodes(a.remoteDocs()).filter((node) => node.docType === 'DOC').map((node) => node.title);

/** Both machines sync until a run of each changes nothing; they must then hold the same files. */
async function settle(em: RunningEmulator, a: SyncFixture, b: SyncFixture): Promise<void> {
  for (let round = 1; round <= 4; round++) {
    em.admin.setClockOffset((10 + round * 2) * 60_000);
    const runs = [await a.sync(), await b.sync()];
    for (const run of runs) assert.equal(run.code, 0, `${run.stderr} ${JSON.stringify(run.report?.results)}`);
    if (runs.every((run) => run.report?.results.every((r) => r.ok && r.result === 'unchanged'))) return;
  }
  assert.fail('the machines did not settle in four rounds');
}

const TEXT = '# Section matter\n\nParse sections.\n\nMore text.\n';

for (const keyless of [false, true]) {
  const team = keyless ? 'a keyless team' : 'a team with a state key';

  test(`${team}: one file moved to two folders at once is one document, and both machines end with one file`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await a.write('section-matter.md', TEXT);
      assert.equal((await a.sync()).code, 0);
      assert.equal((await b.sync()).code, 0);
      em.admin.setClockOffset(2 * 60_000);

      await mkdir(join(b.root, 'ref'));
      await rename(join(b.root, 'section-matter.md'), join(b.root, 'ref', 'section-matter.md'));
      await mkdir(join(a.root, 'guides'));
      await rename(join(a.root, 'section-matter.md'), join(a.root, 'guides', 'section-matter.md'));
      assert.equal((await a.sync()).code, 0);
      em.admin.setClockOffset(4 * 60_000);

      const second = await b.sync(['--push']);
      assert.equal(second.code, 0, `${second.stderr} ${JSON.stringify(second.report?.results)}`);
      assert.deepEqual(documents(a), ['Section matter'], 'one document, not one per move');
      await settle(em, a, b);
      assert.deepEqual(documents(a), ['Section matter']);
      const files = async (f: SyncFixture) => (await Promise.all(['section-matter.md', 'guides/section-matter.md', 'ref/section-matter.md'].map((p) => f.exists(p)))).filter(Boolean).length;
      assert.equal(await files(a), 1, 'one file on A');
      assert.equal(await files(b), 1, 'one file on B');
    });
  });

  test(`${team}: a document a colleague deleted, edited on both machines, is created again once, with both edits`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await a.write('notes.md', '# Notes\n\nFirst paragraph.\n\nSecond paragraph.\n');
      await a.write('other.md', '# Other\n\nStays.\n');
      assert.equal((await a.sync()).code, 0);
      assert.equal((await b.sync()).code, 0);
      em.admin.setClockOffset(2 * 60_000);

      em.admin.deleteNode(a.remoteDoc('Notes').dentryUuid);
      await a.write('notes.md', '# Notes\n\nFirst paragraph, edited on A.\n\nSecond paragraph.\n');
      await b.write('notes.md', '# Notes\n\nFirst paragraph.\n\nSecond paragraph, edited on B.\n');
      const recreated = await a.sync();
      assert.equal(recreated.code, 0, recreated.stderr);
      assert.equal(recreated.report?.results.find((r) => r.path === 'notes.md')?.action, 'recreate');
      em.admin.setClockOffset(4 * 60_000);

      const followed = await b.sync();
      assert.equal(followed.code, 0, `${followed.stderr} ${JSON.stringify(followed.report?.results)}`);
      assert.deepEqual(documents(a).sort(), ['Notes', 'Other'], 'one document');
      const body = a.remoteDoc('Notes').markdown ?? '';
      assert.match(body, /edited on A/);
      assert.match(body, /edited on B/);
      await settle(em, a, b);
      assert.equal(await b.read('notes.md'), await a.read('notes.md'));
      assert.deepEqual(documents(a).sort(), ['Notes', 'Other']);
    });
  });
}

for (const keyless of [false, true]) {
  for (const to of ['guides/lev.md', 'distance.md']) {
    // Soak seed 2 (old main): B's user edited the file at its old path while B's daemon was down; back, B kept
    // the file there, published its record at that path, and the other machine followed it back: a move undone.
    test(`${keyless ? 'a keyless team' : 'a team with a state key'}: a file edited here while another machine ${to.includes('/') ? 'moved it to another folder' : 'renamed it'}: it follows with the edit, and nothing moves back`, async () => {
      await withWorkstationPair(keyless, async (em, a, b) => {
        await a.write('lev.md', '# Levenshtein\n\nFast distance.\n\nIn one pass.\n');
        assert.equal((await a.sync()).code, 0);
        assert.equal((await b.sync()).code, 0);
        em.admin.setClockOffset(2 * 60_000);
        await mkdir(join(a.root, 'guides'), { recursive: true });
        await rename(join(a.root, 'lev.md'), join(a.root, to));
        assert.equal((await a.sync()).code, 0);
        await b.write('lev.md', '# Levenshtein\n\nFast distance.\n\nIn one pass, edited on B.\n');
        await settle(em, a, b);
        for (const f of [a, b]) {
          assert.equal(await f.exists('lev.md'), false, 'the file is not back at its old path');
          assert.equal(await f.read(to), '# Levenshtein\n\nFast distance.\n\nIn one pass, edited on B.\n');
        }
        assert.deepEqual(documents(a), ['Levenshtein']);
        assert.equal(a.remoteDoc('Levenshtein').parentId === em.seed.rootNodeId, !to.includes('/'), 'the document stays where the move put it');
      });
    });
  }
}

test('a file unchanged here, moved on another machine: it follows the new document to its new path, in one run', async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await a.write('lev.md', '# Levenshtein\n\nFast distance.\n');
    assert.equal((await a.sync()).code, 0);
    assert.equal((await b.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    await mkdir(join(a.root, 'algo'));
    await rename(join(a.root, 'lev.md'), join(a.root, 'algo', 'lev.md'));
    await a.write('algo/lev.md', '# Levenshtein\n\nFast edit distance.\n');
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(4 * 60_000);

    const followed = await b.sync();
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(await b.exists('lev.md'), false);
    assert.equal(await b.read('algo/lev.md'), await a.read('algo/lev.md'));
    const result = followed.report?.results.find((r) => r.path === 'algo/lev.md');
    assert.ok(result?.ok && result.result === 'pulled', JSON.stringify(followed.report?.results));
    assert.equal(followed.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created');
    assert.deepEqual(documents(a), ['Levenshtein']);
  });
});

// Model seed 3021: following the new document, the record's time was unknown, so a colleague's edit inside its
// code (a later time, the same blocks) could not show, and this machine's next edit overwrote it.
test("a colleague's edit inside code of the document another machine made in place of this one's is not overwritten", async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const runbook = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
    await a.write('runbook.md', runbook);
    assert.equal((await a.sync()).code, 0);
    assert.equal((await b.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    await mkdir(join(a.root, 'ops'));
    await rename(join(a.root, 'runbook.md'), join(a.root, 'ops', 'runbook.md'));
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(4 * 60_000);
    em.admin.editDocument(a.remoteDoc('Runbook').dentryUuid, runbook.replace('restart --all', 'restart --all --graceful'));
    em.admin.setClockOffset(6 * 60_000);

    await b.write('runbook.md', runbook.replace('check the dashboard', 'check the dashboard and the logs'));
    const run = await b.sync();
    assert.match(a.remoteDoc('Runbook').markdown ?? '', /--graceful/, `the colleague's code edit stands: ${JSON.stringify(run.report?.results)}`);
    assert.deepEqual(documents(a), ['Runbook']);
  });
});

// Model seed 10021: a colleague moved a document to one folder (B followed, and recorded it), then to another
// (A followed from its listing, having read B's record). A's move was never published (B's record, later than
// A's last publish, was taken for news), and A's next run moved the file back to B's older folder.
for (const keyless of [false, true]) {
  test(`${keyless ? 'a keyless team' : 'a team with a state key'}: a document moved twice in the web editor: each machine follows its listing, and no older record moves a file back`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      await a.write('lev.md', TEXT);
      await a.write('ref/other.md', '# Other\n\nElsewhere.\n');
      await a.write('guides/more.md', '# More\n\nFurther.\n');
      assert.equal((await a.sync()).code, 0);
      assert.equal((await b.sync()).code, 0);
      const folder = (title: string): string => {
        const node = em.admin.dump().nodes.find((n) => n.docType === 'FOLDER' && n.title === title);
        assert.ok(node, title);
        return node.dentryUuid;
      };
      const lev = a.remoteDoc('Section matter').dentryUuid;
      em.admin.setClockOffset(2 * 60_000);
      em.admin.moveNode(lev, folder('ref'));
      assert.equal((await b.sync()).code, 0);
      assert.equal(await b.exists('ref/lev.md'), true);
      em.admin.setClockOffset(4 * 60_000);
      em.admin.moveNode(lev, folder('guides'));
      assert.equal((await a.sync()).code, 0);
      assert.equal(await a.exists('guides/lev.md'), true);

      // B writes something else, so A's next run reads the state again (B's record of the older place in it).
      em.admin.setClockOffset(6 * 60_000);
      await b.write('guides/more.md', '# More\n\nFurther, and edited.\n');
      assert.equal((await b.sync(['--push'])).code, 0);
      const again = await a.sync();
      assert.equal(again.code, 0, again.stderr);
      assert.equal(await a.exists('guides/lev.md'), true, `the file stays where its document is: ${JSON.stringify(again.report?.results)}`);
      await settle(em, a, b);
      assert.equal(await b.read('guides/lev.md'), TEXT);
      assert.equal(await b.exists('ref/lev.md'), false);
      assert.deepEqual(documents(a).sort(), ['More', 'Other', 'Section matter']);
    });
  });
}

// Soak seed 500: another machine moved a page with code and a table to another folder, and its delete of the old
// document failed (the service erred), so both were listed for a while. This machine pulled the new document as a
// file of its own (placeholders where its code stood, as reads hide it) beside the old file, which, edited here,
// was left paired with a document soon deleted: a conflict with no clash, and the edit held for good.
const PAGE = '# Lookup\n\nCache DNS lookups.\n\n```js\nconst cacheable = new CacheableLookup();\n```\n\n| Option | Default |\n| --- | --- |\n| maxTtl | Infinity |\n\nRespects the TTL.\n';
const EDITED = `---\ntags: [dns]\n---\n${PAGE.replace('Respects the TTL.', 'Respects the TTL, edited on A.')}`;
const SAID = 'Cache DNS lookups, said a colleague.';
for (const keyless of [false, true]) {
  for (const colleague of [false, true]) {
    test(`${keyless ? 'a keyless team' : 'a team with a state key'}: a page with code moved to another folder elsewhere, its old document not deleted yet, edited here${colleague ? ' and by a colleague' : ''}: the file follows with the edit`, async () => {
      await withWorkstationPair(keyless, async (em, a, b) => {
        // B makes the document, so even without a state key it holds the id that deletes it (a move may).
        await b.write('guides/lookup.md', PAGE);
        assert.equal((await b.sync()).code, 0);
        assert.equal((await a.sync()).code, 0);
        em.admin.setClockOffset(2 * 60_000);
        await rename(join(b.root, 'guides', 'lookup.md'), join(b.root, 'lookup.md'));
        em.admin.setFaults({ error5xx: 1, only: ['deleteDocument'] });
        const moved = await b.sync();
        assert.notEqual(moved.code, 0, `the old document is not deleted yet: ${JSON.stringify(moved.report?.results)}`);
        assert.equal(documents(a).length, 2, 'both documents are listed');
        em.admin.setClockOffset(4 * 60_000);
        const fresh = userNodes(a.remoteDocs()).find((node) => node.docType === 'DOC' && node.parentId === em.seed.rootNodeId);
        assert.ok(fresh, 'the new document');
        if (colleague) em.admin.editDocument(fresh.dentryUuid, PAGE.replace('Cache DNS lookups.', SAID));
        await a.write('guides/lookup.md', EDITED);

        const followed = await a.sync();
        const said = JSON.stringify(followed.report?.results);
        // A colleague's edit of a page with code holds the edit made here (a hidden change may ride along): allowed.
        const result = followed.report?.results.find((r) => r.path === 'lookup.md');
        assert.ok(result?.ok && result.result === (colleague ? 'held' : 'pushed'), said);
        assert.equal(followed.code, colleague ? 1 : 0, `${followed.stderr} ${said}`);
        assert.equal(await a.exists('guides/lookup.md'), false, `the file left its old path: ${said}`);
        // The colleague's words come into the file (the pull does not wait for the hold).
        const merged = colleague ? EDITED.replace('Cache DNS lookups.', SAID) : EDITED;
        assert.equal(await a.read('lookup.md'), merged, 'the edit, the code and the table, with no placeholder');
        assert.equal(followed.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created');
        em.admin.setFaults({});
        if (colleague) {
          assert.equal((await b.sync()).code, 0, 'B deletes the old document');
          assert.equal(await b.read('lookup.md'), PAGE.replace('Cache DNS lookups.', SAID));
          assert.equal(await a.read('lookup.md'), merged, 'held, the edit stays in the file');
        } else {
          await settle(em, a, b);
          for (const f of [a, b]) {
            assert.equal(await f.exists('guides/lookup.md'), false);
            assert.equal(await f.read('lookup.md'), EDITED);
          }
          assert.match(a.remoteDoc('Lookup').markdown ?? '', /edited on A/);
        }
        assert.deepEqual(documents(a), ['Lookup']);
      });
    });
  }
}
