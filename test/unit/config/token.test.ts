import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { createTokenSource } from '../../../src/config/index.js';
import { redact } from '../../../src/secrets.js';
import { tempDir } from './helpers.js';

describe('createTokenSource', () => {
  test('from an environment variable, registered as a secret', async () => {
    const token = 'env-token-abcdef123456';
    const source = createTokenSource({ env: 'MY_TOKEN' }, { env: { MY_TOKEN: ` ${token}\n` } });
    assert.equal(await source.get(), token);
    assert.equal(redact(`Authorization: ${token}`), 'Authorization: [redacted]');
    assert.match(source.description, /environment variable MY_TOKEN/);
  });

  test('a missing or empty variable names it and says what to do', async () => {
    for (const env of [{}, { KBSYNC_TOKEN: '  ' }]) {
      await assert.rejects(createTokenSource({ env: 'KBSYNC_TOKEN' }, { env }).get(), {
        code: 'TOKEN_MISSING',
        message: /environment variable KBSYNC_TOKEN.*export KBSYNC_TOKEN=/,
      });
    }
  });

  test('from a file: trimmed, ~ expanded, relative to the config folder; refresh re-reads it', async (t) => {
    const dir = await tempDir(t);
    await fsp.mkdir(path.join(dir, 'home'));
    await fsp.writeFile(path.join(dir, 'home', 'token'), 'file-token-one-0001\n');
    const source = createTokenSource({ file: '~/token' }, { env: { HOME: path.join(dir, 'home') } });
    assert.equal(await source.get(), 'file-token-one-0001');
    await fsp.writeFile(path.join(dir, 'home', 'token'), 'file-token-two-0002');
    assert.equal(await source.get(), 'file-token-one-0001', 'cached until refreshed');
    assert.equal(await source.refresh(), 'file-token-two-0002');
    const relative = createTokenSource({ file: 'home/token' }, { cwd: dir, env: {} });
    assert.equal(await relative.get(), 'file-token-two-0002');
    await assert.rejects(createTokenSource({ file: 'missing' }, { cwd: dir, env: {} }).get(), { code: 'TOKEN_MISSING', message: /missing: ENOENT/ });
    await fsp.writeFile(path.join(dir, 'empty'), '\n');
    await assert.rejects(createTokenSource({ file: 'empty' }, { cwd: dir, env: {} }).get(), { code: 'TOKEN_MISSING', message: /file .*empty/ });
  });

  test('from a command: first line of its output; refresh runs it again', async (t) => {
    const dir = await tempDir(t);
    const counter = path.join(dir, 'count');
    await fsp.writeFile(counter, '0');
    // Each run increments the counter and prints a new token, then a metadata line as `pass show` does.
    const command = `n=$(($(cat "${counter}") + 1)); echo $n > "${counter}"; echo "cmd-token-000$n"; echo "user: me"`;
    const source = createTokenSource({ command }, { env: { PATH: process.env['PATH'] } });
    assert.equal(await source.get(), 'cmd-token-0001');
    assert.equal(await source.get(), 'cmd-token-0001');
    assert.equal(await source.refresh(), 'cmd-token-0002');
    assert.equal(await source.get(), 'cmd-token-0002');
    // Concurrent refreshes (many requests saw "expired") run the command once.
    const [a, b] = await Promise.all([source.refresh(), source.refresh()]);
    assert.equal(a, 'cmd-token-0003');
    assert.equal(b, 'cmd-token-0003');
    assert.equal((await fsp.readFile(counter, 'utf8')).trim(), '3');
  });

  test('a failing, silent or slow command is TOKEN_COMMAND_FAILED / TOKEN_MISSING with a redacted reason', async () => {
    const env = { PATH: process.env['PATH'] };
    await assert.rejects(createTokenSource({ command: 'echo "no such entry" >&2; exit 3' }, { env }).get(), {
      code: 'TOKEN_COMMAND_FAILED',
      message: /failed \(exit code 3\): no such entry/,
    });
    await assert.rejects(createTokenSource({ command: 'true' }, { env }).get(), { code: 'TOKEN_MISSING', message: /command "true" gave none/ });
    await assert.rejects(createTokenSource({ command: 'sleep 5' }, { env, commandTimeoutMs: 200 }).get(), {
      code: 'TOKEN_COMMAND_FAILED',
      message: /did not finish within 0.2 s/,
    });
  });

  test('a failing command that echoes the token it could not deliver: the token is masked, the rest of what it said kept', async () => {
    const env = { PATH: process.env['PATH'] };
    // Made by the command, so that only its output can show it: on stderr only, then on stdout too.
    const make = 't=tok9f8e7d6c; t="${t}5b4a39281706"';
    await assert.rejects(createTokenSource({ command: `${make}; echo "vault: token $t expired, run: vault login -method=oidc" >&2; exit 2` }, { env }).get(), (error: Error) => {
      assert.equal((error as { code?: string }).code, 'TOKEN_COMMAND_FAILED');
      assert.doesNotMatch(error.message, /tok9f8e7d6c5b4a39281706/);
      assert.match(error.message, /vault: token \[redacted\] expired, run: vault login -method=oidc/);
      return true;
    });
    const other = 'out-token-1a2b3c4d5e';
    await assert.rejects(createTokenSource({ command: `t=out-token-; echo "\${t}1a2b3c4d5e"; exit 1` }, { env }).get(), { code: 'TOKEN_COMMAND_FAILED' });
    // What it printed on stdout before failing is a secret from then on, wherever it turns up.
    assert.equal(redact(`header ${other}`), 'header [redacted]');
  });

  test('the token command gets no KBSYNC_TOKEN from the environment, and is stopped when kbsync stops', async () => {
    const env = { PATH: process.env['PATH'], KBSYNC_TOKEN: 'the-other-token-123456' };
    assert.equal(await createTokenSource({ command: 'echo "got-${KBSYNC_TOKEN:-none}-000"' }, { env }).get(), 'got-none-000');
    const controller = new AbortController();
    const reason = new Error('kbsync is stopping');
    const pending = createTokenSource({ command: 'sleep 30' }, { env, signal: controller.signal }).get();
    setTimeout(() => controller.abort(reason), 100);
    await assert.rejects(pending, (error: unknown) => error === reason);
  });

  test('a token with a line break or control character is refused (it could inject headers)', async () => {
    await assert.rejects(createTokenSource({ value: 'abc\r\nX-Evil: 1' }).get(), { code: 'TOKEN_INVALID' });
  });

  test('a literal value works', async () => {
    assert.equal(await createTokenSource({ value: 'literal-value-0001' }).get(), 'literal-value-0001');
  });
});
