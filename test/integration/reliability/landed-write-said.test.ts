import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A push killed after its write reached the document and before its record: the killed run printed nothing, and
 * the next run found the document as the file, recorded the write from the open intent, and said the file
 * `unchanged`. The user's edit was in the knowledge base, and no run ever said so (issue 44: silence is a bug).
 * Now the run that records it says it as sent, once, its preview as well; the run after it says nothing.
 */
for (const point of ['after-overwrite', 'before-ledger-commit']) {
  test(`an edit whose push was killed at ${point}, after its write: the next run says it sent, once`, async () => {
    await withSyncFixture(async (f) => {
      await f.write('guide.md', '# Guide\n\nFirst paragraph.\n');
      assert.equal((await f.sync()).code, 0);
      await f.write('guide.md', '# Guide\n\nFirst paragraph, edited.\n');
      assert.equal((await f.sync([], { KBSYNC_CRASH_AT: point })).signal, 'SIGKILL');
      assert.match(f.remoteDoc('Guide').markdown ?? '', /edited/, 'the write landed before the kill');
      const writes = f.em.admin.calls().byEndpoint.overwriteContent.calls;

      const preview = await f.sync(['--dry-run']);
      assert.deepEqual(preview.report?.planned, [{ path: 'guide.md', kind: 'push' }], 'the preview says what the run does');
      const rerun = await f.sync();
      assert.equal(rerun.code, 0);
      assert.deepEqual(
        rerun.report?.results.map((r) => (r.ok ? [r.path, r.result, r.detail] : [r.path, r.code])),
        [['guide.md', 'pushed', 'sent by an earlier run that was stopped before it could say so']],
      );
      assert.equal(rerun.report?.outcomes.updated, 1);
      assert.equal(f.em.admin.calls().byEndpoint.overwriteContent.calls, writes, 'nothing is sent again');

      const said = await runCli(['sync', '--config', f.configPath], { cwd: f.root, env: f.env });
      assert.equal(said.code, 0);
      assert.deepEqual(said.stdout.match(/guide\.md/g) ?? [], [], `the run after it has nothing to say of the file: ${said.stdout}`);
    });
  });
}
