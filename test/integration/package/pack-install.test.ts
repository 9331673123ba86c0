import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeCachePath } from '../../../src/cli/code-cache.js';
import { systemdAnalyzeAvailable, verifyUserUnit } from '../../helpers/systemd-verify.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

type Lock = { packages: Record<string, { dev?: boolean; version?: string; [key: string]: unknown }> };
type PackResult = { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];

/** npm as a user runs it: without the npm_* variables of the `npm test` that may be running this file. */
function npm(args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  const result = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(result.status, 0, `npm ${args.join(' ')}: ${result.stderr}`);
  return result;
}

/**
 * A project that depends on the tarball alone, locked to the versions this repository's lockfile holds
 * for kbsync's runtime dependencies (its dev entries dropped). `npm ci --offline` then installs it from
 * the cache `npm ci` filled, with no registry, exactly as `npm install <tarball>` would lay it out.
 */
async function consumer(dir: string, tarball: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as Lock;
  const own = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
  const integrity = `sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`;
  const spec = `file:${tarball}`;
  const packages: Lock['packages'] = {
    '': { name: 'consumer', dependencies: { kbsync: spec } },
    'node_modules/kbsync': { version: own['version'] as string, resolved: spec, integrity, dependencies: own['dependencies'], bin: own['bin'], engines: own['engines'] },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: { kbsync: spec } }));
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }));
}

