import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { withDaemon } from './daemon-process.js';

/** A page whose links name no file its rename makes: a neighbour, its own headings (one not there), another site. */
const PAGE = '# A\n\n## Setup\n\nSee [b](b.md), [setup](#setup), [gone](#nope) and [web](https://example.com/).\n';

test('kbsync watch: a rename the watcher sees follows the document and sends nothing again for the page\'s links (issue 44, soak seed 502)', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('guide/a.md', PAGE);
      await f.write('guide/b.md', '# B\n\nBack to [a](a.md).\n');
      await withDaemon(f, {}, async (d) => {
        const doc = f.remoteDoc('A');
        const sent = f.em.admin.callsOn(doc.dentryUuid).overwriteContent;
        await rename(join(f.root, 'guide/a.md'), join(f.root, 'guide/r1-a.md'));
        const renamed = await d.waitForLog((line) => line.msg === 'guide/r1-a.md: renamed from guide/a.md', 'the rename');
        // The cycle that carried the rename out is over: any body it owed its links was sent in it.
        await d.waitForLog((line) => d.logs.indexOf(line) > d.logs.indexOf(renamed) && / cycle done: /.test(line.msg), 'the end of the rename\'s cycle');
        assert.deepEqual(
          d.logs.filter((line) => line.msg.includes('again so their links')),
          [],
          'nothing sent again',
        );
        assert.equal(f.em.admin.callsOn(doc.dentryUuid).overwriteContent, sent, 'the document was not written');
        assert.equal(f.remoteDoc('A').dentryUuid, doc.dentryUuid, 'the same document');
      });
    },
    { config: { watch: { pollBudgetPerHour: 0 } } },
  );
});
