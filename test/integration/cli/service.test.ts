import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { kbsyncBin, runCli } from '../../helpers/cli.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { systemdAnalyzeAvailable, verifyUserUnit } from '../../helpers/systemd-verify.js';
import { firstSweepDone, startDaemon } from '../daemon/daemon-process.js';

/** A home of the test's own (XDG_CONFIG_HOME in it), and a PATH with only `bin` (where a fake systemctl may go). */
async function sandbox(f: SyncFixture): Promise<{ readonly env: Record<string, string>; readonly config: string; readonly bin: string }> {
  const home = join(f.dir, 'home');
  const bin = join(f.dir, 'bin');
  await mkdir(bin, { recursive: true });
  await mkdir(home, { recursive: true });
  return { env: { ...f.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), PATH: bin }, config: join(home, 'config'), bin };
}

const service = (f: SyncFixture, env: Record<string, string | undefined>, ...args: string[]) => runCli(['service', ...args, '--config', f.configPath], { cwd: f.dir, env });

/** The unit file install wrote, found by its folder (its name holds a hash of the root). */
async function unitOf(out: string): Promise<{ readonly path: string; readonly name: string; readonly text: string }> {
  const path = /^Wrote (\S+\.service):/m.exec(out)?.[1];
  assert.ok(path, out);
  return { path, name: /([^/]+)\.service$/.exec(path)?.[1] ?? '', text: await readFile(path, 'utf8') };
}

function verified(t: { skip(message: string): void; diagnostic(message: string): void }, unit: string): void {
  if (!systemdAnalyzeAvailable()) {
    t.diagnostic('systemd-analyze is not installed: the unit text is asserted, `systemd-analyze verify` was skipped');
    return;
  }
  const result = verifyUserUnit(unit);
  assert.deepEqual([result.status, result.output], [0, ''], 'systemd-analyze --user verify: no error, no warning');
}

/** A fake systemctl: records each call's arguments, answers like a running user manager. */
const FAKE_SYSTEMCTL = (log: string) => `#!/bin/sh\necho "$*" >> '${log}'\ncase "$2" in is-active) echo active;; is-enabled) echo enabled;; esac\nexit 0\n`;