test('the npm pack tarball is small, holds what a user needs and nothing else, installs offline, and runs `kbsync demo` from any folder', async () => {
  const work = await mkdtemp(join(tmpdir(), 'kbsync-pack-'));
  try {
    // `npm test` has just built dist/: the pack's prepack finds that build current and makes no other.
    const manifest = await readFile(join(repo, 'package.json'), 'utf8');
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], repo).stdout) as PackResult;
    assert.ok(packed);
    assert.equal(await readFile(join(repo, 'package.json'), 'utf8'), manifest, 'the pack leaves package.json as it was');
    // npm warns of every package whose manifest has an install-time script ("not yet covered by allowScripts"):
    // the tarball's has none, though `npm ci` in a clone and an install from git build through `prepare`.
    assert.equal((JSON.parse(manifest) as { scripts: Record<string, string> }).scripts['prepare'], 'npm run build');
    const tar = spawnSync('tar', ['-xOzf', join(work, packed.filename), 'package/package.json'], { encoding: 'utf8' });
    const scripts = Object.keys((JSON.parse(tar.stdout) as { scripts?: Record<string, string> }).scripts ?? {});
    assert.deepEqual(scripts.filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name)), [], 'no install-time script in the tarball');
    const files = packed.files.map((file) => file.path);
    for (const needed of ['bin/kbsync.js', 'dist/cli/bundle/kbsync.cjs', 'dist/index.js', 'dist/index.d.ts', 'examples/demo-notes/welcome.md', 'README.md', 'schema/sync.config.schema.json', 'sync.config.example.json', 'systemd/kbsync.service']) {
      assert.ok(files.includes(needed), `the tarball has ${needed}`);
    }
    assert.deepEqual(files.filter((file) => /^(test|src|bench|scripts)\/|\.map$|\.tsbuildinfo$/.test(file)), [], 'no tests, sources, benchmarks or source maps');
    // The suite's own CLI runs have left a code cache beside this build's bundle: it is this machine's, not the package's.
    assert.deepEqual(files.filter((file) => file.startsWith('dist/cli/bundle/')), ['dist/cli/bundle/kbsync.cjs'], 'the bundle alone: no code cache, nothing of earlier builds');
    assert.ok(packed.size < 1_500_000, `packed size ${packed.size} bytes`);

    const prefix = join(work, 'prefix');
    await mkdir(prefix);
    await consumer(prefix, join(work, packed.filename));
    npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], prefix);
    // better-sqlite3 compiles or downloads its addon at install; the scripts were skipped for speed and to stay
    // offline, so it gets the one `npm ci` built here (same Node, same machine).
    const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    await mkdir(join(prefix, addon, '..'), { recursive: true });
    await copyFile(join(repo, addon), join(prefix, addon));

    const elsewhere = join(work, 'elsewhere');
    await mkdir(elsewhere);
    const kbsync = join(prefix, 'node_modules', '.bin', 'kbsync');
    const version = spawnSync(kbsync, ['--version'], { cwd: elsewhere, encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), (JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { version: string }).version);
    const bundle = join(prefix, 'node_modules', 'kbsync', 'dist', 'cli', 'bundle', 'kbsync.cjs');
    assert.ok(existsSync(codeCachePath(bundle)), 'the first run keeps its compiled code beside the installed bundle');
    const demo = spawnSync(kbsync, ['demo', '--no-open'], { cwd: elsewhere, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env['PATH'], HOME: elsewhere } });
    assert.equal(demo.status, 0, demo.stderr + demo.stdout);
    assert.match(demo.stdout, /welcome\.md\s+http:\/\/127\.0\.0\.1:\d+\/i\/nodes\/\w+/);

    // `kbsync service install` from this install: its unit runs node and this very copy of kbsync by their
    // absolute paths, so it starts without the shell's PATH (a prefix install, nvm), and systemd accepts it.
    const home = join(work, 'home');
    const configFile = join(elsewhere, 'sync.config.json');
    await mkdir(join(elsewhere, 'docs'));
    await writeFile(configFile, JSON.stringify({ root: './docs', workspaceId: 'ws-1', service: { baseUrl: 'http://127.0.0.1:9', operatorId: 'u-1' } }));
    const serviceEnv = { PATH: process.env['PATH'], HOME: home, XDG_CONFIG_HOME: join(home, 'config'), KBSYNC_TOKEN: 'at-a-token-for-the-service' };
    const installed = spawnSync(kbsync, ['service', 'install', '--no-start', '--config', configFile], { cwd: elsewhere, encoding: 'utf8', env: serviceEnv });
    assert.equal(installed.status, 0, installed.stderr);
    const unitFile = /^Wrote (\S+\.service):/m.exec(installed.stdout)?.[1] ?? '';
    const [node = '', entry = '', ...rest] = (/^ExecStart=(.*)$/m.exec(await readFile(unitFile, 'utf8'))?.[1] ?? '').split(' ');
    assert.equal(entry, realpathSync(join(prefix, 'node_modules', 'kbsync', 'bin', 'kbsync.js')), 'the installed copy, by its absolute path');
    assert.ok(isAbsolute(node), node);
    assert.deepEqual(rest, ['watch', '--config', configFile]);
    const bare = spawnSync(node, [entry, '--version'], { cwd: '/', encoding: 'utf8', env: {} });
    assert.equal(bare.status, 0, `ExecStart's node and kbsync run with an empty environment: ${bare.stderr}`);
    assert.equal(bare.stdout.trim(), version.stdout.trim());
    if (systemdAnalyzeAvailable()) assert.deepEqual(Object.values(verifyUserUnit(unitFile)), [0, ''], 'systemd-analyze --user verify');

    // The systemd unit's Documentation= names the README as npm lays the package out.
    const unit = await readFile(join(repo, 'systemd', 'kbsync.service'), 'utf8');
    const documentation = /^Documentation=file:(\S+)$/m.exec(unit)?.[1] ?? '';
    assert.match(documentation, /\/node_modules\/kbsync\/README\.md$/);
    assert.ok(existsSync(join(prefix, 'node_modules', 'kbsync', 'README.md')));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

test('.gitignore keeps what the README walk-through and the demo make out of the repository', () => {
  for (const path of ['docs/hello.md', 'sandbox.db', 'kbsync-demo/notes/welcome.md', 'kbsync-0.1.0.tgz']) {
    const result = spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: repo });
    assert.equal(result.status, 0, `${path} is ignored`);
  }
});
