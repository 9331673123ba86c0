import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ptyAvailable, runInPty, screen } from '../../helpers/pty.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !ready(); i += 1) await sleep(25);
  assert.ok(ready(), `timed out waiting for ${what}`);
}

test('watch at a terminal, at info: one line per edit', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(
    async (f) => {
      await f.write('a.md', '# A\n\nOne.\n');
      await f.write('b.md', '# B\n\nTwo.\n');
      assert.equal((await f.sync()).code, 0);

      const daemon = runInPty(['watch', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, KBSYNC_LOG_LEVEL: 'info' } });
      try {
        // At start, the folder's state: in step, so nothing more.
        await until(() => daemon.output().includes('in step with "Team Docs"'), 'the daemon to start');
        const before = screen(daemon.output()).lines.length;
        await appendFile(join(f.root, 'a.md'), '\nAppended.\n');
        await until(() => daemon.output().includes('a.md: sent to the knowledge base'), 'the edit to be sent');
        await sleep(500); // anything else said about that edit would come now
        const lines = screen(daemon.output()).lines.slice(before);
        assert.deepEqual(
          lines.map((line) => line.replace(/^\[\d\d:\d\d:\d\d\] /, '')),
          ['INFO: a.md: sent to the knowledge base'],
          'one line for one edit, with no field dump under it',
        );
      } finally {
        daemon.child.kill('SIGTERM');
        await daemon.done;
      }
      assert.equal(f.remoteDoc('A').markdown, '# A\n\nOne.\n\nAppended.\n');
    },
    { config: { watch: { debounceMs: 100, pollBudgetPerHour: 0 } } },
  );
});

test('watch without a token refuses to start (exit 2, the reason said): a service manager shows it failed instead of running and failing', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nOne.\n');
    assert.equal((await f.sync()).code, 0);
    const daemon = runInPty(['watch', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, KBSYNC_TOKEN: '' } });
    assert.equal(await daemon.done, 2, daemon.output());
    assert.match(daemon.output(), /The access token is missing.*KBSYNC_TOKEN.*\[TOKEN_MISSING\]/s);
    assert.equal(await f.exists('.kbsync/ledger.sqlite.lock'), false, 'it never took the folder');
  });
});

test('watch: one outage (a rejected token) is said once, whether a cycle or a file meets it; the repeats are at debug', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(
    async (f) => {
      await f.write('a.md', '# A\n\nOne.\n');
      assert.equal((await f.sync()).code, 0);
      const daemon = runInPty(['watch', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, KBSYNC_TOKEN: 'at-not-a-token-at-all', KBSYNC_LOG_LEVEL: 'debug' } });
      try {
        await until(() => /cycle failed: The service rejected the access token/.test(daemon.output()), 'the start to fail');
        await appendFile(join(f.root, 'a.md'), '\nAppended.\n');
        await until(() => /a\.md: push failed: The service rejected the access token/.test(daemon.output()), 'the edit to meet the same failure');
      } finally {
        daemon.child.kill('SIGTERM');
        await daemon.done;
      }
      const said = screen(daemon.output()).lines.filter((line) => /^\[[\d:]+\] (WARN|ERROR): .*rejected the access token/.test(line));
      assert.equal(said.length, 1, `said once at warn or error:\n${said.join('\n')}`);
    },
    { config: { watch: { debounceMs: 100, pollBudgetPerHour: 0 } } },
  );
});
