import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { configOf, createCaseFixture, OutputLog, writeConfig, type CaseFixture } from '../../helpers/bad-input.js';
import { echoHeaders, startOddServer } from '../../helpers/odd-servers.js';
import { filesHolding } from '../../helpers/secret-scan.js';

/** Design rule 9: the token never appears in a log, an error, the ledger, a backup or a stack trace. */
const DEBUG = { KBSYNC_LOG_LEVEL: 'debug', KBSYNC_DEBUG: '1' };

const exists = (abs: string): Promise<boolean> =>
  access(abs).then(
    () => true,
    () => false,
  );

async function withFixture(fn: (f: CaseFixture, outputs: OutputLog) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const outputs = new OutputLog();
  // Each run in a process of its own: the secrets a run registers to mask are its process's, and runs
  // sharing this one would mask a token that a run under test forgot to register.
  const f = await createCaseFixture(em, outputs, { process: true });
  try {
    await fn(f, outputs);
  } finally {
    await f.close();
    await em.close();
  }
}

/** Every file kbsync wrote (ledger and its WAL, backups, trash, conflict copies, notes): none holds a token. */
async function assertNoFileHolds(f: CaseFixture, secrets: readonly string[], allowed: readonly string[] = []): Promise<void> {
  const holding = await filesHolding(f.dir, secrets, (rel) => allowed.includes(rel));
  assert.deepEqual(holding, [], 'these files hold the token');
}

describe('the access token never leaves the process', () => {
  test('not in the output, debug logs, ledger (with its WAL), backups, trash, --json reports or crash output of a busy session', async () => {
    await withFixture(async (f, outputs) => {
      const secrets = [f.em.seed.token, f.em.seed.readOnlyToken];
      await f.write('a.md', '# A\n\nOne.\n\nTwo.\n');
      await f.write('b.md', '# B\n\nShared paragraph.\n');
      await f.write('c.md', '# C\n\nTo be deleted remotely.\n');
      // A tight rate limit makes the client log its throttling at debug level.
      f.em.admin.setRateLimit(2);
      const first = await f.cli(['sync'], DEBUG);
      f.em.admin.setRateLimit(0);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /"level":20.*throttled/, 'the run must have logged at debug level for this test to mean anything');

      // A merge (remote backup), a conflict (conflict copy), a remote delete (local trash).
      f.em.admin.editDocument(f.remoteDoc('A').dentryUuid, '# A\n\nOne, remote.\n\nTwo.\n');
      await f.write('a.md', '# A\n\nOne.\n\nTwo, local.\n');
      f.em.admin.editDocument(f.remoteDoc('B').dentryUuid, '# B\n\nShared paragraph, theirs.\n');
      await f.write('b.md', '# B\n\nShared paragraph, mine.\n');
      f.em.admin.deleteNode(f.remoteDoc('C').dentryUuid);
      // --force: a.md's merge overwrites the colleague's plain-read edit rather than waiting for a word (FLATTEN).
      const busy = await f.sync(['--force'], DEBUG);
      // 1: the conflict is held for a person.
      assert.equal(busy.code, 1, busy.stderr);
      assert.equal(busy.report?.conflicts.length, 1);
      assert.ok(await exists(join(f.root, '.kbsync', 'backups')));
      assert.ok(await exists(join(f.root, '.kbsync', 'trash')));

      const status = await f.cli(['status', '--json'], DEBUG);
      assert.ok(status.code === 0 || status.code === 1, status.stderr);

      // Killed right after an overwrite: the ledger's WAL is left as the crash left it.
      await f.write('a.md', '# A\n\nOne, remote.\n\nTwo, local, again.\n');
      const crashed = await f.sync([], { ...DEBUG, KBSYNC_CRASH_AT: 'after-overwrite' });
      assert.equal(crashed.signal, 'SIGKILL');
      assert.ok(await exists(join(f.root, '.kbsync', 'ledger.sqlite-wal')), 'a crash leaves the WAL behind');
      await assertNoFileHolds(f, secrets);
      const recovered = await f.sync([], DEBUG);
      // 1: b.md's conflict still waits for a person; nothing failed.
      assert.equal(recovered.code, 1, recovered.stderr);
      assert.ok(recovered.report?.results.every((r) => r.ok), JSON.stringify(recovered.report?.results));

      // Refused with the read-only token: an error message and a stack trace (KBSYNC_DEBUG).
      await f.write('d.md', '# D\n\nNew.\n');
      const refused = await f.cli(['sync', '--push'], { ...DEBUG, KBSYNC_TOKEN: f.em.seed.readOnlyToken });
      assert.equal(refused.code, 4, refused.stderr);
      assert.match(refused.stderr, /"level":20.*action failed/, 'the failure is logged with its error object');
      assert.match(refused.stderr, /\n\s+at /, 'KBSYNC_DEBUG prints the stack');

      await assertNoFileHolds(f, secrets);
      assert.ok(outputs.size >= 6);
      assert.deepEqual(outputs.leaks(), [], 'these commands printed a token');
    });
  });

  test('not even when the service repeats the request headers back in its error message', async () => {
    await withFixture(async (f, outputs) => {
      const echo = await startOddServer(echoHeaders);
      try {
        await writeConfig(f, configOf(f, (c) => (c.service['baseUrl'] = echo.url)));
        await f.write('a.md', '# A\n\nx\n');
        const run = await f.cli(['sync'], DEBUG);
        assert.equal(run.code, 4, run.stderr);
        assert.ok(echo.requests > 0);
        assert.match(run.stderr, /\[redacted\]/, 'the echoed header is in the message, masked');
        assert.match(run.stderr, /\n\s+at /, 'KBSYNC_DEBUG prints the stack');
        assert.deepEqual(outputs.leaks(), []);
      } finally {
        await echo.close();
      }
    });
  });

  test('a token from a config value, a file or a command is masked the same way', async () => {
    await withFixture(async (f, outputs) => {
      const token = f.em.seed.token;
      const tokenFile = join(f.dir, 'token');
      await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
      await f.write('a.md', '# A\n\nx\n');
      const sources: Record<string, unknown>[] = [{ value: token }, { file: './token' }, { command: `cat ${tokenFile}` }];
      for (const [i, source] of sources.entries()) {
        await writeConfig(f, configOf(f, (c) => (c.service['token'] = source)));
        await chmod(f.configPath, 0o600);
        await f.write('a.md', `# A\n\nedit ${i}\n`);
        const ok = await f.cli(['sync'], DEBUG);
        assert.equal(ok.code, 0, ok.stderr);
        // The same source on a service that echoes headers: the message is shown, the token masked.
        const echo = await startOddServer(echoHeaders);
        try {
          await writeConfig(f, configOf(f, (c) => ((c.service['token'] = source), (c.service['baseUrl'] = echo.url))));
          await chmod(f.configPath, 0o600);
          const failed = await f.cli(['sync'], DEBUG);
          assert.equal(failed.code, 4, failed.stderr);
          assert.match(failed.stderr, /\[redacted\]/);
        } finally {
          await echo.close();
        }
      }
      assert.deepEqual(outputs.leaks(), []);
      // The config (literal value) and the token file hold it by design; nothing else kbsync wrote does.
      await assertNoFileHolds(f, [token], ['sync.config.json', 'token']);
    });
  });
});
