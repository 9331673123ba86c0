import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { splitText } from '../../../src/sync/content/document-text.js';
import type { GateHooks, Passing } from '../../helpers/gate-proxy.js';
import { userNodes, type SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, withBothGated, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 751: machine A moved get-stream.md to guides/ (the service has no move: a new document made from
 * A's file, then the old one deleted). Between A's read of the old document and its delete, B's user edited the file
 * at the old path and B's run wrote the edit to the old document. A's new document was made from the version before
 * that edit, and the delete took the edit with the old document. B then followed the move with its own write as the
 * base: the new document, without the edit, read as a change that removed it, and B's unchanged file took it. The
 * edit was in no file and no document. It must end in B's file, the one document and A's file.
 */
const TEXT = '---\ntags: [io]\n---\n# Streams\n\nHow to get a stream.\n\nThen read it to the end.\n\nAnd close it.\n';
const A_EDIT = (text: string): string => text.replace('And close it.', 'And close it, edited on A.');

/**
 * What B's user changes while A moves the page:
 * - `words`: a paragraph (the soak's edit);
 * - `a paragraph deleted`: the text B's write replaced has it, so only the version the move's new document says it
 *   was made from (DocRecord `b`) tells B that the paragraph there is no remote addition;
 * - `words, after a colleague's edit`: a colleague edited the page in the web editor first, and both machines took
 *   that in from the service's plain reading, so neither's record says which version it was made from: B's follow
 *   knows its write from the text it wrote over (the lost-update repair).
 */
type Edit = 'words' | 'a paragraph deleted' | "words, after a colleague's edit";
const B_WORDS = (text: string): string => text.replace('Then read it to the end.', 'Then read it to the end, edited on B.');
const B_EDIT: Record<Edit, (text: string) => string> = {
  words: B_WORDS,
  'a paragraph deleted': (text) => text.replace('Then read it to the end.\n\n', ''),
  "words, after a colleague's edit": B_WORDS,
};
const COLLEAGUE = (text: string): string => text.replace('How to get a stream.', 'How to get a stream, said a colleague.');

async function moveFile(f: SyncFixture, from: string, to: string): Promise<void> {
  await mkdir(dirname(join(f.root, to)), { recursive: true });
  await rename(join(f.root, from), join(f.root, to));
}

const isCreateOfPage = (request: Passing): boolean => request.method === 'POST' && /\/docs$/.test(request.path.split('?')[0] ?? '') && request.body.includes('"Streams"');
const isDelete = (request: Passing): boolean => request.method === 'DELETE';
const isOverwrite = (request: Passing): boolean => request.path.includes('/overwriteContent');

/** Gate hooks that run `step` at the first request `matching` (while `armed()`), and hold that request until it ends. */
function holdAt(matching: (request: Passing) => boolean, armed: () => boolean, step: () => Promise<unknown>): GateHooks & { readonly fired: () => boolean } {
  let fired = false;
  return {
    before: async (request) => {
      if (fired || !armed() || !matching(request)) return;
      fired = true;
      await step();
    },
    fired: () => fired,
  };
}

/**
 * How B's write of its edit to the old document meets A's move:
 * - `create`: B's whole run (the edit saved, sent, and its record published) comes while A's create of the new
 *   document waits, after A read the old one (the soak's order);
 * - `delete`: B's run reads the page and the state before A's move, and its write lands while A's delete of the old
 *   document waits, after A's last look at it: no look of A's can see it (the service has no conditional delete).
 */
type Race = 'create' | 'delete';

const said = (report: SyncReport | undefined): string => JSON.stringify(report?.results);

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  const cases: readonly (readonly [Edit, Race, boolean])[] = [
    ...(['create', 'delete'] as const).flatMap((race) => [false, true].map((aEdits) => ['words', race, aEdits] as const)),
    ...(['a paragraph deleted', "words, after a colleague's edit"] as const).flatMap((edit) => (['create', 'delete'] as const).map((race) => [edit, race, true] as const)),
  ];
  for (const [edit, race, aEdits] of cases) {
    test(`an edit (${edit}) another machine wrote to a page while this one moved it (its write at the move's ${race}${aEdits ? ', the moved file edited too' : ''}): in both files and the one document (${team})`, async () => {
        const base = edit === "words, after a colleague's edit" ? COLLEAGUE(TEXT) : TEXT;
        let armed = false;
        let bRun: Promise<SyncReport> | undefined;
        let aReachedDelete: () => void = () => undefined;
        const aAtDelete = new Promise<void>((resolve) => (aReachedDelete = resolve));
        let sync: (f: SyncFixture) => Promise<SyncReport> = () => Promise.reject(new Error('not yet'));
        let b: SyncFixture | undefined;
        // A's gate: B's run at A's create; or, at A's delete, B's held write let go and B's run waited for.
        const aGate =
          race === 'create'
            ? holdAt(isCreateOfPage, () => armed, async () => {
                assert.ok(b);
                await b.write('get-stream.md', B_EDIT[edit](TEXT));
                bRun = sync(b);
                await bRun;
              })
            : holdAt(isDelete, () => armed, async () => {
                aReachedDelete();
                await bRun;
              });
        // B's gate (race `delete`): its write held until A's move reaches its delete.
        const bGate = holdAt(isOverwrite, () => armed && race === 'delete', () => aAtDelete);
        await withBothGated(keyless, [aGate, bGate], async (em, a, second) => {
          b = second;
          await publishedOnBoth(em, a, b, { 'get-stream.md': TEXT, 'guides/other.md': '# Other\n\nElsewhere.\n' });
          ({ sync } = minuteByMinute(em, 3));
          if (base !== TEXT) a.em.admin.editDocument(a.remoteDoc('Streams').dentryUuid, splitText(base).body);
          await moveFile(a, 'get-stream.md', 'guides/get-stream.md');
          if (aEdits) await a.write('guides/get-stream.md', A_EDIT(TEXT));
          armed = true;
          if (race === 'delete') {
            await b.write('get-stream.md', B_EDIT[edit](TEXT));
            bRun = sync(b);
          }
          const moving = await sync(a);
          const between = await bRun;
          armed = false;
          assert.ok(aGate.fired() && (race === 'create' || bGate.fired()), `the race was run: ${said(moving)}`);
          const wrote = between?.results.find((r) => r.path === 'get-stream.md');
          assert.ok(wrote?.ok && (wrote.result === 'pushed' || wrote.result === 'merged'), `B wrote its edit to the old document: ${said(between)}`);

          const followed = await sync(b);
          const want = aEdits ? A_EDIT(B_EDIT[edit](base)) : B_EDIT[edit](base);
          assert.equal(await b.read('guides/get-stream.md'), want, `B's file keeps its edit: ${said(followed)}`);
          for (const f of [a, b, a, b]) await sync(f);
          const docs = userNodes(a.remoteDocs()).filter((node) => node.title === 'Streams');
          assert.equal(docs.length, 1, `one document: ${JSON.stringify(a.remoteDocs().map((node) => node.title))}`);
          assert.equal(docs[0]?.markdown, splitText(want).body, 'the document holds every edit');
          for (const f of [a, b]) {
            assert.equal(await f.read('guides/get-stream.md'), want, 'the file is at its new path, with every edit');
            assert.equal(await f.exists('get-stream.md'), false, 'not at its old path');
          }
          for (const f of [a, b]) {
            const last = await sync(f);
            assert.deepEqual(last.pending, [], 'nothing waits for a person');
            assert.equal(last.callsByEndpoint['overwriteContent'] ?? 0, 0, `steady: ${said(last)}`);
          }
        });
      });
  }
}