describe('kbsync service', () => {
  test('install without a user systemd: a unit with absolute node and kbsync paths, the config and root filled in, the token in a 0600 file; systemd-analyze verifies it', async (t) => {
    await withSyncFixture(async (f) => {
      const { env, config } = await sandbox(f);
      const run = await service(f, env, 'install');
      assert.equal(run.code, 0, run.stderr);
      const unit = await unitOf(run.stdout);
      assert.match(unit.name, /^kbsync-notes-[0-9a-f]{8}$/);
      assert.equal(unit.path, join(config, 'systemd', 'user', `${unit.name}.service`), 'in the user unit folder, made where it was missing');
      const execStart = /^ExecStart=(.*)$/m.exec(unit.text)?.[1];
      assert.equal(execStart, `${realpathSync(process.execPath)} ${realpathSync(kbsyncBin)} watch --config ${f.configPath}`);
      const tokenFile = join(config, 'kbsync', `${unit.name}.token`);
      assert.match(unit.text, new RegExp(`^Environment=KBSYNC_SERVICE_TOKEN_FILE=${tokenFile}$`, 'm'));
      assert.match(unit.text, new RegExp(`^WorkingDirectory=${f.dir}$`, 'm'));
      assert.match(unit.text, new RegExp(`^ReadWritePaths=${f.root}$`, 'm'));
      assert.match(unit.text, /^RestartPreventExitStatus=2 3$/m, 'a config error (no token) is not restarted every few seconds');
      assert.equal(await readFile(tokenFile, 'utf8'), `${f.env['KBSYNC_TOKEN']}\n`);
      assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
      assert.equal((await stat(join(config, 'kbsync'))).mode & 0o777, 0o700);
      assert.doesNotMatch(unit.text, new RegExp(f.env['KBSYNC_TOKEN'] ?? 'no token'), 'the token is not in the unit');
      // The team's state key, from KBSYNC_STATE_KEY, carried the same way.
      const keyFile = join(config, 'kbsync', `${unit.name}.state-key`);
      assert.match(unit.text, new RegExp(`^Environment=KBSYNC_STATE_KEY_FILE=${keyFile}$`, 'm'));
      assert.equal(await readFile(keyFile, 'utf8'), `${f.env['KBSYNC_STATE_KEY']}\n`);
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
      assert.doesNotMatch(unit.text, new RegExp(f.env['KBSYNC_STATE_KEY'] ?? 'no key'), 'the key is not in the unit');
      assert.match(run.stdout, new RegExp(`State key: wrote the team's key \\(fingerprint [0-9a-f]{16}\\) from KBSYNC_STATE_KEY to ${keyFile}`));
      assert.match(run.stdout, new RegExp(`systemd's user manager does not answer here, so nothing was started: run \`systemctl --user daemon-reload && systemctl --user enable --now ${unit.name}\``));
      assert.match(run.stdout, new RegExp(`Its log: journalctl --user -u ${unit.name} -f`));
      verified(t, unit.path);

      const status = await service(f, env, 'status');
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, new RegExp(`^${unit.name}: installed \\(${unit.path}\\)$`, 'm'));
      assert.match(status.stdout, /No kbsync watch runs for/);
    });
  });

  test('with a user systemd (a fake systemctl that records its calls): daemon-reload and enable --now; status asks it; uninstall disables it and removes both files', async () => {
    await withSyncFixture(async (f) => {
      const { env, bin } = await sandbox(f);
      const log = join(f.dir, 'systemctl.log');
      await writeFile(join(bin, 'systemctl'), FAKE_SYSTEMCTL(log), { mode: 0o755 });
      const run = await service(f, env, 'install');
      assert.equal(run.code, 0, run.stderr);
      const unit = await unitOf(run.stdout);
      assert.match(run.stdout, new RegExp(`Ran systemctl --user daemon-reload and systemctl --user enable --now ${unit.name}: it runs now and starts at every login\\.`));
      const status = await service(f, env, 'status');
      assert.match(status.stdout, /^systemd: active, enabled at login$/m);
      const removed = await service(f, env, 'uninstall');
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, new RegExp(`Stopped and disabled it \\(.*systemctl --user disable --now ${unit.name}\\)\\.`));
      assert.match(removed.stdout, /Removed .*\.service\.\nRemoved .*\.token\.\nRemoved .*\.state-key\./);
      const calls = (await readFile(log, 'utf8')).trim().split('\n');
      assert.deepEqual(calls.filter((call) => !call.endsWith('show-environment')), [
        '--user daemon-reload',
        `--user enable --now ${unit.name}`,
        `--user is-active ${unit.name}`,
        `--user is-enabled ${unit.name}`,
        `--user disable --now ${unit.name}`,
        '--user daemon-reload',
      ]);
      assert.match((await service(f, env, 'uninstall')).stdout, /No kbsync service is installed for this folder/);
    });
  });

  test("the unit's environment alone runs the daemon on a keyed team: the token and key files together, no variable of the shell", async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '# Alpha\n\nA.\n');
      assert.equal((await f.sync()).code, 0);
      const { env } = await sandbox(f);
      const run = await service(f, env, 'install');
      assert.equal(run.code, 0, run.stderr);
      const unit = await unitOf(run.stdout);
      const variables = Object.fromEntries([...unit.text.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
      assert.deepEqual(Object.keys(variables).sort(), ['KBSYNC_SERVICE_TOKEN_FILE', 'KBSYNC_STATE_KEY_FILE']);
      // As systemd starts it: the unit's variables, none of the shell's secrets.
      const d = startDaemon(f, { ...variables, KBSYNC_TOKEN: '', KBSYNC_STATE_KEY: '', XDG_CONFIG_HOME: join(f.dir, 'elsewhere') });
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        assert.ok(!d.logs.some((line) => /CONFIG_ENV_INVALID|STATE_KEY/.test(JSON.stringify(line))), d.stderr());
      } finally {
        d.kill('SIGTERM');
        assert.equal(await d.exited(), 0);
        await d.dispose();
      }
    });
  });

  test('a key kept in the workspace key file (as init and clone keep it) is read there by the service: no copy, no variable', async () => {
    await withSyncFixture(async (f) => {
      const { env, config } = await sandbox(f);
      await mkdir(join(config, 'kbsync'), { recursive: true });
      await writeFile(join(config, 'kbsync', `state-key-${f.em.seed.workspaceId}`), `${f.env['KBSYNC_STATE_KEY']}\n`, { mode: 0o600 });
      const run = await service(f, { ...env, KBSYNC_STATE_KEY: undefined }, 'install');
      assert.equal(run.code, 0, run.stderr);
      const unit = await unitOf(run.stdout);
      assert.doesNotMatch(unit.text, /KBSYNC_STATE_KEY/);
      assert.match(run.stdout, /State key: the service reads the team's key \(fingerprint [0-9a-f]{16}\) from the file .*state-key-/);
      const keyless = await service(f, { ...env, KBSYNC_STATE_KEY: undefined, XDG_CONFIG_HOME: join(f.dir, 'other') }, 'install');
      assert.equal(keyless.code, 0, keyless.stderr);
      assert.match(keyless.stdout, /State key: none .*if the team's shared state is signed, it stops \(exit 3\)/);
    });
  });

  test('a folder whose path holds a space and a % is quoted and escaped so systemd reads it as written', async (t) => {
    await withSyncFixture(async (f) => {
      const { env } = await sandbox(f);
      const odd = join(f.dir, 'odd dir 100%');
      await mkdir(join(odd, 'my notes'), { recursive: true });
      const configPath = join(odd, 'sync.config.json');
      await writeFile(configPath, (await readFile(f.configPath, 'utf8')).replace('"./notes"', '"./my notes"'));
      const run = await runCli(['service', 'install', '--config', configPath], { cwd: f.dir, env });
      assert.equal(run.code, 0, run.stderr);
      const unit = await unitOf(run.stdout);
      assert.match(unit.text, /^ExecStart=\S+ \S+ watch --config "[^"]*odd dir 100%%\/sync\.config\.json"$/m);
      assert.match(unit.text, /^ReadWritePaths="[^"]*odd dir 100%%\/my notes"$/m);
      verified(t, unit.path);
    });
  });

  test('without the token at hand, install writes nothing and says so (exit 2); a unit it did not write is never replaced', async () => {
    await withSyncFixture(async (f) => {
      const { env, config } = await sandbox(f);
      const missing = await service(f, { ...env, KBSYNC_TOKEN: '' }, 'install');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /KBSYNC_TOKEN.*\[TOKEN_MISSING\]/s);
      assert.equal(await readFile(join(config, 'systemd'), 'utf8').catch(() => 'none'), 'none', 'nothing written');

      const first = await service(f, env, 'install');
      const unit = await unitOf(first.stdout);
      await writeFile(unit.path, '[Service]\nExecStart=/bin/true\n');
      const foreign = await service(f, env, 'install');
      assert.equal(foreign.code, 2);
      assert.match(foreign.stderr, /was not written by kbsync service install, so it is left as it is.*\[SERVICE_NOT_OURS\]/s);
      assert.equal(await readFile(unit.path, 'utf8'), '[Service]\nExecStart=/bin/true\n');
    });
  });
});
