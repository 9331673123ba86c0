import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withBothGated, type SyncReport } from '../../helpers/workstation-pair.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Convergence soak 762 (issue 44): A changed a code line of a page (reads show code as `unknown`, so the page read
 * the same) and wrote it; B's user had added words at the end of its last paragraph. B's run read the shared state
 * before A's record of its write came, and found the page's time moved with every block it shows the same. With an
 * edit of its own to send, B judged at once: someone's edit where reads cannot see. It sent its words as an append
 * (safe over such an edit) and said and recorded HIDDEN_EDIT of A's own write, and the page then held HIDDEN_EDIT on
 * both machines. B's edit now waits with the time (JUST_EDITED, said, nothing sent or recorded): the next run, A's record
 * there, merges A's version and sends the file.
 */
const PAGE = '# Remark parse\n\nParses Markdown into a syntax tree.\n\n```js\nconst tree = parse(doc);\n```\n\nThen walk the tree.\n';
const CODED = PAGE.replace('parse(doc)', 'parse(doc, { gfm: true })');
// Text added at the end of the last paragraph: an append, which goes out over a hidden edit.
const APPENDED = PAGE.replace('walk the tree.', 'walk the tree. Node by node.');
const BOTH = CODED.replace('walk the tree.', 'walk the tree. Node by node.');
const OTHER = '# Other\n\nA page both have.\n';

const resultOf = (report: SyncReport, path: string): string[] => report.results.filter((r) => r.path === path).map((r) => (r.ok ? r.result : r.code));
const heldOn = async (f: SyncFixture): Promise<string> => (await f.cli(['resolve'])).stdout;

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';

  test(`another machine's code write, read with an edit to send before its record came: the edit waits, said once, and goes out merged with that write; no HIDDEN_EDIT (${team})`, async () => {
    // A's record of its page write waits for B's whole run.
    const record = onceAt((request) => request.path.includes('appendText'));
    await withBothGated(keyless, [record.hooks, undefined], async (em, a, b) => {
      const clock = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'page.md': PAGE, 'other.md': OTHER });
      // A publishes another edit first, so that B's run reads the shared state (its index moved) before A's record of the page.
      await a.write('other.md', OTHER.replace('both have', 'both machines have'));
      await clock.sync(a);

      await a.write('page.md', CODED);
      await b.write('page.md', APPENDED);
      let between: SyncReport | undefined;
      record.arm(async () => {
        between = await reported(b);
      });
      await clock.sync(a);
      assert.ok(record.fired && between, "B ran between A's write and A's record of it");
      assert.equal(await b.read('other.md'), await a.read('other.md'), "B's run read the state, and took A's earlier edit in");
      assert.deepEqual(saidIn(between), ['JUST_EDITED'], `B says its edit waits, and no hidden edit: ${JSON.stringify(between.results)}`);
      assert.deepEqual(resultOf(between, 'page.md'), ['held']);
      assert.equal(b.remoteDoc('Remark parse').markdown, CODED, "nothing of B's was written over A's write");
      assert.equal(await b.read('page.md'), APPENDED, "B's file keeps its edit");
      assert.doesNotMatch(await heldOn(b), /HIDDEN_EDIT|JUST_EDITED/, 'B recorded no hold: its next run decides afresh');

      const sent = await clock.sync(b);
      assert.deepEqual(saidIn(sent), [], `A's record explains the time: ${JSON.stringify(sent.results)}`);
      assert.deepEqual(resultOf(sent, 'page.md'), ['merged'], "B takes A's code line and sends its words");
      assert.equal(await b.read('page.md'), BOTH);
      for (const f of [a, b, a, b]) assert.deepEqual(saidIn(await clock.sync(f)), [], 'nothing is said after');
      assert.equal(await a.read('page.md'), BOTH, "A takes B's words, its own code line kept");
      assert.equal(await b.read('page.md'), BOTH);
      const markdown = b.remoteDoc('Remark parse').markdown ?? '';
      assert.match(markdown, /gfm: true/);
      assert.match(markdown, /Node by node/);
      for (const f of [a, b]) assert.doesNotMatch(await heldOn(f), /HIDDEN_EDIT/, 'no machine holds a hidden edit');
    });
  });
}
