import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../../../src/shell/run-command.js';
import { registerSecret, registerSecretVariable, shareSecretsWithCommands } from '../../../src/secrets.js';

const env = { PATH: process.env.PATH };

/**
 * Is a process with this id still running? A killed orphan stays a zombie until an init reaps it (a
 * container's PID 1 may never do so): on Linux a zombie counts as ended.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

describe('running a user command', () => {
  test('a command that succeeds: ok, with what it printed; args are $1, $2… and name is $0', async () => {
    const outcome = await runCommand({ command: 'echo "$0:$1:$2"; echo warn >&2', name: 'kbsync-test', args: ['one', 'two words'], env, timeoutMs: 10_000 });
    assert.deepEqual(outcome, { ok: true, stdout: 'kbsync-test:one:two words\n', stderr: 'warn\n' });
  });

  test('the environment and the working folder are the ones given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kbsync-run-'));
    try {
      const outcome = await runCommand({ command: 'echo "$GREETING"; pwd -P', env: { ...env, GREETING: 'hello' }, timeoutMs: 10_000, cwd: dir });
      assert.ok(outcome.ok);
      const [greeting, cwd] = outcome.stdout.trim().split('\n');
      assert.equal(greeting, 'hello');
      assert.equal(cwd, await realpath(dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a command that fails: not ok, with its exit code and stderr in the failure', async () => {
    const outcome = await runCommand({ command: 'echo partial; echo "bucket not found" >&2; exit 3', env, timeoutMs: 10_000 });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure, 'it exited with code 3: bucket not found');
    assert.equal(outcome.stdout, 'partial\n');
    assert.equal(outcome.stderr, 'bucket not found\n');
  });

  test('a command killed by a signal says which', async () => {
    const outcome = await runCommand({ command: 'kill -TERM $$', env, timeoutMs: 10_000 });
    assert.ok(!outcome.ok);
    assert.match(outcome.failure, /SIGTERM/);
  });

  test('only the end of long output is kept', async () => {
    const outcome = await runCommand({ command: 'i=0; while [ $i -lt 200 ]; do printf "%03d," $i; i=$((i+1)); done', env, timeoutMs: 10_000, keepChars: 20 });
    assert.ok(outcome.ok);
    assert.equal(outcome.stdout, '195,196,197,198,199,');
  });

  test('a command that outlives the timeout is stopped with its whole process group, background children included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kbsync-run-'));
    try {
      const pids = join(dir, 'pids');
      const started = Date.now();
      // The background sleep keeps the output pipe open: if it survived, it would also hold the streams.
      const outcome = await runCommand({ command: `sleep 30 & echo $! > "${pids}"; sleep 30; wait`, env, timeoutMs: 300 });
      const elapsed = Date.now() - started;
      assert.ok(!outcome.ok);
      assert.equal(outcome.failure, 'it did not finish within 300 ms and was stopped');
      // Generous bound (a busy CI machine): the point is that it did not wait for the 30 s sleeps.
      assert.ok(elapsed < 10_000, `returned after ${elapsed} ms`);
      const background = Number((await readFile(pids, 'utf8')).trim());
      assert.ok(background > 0);
      // SIGKILL is delivered asynchronously: give the kernel a moment before asking.
      for (let i = 0; i < 50 && alive(background); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(alive(background), false, 'the background sleep was left running');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('kbsync is stopping (its signal aborts): the command is stopped with its process group', async () => {
    const controller = new AbortController();
    const outcome = runCommand({ command: 'echo started; sleep 30', env, timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const ended = await outcome;
    assert.ok(!ended.ok);
    assert.equal(ended.failure, 'it was stopped because kbsync is stopping');
  });

  test("kbsync's secrets never reach a command's environment, unless service.shareToken asks for it", async (t) => {
    const token = 'tok-in-env-0123456789abcdef';
    registerSecret(token);
    registerSecretVariable('TEAM_KB_TOKEN');
    const given = { ...env, KBSYNC_TOKEN: token, TEAM_KB_TOKEN: 'another-secret-value', COPY: `Bearer ${token}`, KBSYNC_SERVICE_TOKEN_VALUE: 'v', HARMLESS: 'kept' };
    const print = 'echo "[$KBSYNC_TOKEN][$TEAM_KB_TOKEN][$COPY][$KBSYNC_SERVICE_TOKEN_VALUE][$HARMLESS]"';
    const scrubbed = await runCommand({ command: print, env: given, timeoutMs: 10_000 });
    assert.deepEqual(scrubbed, { ok: true, stdout: '[][][][][kept]\n', stderr: '' });
    shareSecretsWithCommands(true);
    t.after(() => shareSecretsWithCommands(false));
    const shared = await runCommand({ command: print, env: given, timeoutMs: 10_000 });
    assert.equal(shared.ok && shared.stdout, `[${token}][another-secret-value][Bearer ${token}][v][kept]\n`);
  });
});
