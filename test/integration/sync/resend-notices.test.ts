import { rename as renameFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Issue 44, soak seed 500: a machine sent a document again so that its link pointed at a document made since
 * (the same text; only the pushed link changed), and the other machine, which held that text byte for byte,
 * was told HIDDEN_EDIT, its next overwrite held. Nobody had edited anything.
 */

for (const rename of [false, true]) {
  test(`a document sent again for a link made since${rename ? ', renamed in the same run' : ''}: the other machine says no hidden edit and holds nothing`, async () => {
    await withWorkstationPair(false, async (em, a, b) => {
      await publishedOnBoth(em, a, b, { 'notes/guide.md': '# Guide\n\nSee [the setup](setup.md) first.\n\nThen read on.\n' });

      em.admin.setClockOffset(4 * 60_000);
      await a.write('notes/setup.md', '# Setup\n\nInstall it.\n');
      if (rename) await renameFile(join(a.root, 'notes/guide.md'), join(a.root, 'notes/the-guide.md'));
      const sent = await synced(a);
      assert.match(JSON.stringify(sent.results), /setup\.md/);
      em.admin.setClockOffset(6 * 60_000);
      await synced(a);

      const path = rename ? 'notes/the-guide.md' : 'notes/guide.md';
      const seen = await synced(b);
      assert.doesNotMatch(JSON.stringify(seen.results), /HIDDEN_EDIT|FLATTEN/, JSON.stringify(seen.results));
      assert.equal(await b.read(path), await a.read(path));
      await b.write(path, (await b.read(path)).replace('Then read on.', 'Then read on, slowly.'));
      const pushed = await synced(b);
      assert.ok(pushed.results.some((r) => r.path === path && r.ok && r.result === 'pushed'), JSON.stringify(pushed.results));
    });
  });
}
