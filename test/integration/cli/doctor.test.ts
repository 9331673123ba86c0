import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

test('doctor: all ✓ against the emulator (exit 0); a read-only token names the missing scope (exit 4); a userId as operatorId says to use the unionId (exit 4, as sync)', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n');
    assert.equal((await f.sync()).code, 0);

    const good = await f.cli(['doctor']);
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.doesNotMatch(good.stdout, /✗/);
    for (const scope of ['Wiki.Node.Read', 'Storage.File.Read', 'Storage.File.Write', 'Document.WorkspaceDocument.Read', 'Document.WorkspaceDocument.Write']) {
      assert.match(good.stdout, new RegExp(`✓ scope ${scope.replace(/\./g, '\\.')}`));
    }
    assert.match(good.stdout, /✓ workspace "Team Docs"/);
    assert.match(good.stdout, /✓ ledger .*1 document/);
    assert.match(good.stdout, /All checks passed/);

    const readOnly = await f.cli(['doctor'], { KBSYNC_TOKEN: f.em.seed.readOnlyToken });
    assert.equal(readOnly.code, 4, readOnly.stdout);
    assert.match(readOnly.stdout, /✗ scope Storage\.File\.Write is missing/);
    assert.match(readOnly.stdout, /Grant Storage\.File\.Write to the app/);
    assert.match(readOnly.stdout, /✓ scope Storage\.File\.Read/);

    const userId = await f.cli(['doctor'], { KBSYNC_SERVICE_OPERATOR_ID: f.em.seed.userId });
    assert.equal(userId.code, 4, userId.stdout);
    assert.match(userId.stdout, new RegExp(`✗ operatorId ${f.em.seed.userId} is refused`));
    assert.match(userId.stdout, /unionId, not the userId/);

    const noToken = await f.cli(['doctor'], { KBSYNC_TOKEN: '' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stdout, /✗ token from the environment variable KBSYNC_TOKEN/);

    // The probes aimed at made-up ids: nothing in the knowledge base changed.
    assert.equal(f.remoteDocs().length, 1);
    assert.equal(f.remoteDoc('A').markdown?.trim(), '# A');
  });
});
