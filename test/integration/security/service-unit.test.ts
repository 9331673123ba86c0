import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchdPlist } from '../../../src/cli/service/launchd-plist.js';
import { serviceSpec, type ServiceSpec } from '../../../src/cli/service/spec.js';
import { systemdUnit } from '../../../src/cli/service/systemd-unit.js';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { systemdAnalyzeAvailable, verifyUserUnit } from '../../helpers/systemd-verify.js';

/**
 * `kbsync service install` writes paths (the folder, its config, node, kbsync, the token file) into a systemd
 * unit or a launchd agent, which a service manager then runs. A path is a name anyone who shares a repository
 * or a drive may have chosen: it must never add a line to the unit (`ExecStartPre=` runs a command at
 * `systemctl --user enable --now`), and every path must reach the manager exactly as written.
 */

const base: ServiceSpec = {
  name: 'kbsync-notes-0123abcd',
  root: '/home/me/notes',
  configPath: '/home/me/notes/sync.config.json',
  node: '/usr/bin/node',
  entry: '/usr/lib/node_modules/kbsync/bin/kbsync.js',
  writable: ['/home/me/notes'],
  tokenFile: '/home/me/.config/kbsync/kbsync-notes-0123abcd.token',
  keyFile: '/home/me/.config/kbsync/kbsync-notes-0123abcd.state-key',
  readme: '/usr/lib/node_modules/kbsync/README.md',
};

const gone = (file: string): Promise<boolean> => access(file).then(() => false, () => true);

