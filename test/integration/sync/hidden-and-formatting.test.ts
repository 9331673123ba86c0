import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

describe('what the service hides or flattens is never lost', () => {
  test('a remote one-word fix to a paragraph with a link and inline code leaves the link and the code in the file', async () => {
    await withSyncFixture(async (f) => {
      const text = '# Guide\n\nRun `make all` to buidl it, then see [the guide](https://example.com/guide) for **details**.\n';
      await f.write('guide.md', text);
      assert.equal((await f.sync()).code, 0);
      const doc = f.remoteDoc('Guide');
      f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('buidl', 'build'));
      const pulled = await f.sync();
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.equal(await f.read('guide.md'), text.replace('buidl', 'build'));
      assert.ok(pulled.report?.results.every((r) => !r.ok || !/FORMATTING_SIMPLIFIED/.test(r.detail ?? '')));
    });
  });

  test('an edit that crosses a code span is written plain, and said once with the line', async () => {
    await withSyncFixture(async (f) => {
      await f.write('g.md', '# G\n\nRun `make all` now.\n');
      assert.equal((await f.sync()).code, 0);
      const doc = f.remoteDoc('G');
      // "all now" becomes "everything": the edit runs out of the code span, so the span cannot stay whole.
      f.em.admin.editDocument(doc.dentryUuid, '# G\n\nRun make everything.\n');
      const pulled = await f.sync();
      assert.equal(await f.read('g.md'), '# G\n\nRun make everything.\n');
      const result = pulled.report?.results.find((r) => r.path === 'g.md');
      assert.match(result && result.ok ? (result.detail ?? '') : '', /FORMATTING_SIMPLIFIED: the knowledge base's edit at line 3 crossed a link or a code span/);
    });
  });

  test('appending to a pulled file that holds a table placeholder is no false alarm', async () => {
    await withSyncFixture(async (f) => {
      f.em.admin.createDocument({ name: 'Tabled', markdown: '# Tabled\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast line.\n' });
      assert.equal((await f.sync()).code, 0);
      f.em.admin.setClockOffset(120_000);
      assert.equal((await f.sync()).code, 0);
      await f.write('Tabled.md', (await f.read('Tabled.md')).replace('Last line.', 'Last line. Appended.'));
      const appended = await f.sync();
      assert.equal(appended.code, 0, `${appended.stdout}\n${appended.stderr}`);
      assert.equal(appended.report?.callsByEndpoint['appendText'] !== undefined, true, 'an append, which keeps the table');
      assert.match(f.remoteDoc('Tabled').markdown ?? '', /\| 1 \| 2 \|/);
      const again = await f.sync();
      assert.equal(again.code, 0);
      assert.deepEqual(again.report?.planned, []);
    });
  });
});
