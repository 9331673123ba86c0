import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/index.js';
import { runCli } from '../../helpers/cli.js';
import { withEmulator, type RunningEmulator } from '../../helpers/emulator.js';
import { ptyAvailable, runInPty } from '../../helpers/pty.js';

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-init-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const serviceArgs = (em: RunningEmulator): string[] => ['--base-url', em.seed.baseUrl, '--operator-id', em.seed.operatorId];
const tokenEnv = (em: RunningEmulator) => ({ KBSYNC_TOKEN: em.seed.token, KBSYNC_STATE_KEY: '' });

test('init writes a valid config for the chosen workspace, refuses to overwrite it, and replaces it with --force', async () => {
  await withEmulator(async (em) => {
    await withDir(async (dir) => {
      const home = { XDG_CONFIG_HOME: join(dir, 'config-home') };
      const result = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId], { env: { ...tokenEnv(em), ...home } });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Wrote .*sync\.config\.json: "Team Docs"/);
      // The team's state key: made in a file of the user's own, found there without a setting, never printed.
      const keyFile = join(dir, 'config-home', 'kbsync', `state-key-${em.seed.workspaceId}`);
      const key = (await readFile(keyFile, 'utf8')).trim();
      assert.ok(key.length >= 40, 'a key of 32 random bytes');
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
      assert.doesNotMatch(result.stdout + result.stderr, new RegExp(key.replace(/[-_]/g, '.')), 'the key is not shown');
      assert.match(result.stdout, /state key .* is in .*state-key-.*readable by you alone[\s\S]*CI the same value as a secret/);
      const file = join(dir, 'sync.config.json');
      const written = await readFile(file, 'utf8');
      assert.doesNotMatch(written, new RegExp(em.seed.token), 'the token itself is never written');
      const { config } = await loadConfig({ path: file, cwd: dir, env: {} });
      assert.equal(config.workspaceId, em.seed.workspaceId);
      assert.equal(config.service.baseUrl, em.seed.baseUrl);
      assert.equal(config.service.operatorId, em.seed.operatorId);
      assert.deepEqual(config.service.token, { env: 'KBSYNC_TOKEN' });
      // No home folder in the config: committed, it works in CI with KBSYNC_STATE_KEY set.
      assert.equal(JSON.parse(written).state, undefined);
      assert.doesNotMatch(written, /state-key|config-home/);
      assert.deepEqual(config.state.key, { env: 'KBSYNC_STATE_KEY' });
      assert.equal(config.root, join(dir, 'docs'));
      await writeFile(join(dir, 'docs', 'a.md'), '# A\n\nA.\n');
      const ci = await runCli(['sync', '--push', '--json', '--config', file], { env: { KBSYNC_TOKEN: em.seed.token, KBSYNC_STATE_KEY: key, XDG_CONFIG_HOME: join(dir, 'ci-home') } });
      assert.equal(ci.code, 0, `${ci.stdout}\n${ci.stderr}`);
      // The workstation's next shell, without the variable, finds the key in its file: the same key reads the state.
      const doctor = await runCli(['doctor', '--config', file], { env: { ...tokenEnv(em), KBSYNC_STATE_KEY: undefined, ...home } });
      assert.equal(doctor.code, 0, `${doctor.stdout}\n${doctor.stderr}`);
      assert.match(doctor.stdout, /state key from the file ~?.*state-key-/);

      const again = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId], { env: tokenEnv(em) });
      assert.equal(again.code, 2);
      assert.match(again.stderr, /already exists.*--force.*\[CONFIG_EXISTS\]/s);
      assert.equal(await readFile(file, 'utf8'), written);

      const forced = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId, '--token-env', 'MY_TOKEN', '--force'], { env: { MY_TOKEN: em.seed.token, KBSYNC_STATE_KEY: '', ...home } });
      assert.equal(forced.code, 0, forced.stderr);
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')).service.token, { env: 'MY_TOKEN' });
      assert.equal((await readFile(keyFile, 'utf8')).trim(), key, 'the key made before stays the key');

      // A key in the environment is the team's: used as it is while it is set; another in the file is said.
      const keyed = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId, '--force'], { env: { KBSYNC_TOKEN: em.seed.token, KBSYNC_STATE_KEY: 'the-teams-key-0123456789abcdef', ...home } });
      assert.equal(keyed.code, 0, keyed.stderr);
      assert.equal(JSON.parse(await readFile(file, 'utf8')).state, undefined, 'the default (KBSYNC_STATE_KEY, else the file) reads it');
      assert.match(keyed.stdout, /The state key in KBSYNC_STATE_KEY \(fingerprint [0-9a-f]{16}\) is used while it is set; .*state-key-\S+ holds another/);
      // On a machine with no key file, the key in the environment is kept there for the next shell.
      const fresh = { XDG_CONFIG_HOME: join(dir, 'second-home') };
      const second = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId, '--force'], { env: { KBSYNC_TOKEN: em.seed.token, KBSYNC_STATE_KEY: key, ...fresh } });
      assert.equal(second.code, 0, second.stderr);
      assert.equal((await readFile(join(dir, 'second-home', 'kbsync', `state-key-${em.seed.workspaceId}`), 'utf8')).trim(), key);
      assert.match(second.stdout, /kept in .*state-key-.*where kbsync finds it when the variable is unset/);
    });
  });
});

