import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { onceAt } from '../../helpers/gate-proxy.js';
import { userNodes, type SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, withGatedPair, withWorkstationPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 712: machine A moved guides/node-diff3.md to ref/ (a new document, the old one deleted). B listed the new
 * document between its create and the append of A's record that says which document it replaced, and pulled it as
 * a new file; B's user had edited the file at the old path meanwhile. Once A's record came, B's file could not follow
 * the move (the new document was paired already, with the copy B had pulled), so the edit, found "deleted there but
 * edited here", made the old document again: the same page twice, B's edit in neither A's nor the moved document.
 */
const TEXT = (title: string): string => `# ${title}\n\nHow to start.\n\nThen carry on.\n`;
const EDIT = (text: string): string => text.replace('Then carry on.', 'Then carry on, edited on B.');

async function moveFile(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

/** A gate that runs the armed step at the gated machine's first append to the shared state after a create (armed first): its id's record, held until the step ends. */
function atRecordAfterCreate(): ReturnType<typeof onceAt> {
  let created = false;
  return onceAt((request) => {
    if (request.method === 'POST' && /\/docs$/.test(request.path.split('?')[0] ?? '')) created = true;
    return created && request.path.includes('/appendText');
  });
}

const said = (report: SyncReport): string => JSON.stringify(report.results);

/**
 * `guides/guide.md` (titled `title`) on both machines; A moves it to ref/, and B's run comes between A's create of
 * the new document and A's record of it: B pulls the new document as a file of its own, and then B's user saves
 * `edit` of the file at its old path. Returns B's next sync (the clock a minute on each time), and what B's run between said.
 */
async function pulledBeforeMoveRecord(keyless: boolean, title: string, fn: (pair: { readonly a: SyncFixture; readonly b: SyncFixture; readonly sync: (f: SyncFixture) => Promise<SyncReport>; readonly copy: string }) => Promise<void>): Promise<void> {
  const gate = atRecordAfterCreate();
  await withGatedPair(keyless, gate.hooks, async (em, b, a) => {
    const text = TEXT(title);
    await publishedOnBoth(em, a, b, { 'guides/guide.md': text, 'ref/other.md': '# Other\n\nElsewhere.\n' });
    const { sync } = minuteByMinute(em, 3);
    await moveFile(a, 'guides/guide.md', 'ref/guide.md');
    let between: SyncReport | undefined;
    gate.arm(async () => {
      between = await sync(b);
      await b.write('guides/guide.md', EDIT(text));
    });
    await sync(a);
    assert.ok(gate.fired && between, "B's run came between A's create and A's record of it");
    const copy = between.results.find((r) => r.action === 'new-local')?.path;
    assert.equal(copy, `ref/${title}.md`, `B pulls the new document as a file of its own, named by its title: ${said(between)}`);
    await fn({ a, b, sync, copy });
  });
}

const documentsTitled = (f: SyncFixture, title: string) => userNodes(f.remoteDocs()).filter((node) => node.docType === 'DOC' && node.title === title);

for (const keyless of [false, true]) {
  // The copy B pulls is named by the document's title: the path A gave it (as in the soak), or another.
  for (const title of ['guide', 'Guide']) {
    const team = keyless ? 'keyless' : 'keyed';
    test(`a file edited here while another machine moved it, its new document pulled here before that machine's record: one document, one file, the edit in it (${team}, copy at ${title === 'guide' ? 'the same path' : 'another path'})`, async () => {
      await pulledBeforeMoveRecord(keyless, title, async ({ a, b, sync, copy }) => {
        const followed = await sync(b);
        assert.equal(followed.callsByEndpoint['createDocument'] ?? 0, 0, `nothing created: ${said(followed)}`);
        const moved = followed.results.find((r) => r.path === 'ref/guide.md');
        assert.ok(moved?.ok && moved.action === 'move-local' && moved.result === 'pushed', `the file follows the move, its edit sent: ${said(followed)}`);
        assert.match(moved.detail ?? '', new RegExp(`${copy.replace('.', '\\.')}, a copy of the moved page .* was moved to .*trash`), 'the copy pulled before the record is said gone to the trash');
        for (const f of [a, b, a, b]) await sync(f);
        const docs = documentsTitled(a, title);
        assert.equal(docs.length, 1, `one document: ${JSON.stringify(userNodes(a.remoteDocs()).map((node) => node.title))}`);
        assert.equal(docs[0]?.markdown, EDIT(TEXT(title)), "the moved document holds B's edit");
        for (const f of [a, b]) {
          assert.equal(await f.read('ref/guide.md'), EDIT(TEXT(title)), 'the file is at its new path, with the edit');
          assert.equal(await f.exists('guides/guide.md'), false, 'not at its old path');
          assert.equal(await f.exists('ref/Guide.md'), false, 'no second copy');
        }
      });
    });
  }
}

// The copy edited too: two files here hold edits of one page, and which text is the page only a person can say.
// The file at the old path is never made a document again (the page twice); it waits, said, and nothing is lost.
test('a file edited here while another machine moved it, and the copy of the moved page pulled here edited too: not created again, said, both edits kept', async () => {
  await pulledBeforeMoveRecord(false, 'guide', async ({ a, b, sync, copy }) => {
    const other = TEXT('guide').replace('How to start.', 'How to start, edited in the copy.');
    await b.write(copy, other);
    const run = await sync(b);
    assert.equal(run.callsByEndpoint['createDocument'] ?? 0, 0, `nothing created: ${said(run)}`);
    const waiting = run.pending.find((p) => p.path === 'guides/guide.md');
    assert.match(waiting?.reason ?? '', /another kbsync machine moved its page to ref\/guide\.md .*not created again.*copy the edit into it, then delete guides\/guide\.md/, JSON.stringify(run.pending));
    assert.equal(await b.read('guides/guide.md'), EDIT(TEXT('guide')), 'the edit stays in the file');
    await sync(a);
    assert.equal(documentsTitled(a, 'guide').length, 1, 'one document');
  });
});

// The exploration of soak seed 712's window found a longer one: a move killed between its create (recorded in the
// ledger with the promise to delete the old document) and the append of its record never told the shared state
// which document it replaced, and its next run deleted the old document all the same. Every other machine then saw
// a plain deletion: an edited file was created again (the page twice), an unchanged one trashed.
for (const pulledBetween of [false, true]) {
  test(`a move killed before its record: its next run says what the new document replaced before it deletes the old one, and a file edited on the other machine follows (${pulledBetween ? 'the new document pulled there meanwhile' : 'nothing synced there meanwhile'})`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      const text = TEXT('guide');
      await publishedOnBoth(em, a, b, { 'guides/guide.md': text, 'ref/other.md': '# Other\n\nElsewhere.\n' });
      const { sync } = minuteByMinute(em, 3);
      await moveFile(a, 'guides/guide.md', 'ref/guide.md');
      const killed = await a.sync([], { KBSYNC_CRASH_AT: 'before-id-append' });
      assert.equal(killed.signal, 'SIGKILL', 'A is killed between its create and its record');
      if (pulledBetween) await sync(b);
      await b.write('guides/guide.md', EDIT(text));
      await sync(a);
      const followed = await sync(b);
      assert.equal(followed.callsByEndpoint['createDocument'] ?? 0, 0, `nothing created: ${said(followed)}`);
      for (const f of [a, b, a, b]) await sync(f);
      const docs = documentsTitled(a, 'guide');
      assert.equal(docs.length, 1, `one document: ${JSON.stringify(userNodes(a.remoteDocs()).map((node) => node.title))}`);
      assert.equal(docs[0]?.markdown, EDIT(text), "the moved document holds B's edit");
      for (const f of [a, b]) {
        assert.equal(await f.read('ref/guide.md'), EDIT(text), 'the file is at its new path, with the edit');
        assert.equal(await f.exists('guides/guide.md'), false, 'not at its old path');
      }
    });
  });
}
