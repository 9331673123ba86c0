import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { createSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Model seed 6018 (on the path it takes once a pull of another writer's version saves its second look): a file moved to
 * another folder, and a colleague saved the new document between the move's first body and its read-back (a body
 * whose code blocks read alike is read back at once). The run failed REMOTE_CHANGED_DURING_WRITE before deleting
 * the old document, whose deletion it had promised: two documents of one title until the next run. The proxy makes
 * the save when the first read after the move's write comes.
 */
const TEXT = '# Runbook\n\nFirst.\n\n```sh\nrestart --all\n```\n\nThen.\n\n```sh\nrestart --one\n```\n';

test("a colleague's save between a move's first body and its read-back: the old document goes all the same, the save stands", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  em.admin.freezeClock(Date.UTC(2026, 10, 2, 9, 0, 10));
  let race: 'off' | 'armed' | 'written' | 'saved' = 'off';
  let oldKey = '';
  const proxy = await gateProxy(em.seed.baseUrl, {
    before: (request) => {
      if (race === 'armed' && request.path.includes('/overwriteContent')) race = 'written';
      else if (race === 'written' && request.method === 'GET' && /\/blocks(?:\?|$)/.test(request.path)) {
        race = 'saved';
        const fresh = em.admin.dump().nodes.find((node) => node.title === 'Runbook' && node.dentryUuid !== oldKey);
        assert.ok(fresh, 'the new document is made');
        em.admin.editDocument(fresh.dentryUuid, `${fresh.markdown ?? ''}\nA colleague's line.\n`);
      }
    },
  });
  const f = await createSyncFixture({ shared: em, config: { service: { baseUrl: proxy.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } } });
  try {
    await f.write('runbook.md', TEXT);
    // Another file, so the move leaves the folder not empty.
    await f.write('other.md', '# Other\n\nElsewhere.\n');
    assert.equal((await f.sync()).code, 0);
    em.admin.setClockOffset(120_000);
    assert.equal((await f.sync()).code, 0);
    oldKey = f.remoteDoc('Runbook').dentryUuid;
    await mkdir(join(f.root, 'guides'));
    await rename(join(f.root, 'runbook.md'), join(f.root, 'guides/runbook.md'));
    race = 'armed';
    const moved = await f.sync();
    assert.equal(race, 'saved', "the colleague's save came before the read-back");
    assert.match(JSON.stringify(moved.report?.results), /REMOTE_CHANGED_DURING_WRITE/, 'the race is said');
    const runbooks = em.admin.dump().nodes.filter((node) => node.title === 'Runbook');
    assert.deepEqual(
      runbooks.map((node) => node.dentryUuid === oldKey),
      [false],
      'one document of the title: the new one',
    );
    assert.match(runbooks[0]?.markdown ?? '', /A colleague's line\./, "the colleague's save stands");
  } finally {
    await f.close();
    await proxy.close();
    await em.close();
  }
});