test('init without a terminal: several workspaces need --workspace (exit 2, the list shown); no token is exit 2', async () => {
  await withEmulator(async (em) => {
    await withDir(async (dir) => {
      const ambiguous = await runCli(['init', '--dir', dir, ...serviceArgs(em)], { env: tokenEnv(em) });
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /2 workspaces; choose one with --workspace/);
      assert.match(ambiguous.stderr, new RegExp(em.seed.workspaceId));
      assert.match(ambiguous.stderr, /Second Space/);

      const noToken = await runCli(['init', '--dir', dir, ...serviceArgs(em), '--workspace', em.seed.workspaceId], { env: { KBSYNC_TOKEN: '' } });
      assert.equal(noToken.code, 2);
      assert.match(noToken.stderr, /KBSYNC_TOKEN.*\[TOKEN_MISSING\]/s);

      const noService = await runCli(['init', '--dir', dir], { env: tokenEnv(em) });
      assert.equal(noService.code, 2);
      assert.match(noService.stderr, /--base-url/);
    });
  });
});

test('init at a terminal without a token fails at once, before asking a question', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withDir(async (dir) => {
    const run = runInPty(['init', '--dir', dir], { cwd: dir, env: { KBSYNC_TOKEN: '', KBSYNC_SERVICE_BASE_URL: undefined, KBSYNC_SERVICE_OPERATOR_ID: undefined } });
    assert.equal(await run.done, 2, run.output());
    assert.match(run.output(), /KBSYNC_TOKEN.*\[TOKEN_MISSING\]/s);
    assert.doesNotMatch(run.output(), /base URL|unionId/, 'no question was asked');
  });
});

test('workspaces lists name, id and url, as text or JSON, from flags or from a config file', async () => {
  await withEmulator(async (em) => {
    await withDir(async (dir) => {
      const text = await runCli(['workspaces', ...serviceArgs(em)], { env: tokenEnv(em), cwd: dir });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`Team Docs\\s+${em.seed.workspaceId}\\s+${em.seed.workspaceUrl.replace(/[.?]/g, '\\$&')}`));
      assert.match(text.stdout, /Second Space/);

      await writeFile(join(dir, 'sync.config.json'), JSON.stringify({ workspaceId: em.seed.workspaceId, service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId } }));
      const json = await runCli(['workspaces', '--json'], { env: tokenEnv(em), cwd: dir });
      assert.equal(json.code, 0, json.stderr);
      const rows = JSON.parse(json.stdout) as { workspaceId: string; name: string; url: string }[];
      assert.deepEqual(rows.map((row) => row.name).sort(), ['Second Space', 'Team Docs']);
      assert.equal(rows.find((row) => row.name === 'Team Docs')?.url, em.seed.workspaceUrl);

      const wrongOperator = await runCli(['workspaces', '--operator-id', em.seed.userId], { env: tokenEnv(em), cwd: dir });
      assert.equal(wrongOperator.code, 4);
      assert.match(wrongOperator.stderr, /unionId, not the userId/);
    });
  });
});
