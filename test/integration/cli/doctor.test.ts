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

test('doctor: where images go, and whether the upload and diagram commands are installed here (a warning, not a refusal: sync runs without them)', async () => {
  await withSyncFixture(async (f) => {
    const none = await f.cli(['doctor']);
    assert.equal(none.code, 0, none.stdout);
    assert.match(none.stdout, /✓ images: not published .*IMAGE_NOT_PUBLISHED/);

    const missing = await f.cli(['doctor'], { KBSYNC_IMAGES_UPLOAD: 'BUCKET=docs no-such-uploader-xyz put "$1"', KBSYNC_IMAGES_DIAGRAMS_COMMAND: 'no-such-renderer-xyz -i "$1" -o "$2"' });
    assert.equal(missing.code, 0, missing.stdout);
    assert.match(missing.stdout, /! images\.upload runs no-such-uploader-xyz, which is not found on this machine's PATH: every file with an image not uploaded yet would fail \(IMAGE_UPLOAD_FAILED\)/);
    assert.match(missing.stdout, /! images\.diagrams\.command runs no-such-renderer-xyz/);

    const installed = await f.cli(['doctor'], { KBSYNC_IMAGES_UPLOAD: 'cp "$1" /tmp && echo http://127.0.0.1/x.png' });
    assert.match(installed.stdout, /✓ images\.upload: cp is installed \(\/.*cp\)/);

    const diagramsAlone = await f.cli(['doctor'], { KBSYNC_IMAGES_DIAGRAMS_COMMAND: 'cat "$1" > "$2"' });
    assert.match(diagramsAlone.stdout, /! images\.diagrams\.command is set but images\.upload is not/);
  });
});