describe('a path with a control character never reaches a unit file', () => {
  test('a folder whose name holds a newline and an ExecStartPre= line: install refuses (exit 2), names the path, writes nothing', async () => {
    await withSyncFixture(async (f) => {
      const home = join(f.dir, 'home');
      await mkdir(home);
      const env = { ...f.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), PATH: join(f.dir, 'no-bin') };
      const evil = join(f.dir, 'notes\nExecStartPre=/bin/touch /tmp/kbsync-pwned\n#');
      await mkdir(evil, { recursive: true });
      const configPath = join(evil, 'sync.config.json');
      await writeFile(configPath, (await readFile(f.configPath, 'utf8')).replace('"./notes"', '"."'));
      const run = await runCli(['service', 'install', '--no-start', '--config', configPath], { cwd: f.dir, env });
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stderr, /\[SERVICE_PATH_UNSAFE\]/);
      assert.match(run.stderr, /notes\\u000aExecStartPre=\/bin\/touch \/tmp\/kbsync-pwned\\u000a#/, 'the path, its newlines shown escaped');
      assert.match(run.stderr, /line break or other control character/);
      assert.match(run.stderr, /[Rr]ename/, 'says what to do');
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${JSON.stringify(run.stderr)}`);
      assert.ok(await gone(join(home, 'config', 'systemd')), 'no unit written');
      assert.ok(await gone(join(home, 'config', 'kbsync')), 'no token file written');
    });
  });


  for (const [what, char] of [
    ['a carriage return', '\r'],
    ['a tab', '\t'],
    ['a NUL', '\0'],
    ['an escape', '\x1b'],
    ['DEL', '\x7f'],
    ['a C1 control (NEL)', '\x85'],
  ] as const) {
    test(`${what} in any path of the spec is refused, naming which path`, () => {
      for (const [field, label] of [
        ['root', 'the synced folder'],
        ['configPath', 'the config file'],
        ['tokenFile', 'the token file'],
        ['keyFile', 'the state key file'],
        ['stateDir', 'the state folder'],
      ] as const) {
        const input = { root: base.root, stateDir: '/srv/state', configPath: base.configPath, tokenFile: base.tokenFile, keyFile: base.keyFile, [field]: `/home/me/odd${char}name` };
        assert.throws(
          () => serviceSpec(input),
          (error: Error & { code?: string }) => error.code === 'SERVICE_PATH_UNSAFE' && error.message.includes(label) && error.message.includes('/home/me/odd\\u00'),
          `${field} with ${what}`,
        );
      }
      // The agent's log file (beside the token file, under the home folder) is written into the plist too.
      assert.throws(() => launchdPlist(base, 'com.kbsync.notes-0123abcd', `/Users/odd${char}home/kbsync.log`), (error: Error & { code?: string }) => error.code === 'SERVICE_PATH_UNSAFE' && error.message.includes('the log file'));
    });
  }
});

describe('every path reaches the service manager exactly as written', () => {
  // Legal in a file name, and each meaningful somewhere in a unit or a plist.
  const ODD = ['sp ace', 'pct 100%n', 'dollar $HOME ${X}', 'quote "q" \'s', 'back\\slash', 'semi ;', 'dash -- -->', 'xml <&>', 'trail\\', 'trailing space '];

  test('systemd: `systemd-analyze --user verify` reads a unit whose node, kbsync, config and folder paths hold each odd character', async (t) => {
    if (!systemdAnalyzeAvailable()) return t.skip('systemd-analyze is not installed');
    const dir = await mkdtemp(join(tmpdir(), 'kbsync-unit-'));
    try {
      const plainNode = join(dir, 'bin', 'node');
      await mkdir(join(dir, 'bin'));
      await symlink(process.execPath, plainNode);
      for (const odd of ODD) {
        // node at the odd path, for real: verify fails when ExecStart's program is not an executable there.
        const folder = join(dir, odd);
        await mkdir(folder, { recursive: true });
        const node = join(folder, 'node');
        await symlink(process.execPath, node);
        const spec = serviceSpec({ root: folder, stateDir: join(folder, '.kbsync'), configPath: join(folder, 'sync.config.json'), tokenFile: join(folder, 't.token'), keyFile: join(folder, 't.state-key') });
        const unit = join(dir, `kbsync-odd-${ODD.indexOf(odd)}.service`);
        if (/["'\\]/.test(odd)) {
          // systemd runs no program whose path holds these: refused, with node elsewhere the rest is verified.
          assert.throws(() => systemdUnit({ ...spec, node }), (error: Error & { code?: string }) => error.code === 'SERVICE_PATH_UNSAFE' && /systemd runs no program whose path holds a quote or a backslash/.test(error.message));
          await writeFile(unit, systemdUnit({ ...spec, node: plainNode }));
        } else await writeFile(unit, systemdUnit({ ...spec, node }));
        const result = verifyUserUnit(unit);
        assert.deepEqual([result.status, result.output], [0, ''], `${JSON.stringify(odd)}: ${result.output}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('systemd: a path ending in a backslash or a space keeps the next line and the path (no continuation, nothing stripped)', () => {
    for (const folder of ['/home/me/notes\\', '/home/me/notes ']) {
      const unit = systemdUnit({ ...base, root: folder, configPath: `${folder}/sync.config.json`, writable: [folder] });
      const working = /^WorkingDirectory=(.*)$/m.exec(unit)?.[1] ?? '';
      assert.ok(!working.endsWith('\\') && !working.endsWith(' '), `WorkingDirectory= ends the line cleanly: ${JSON.stringify(working)}`);
      assert.match(unit, /^ExecStart=/m);
      for (const line of unit.split('\n')) assert.ok(!line.endsWith('\\'), `no line continues onto the next: ${JSON.stringify(line)}`);
    }
  });

  test('systemd: Documentation= is one URL (a space or a % in the package path is encoded, then escaped as a specifier)', () => {
    const unit = systemdUnit({ ...base, readme: '/opt/my tools 100%/kbsync/README.md' });
    assert.match(unit, /^Documentation=file:\/\/\/opt\/my%%20tools%%20100%%25\/kbsync\/README\.md$/m);
  });

  test('launchd: a plist whose paths hold each odd character parses (plistlib) to exactly those paths', (t) => {
    if (spawnSync('python3', ['-c', 'import plistlib'], { stdio: 'ignore' }).status !== 0) return t.skip('python3 is not installed');
    for (const odd of ODD) {
      const folder = `/Users/me/${odd}`;
      const spec: ServiceSpec = { ...base, root: folder, configPath: `${folder}/sync.config.json`, writable: [folder], tokenFile: `${folder}/t.token` };
      const plist = launchdPlist(spec, 'com.kbsync.odd-0123abcd', `${folder}/kbsync.log`);
      const read = spawnSync('python3', ['-c', 'import plistlib, sys, json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], { input: plist, encoding: 'utf8' });
      assert.equal(read.status, 0, `${JSON.stringify(odd)}: ${read.stderr}`);
      const parsed = JSON.parse(read.stdout) as { ProgramArguments: string[]; WorkingDirectory: string; EnvironmentVariables: Record<string, string>; StandardErrorPath: string };
      assert.deepEqual(parsed.ProgramArguments, [base.node, base.entry, 'watch', '--config', spec.configPath]);
      assert.equal(parsed.WorkingDirectory, folder);
      assert.equal(parsed.EnvironmentVariables['KBSYNC_SERVICE_TOKEN_FILE'], spec.tokenFile);
      assert.equal(parsed.StandardErrorPath, `${folder}/kbsync.log`);
    }
  });
});
