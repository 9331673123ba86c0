import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { syncOnce } from '../../helpers/in-process-sync.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

type Check = { readonly name: string; readonly status: 'pass' | 'warn' | 'fail'; readonly message: string; readonly code?: string; readonly exitCode?: number };
type DoctorJson = { readonly ok: boolean; readonly exitCode: number; readonly checks: readonly Check[] };
type SyncJson = { readonly ok: boolean; readonly exitCode: number; readonly error?: { readonly code: string } };

type Case = {
  readonly name: string;
  /** Runs before the two commands; may return env overrides for both. */
  readonly setup?: (f: SyncFixture) => Promise<Record<string, string> | void>;
  /** Skip the first sync (a folder that was never synced). */
  readonly fresh?: boolean;
  readonly exit: number;
  /** The code sync stops with, and doctor's failing check carries; undefined when the run is fine. */
  readonly code?: string;
  /** Doctor warns (does not fail) about these checks. */
  readonly warns?: readonly string[];
};

const ledgerFile = (f: SyncFixture): string => join(f.root, '.kbsync', 'ledger.sqlite');

async function setConfig(f: SyncFixture, change: (config: Record<string, any>) => void): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON config
  const config = JSON.parse(await readFile(f.configPath, 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON config
  change(config);
  await writeFile(f.configPath, JSON.stringify(config));
}

/** A lock as a live kbsync writes it: this test process is alive, so the lock is held. */
const holdLock = (command: string) => async (f: SyncFixture) => {
  await writeFile(`${ledgerFile(f)}.lock`, `${JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: Date.now(), command, token: 'held-by-the-test' })}\n`);
};

const CASES: readonly Case[] = [
  { name: 'a folder in step', exit: 0 },
  { name: 'the root is missing (an unmounted drive)', setup: (f) => rm(f.root, { recursive: true }), exit: 2, code: 'ROOT_MISSING' },
  { name: 'the root is the home folder', setup: async (f) => ({ HOME: f.root }), exit: 2, code: 'ROOT_TOO_BROAD' },
  {
    name: 'the ledger belongs to another workspace',
    setup: (f) => setConfig(f, (c) => (c['workspaceId'] = f.em.admin.addWorkspace({ name: 'Elsewhere' }).workspaceId)),
    exit: 3,
    code: 'WORKSPACE_CHANGED',
  },
  {
    name: 'the ledger is a SQLite file that is not kbsync’s',
    fresh: true,
    setup: async (f) => {
      await mkdir(join(f.root, '.kbsync'), { mode: 0o700 });
      const db = new Database(ledgerFile(f));
      db.exec('CREATE TABLE recipes (name TEXT)');
      db.close();
    },
    exit: 3,
    code: 'LEDGER_FOREIGN',
  },
  { name: 'the ledger is damaged', setup: (f) => writeFile(ledgerFile(f), 'not a database at all, but long enough to have a header '.repeat(4)), exit: 3, code: 'LEDGER_CORRUPT' },
  { name: 'another kbsync holds the ledger', setup: holdLock('node kbsync sync'), exit: 3, code: 'LEDGER_LOCKED' },
  {
    name: 'most synced files deleted at once (a guard on the plan)',
    setup: async (f) => {
      for (const name of ['b.md', 'c.md', 'd.md']) await f.write(name, `# ${name}\n`);
      assert.equal((await syncOnce(f)).code, 0);
      for (const name of ['a.md', 'b.md', 'c.md']) await f.remove(name);
    },
    exit: 3,
    code: 'MASS_DELETE',
  },
  { name: 'no token', setup: async () => ({ KBSYNC_TOKEN: '' }), exit: 2, code: 'TOKEN_MISSING' },
  { name: 'the shared state is signed and this machine has no key', setup: async () => ({ KBSYNC_STATE_KEY: '' }), exit: 3, code: 'STATE_KEY_NEEDED', warns: ['state key'] },
  { name: 'the shared state is signed with another key (a rotated one)', setup: async () => ({ KBSYNC_STATE_KEY: 'a-rotated-out-key-0123456789abcdef' }), exit: 3, code: 'STATE_KEY_WRONG' },
  { name: 'a token the service rejects', setup: async () => ({ KBSYNC_TOKEN: 'at-not-a-token' }), exit: 4, code: 'API_UNAUTHORIZED' },
  { name: 'a userId as operatorId', setup: async (f) => ({ KBSYNC_SERVICE_OPERATOR_ID: f.em.seed.userId }), exit: 4, code: 'API_BAD_REQUEST' },
  { name: 'a workspace that does not exist', fresh: true, setup: async () => ({ KBSYNC_WORKSPACE_ID: 'no-such-workspace' }), exit: 4, code: 'API_NOT_FOUND' },
  {
    name: 'a token without the write scope, with a file to send',
    setup: async (f) => {
      await f.write('b.md', '# B\n\nNew.\n');
      return { KBSYNC_TOKEN: f.em.admin.addToken(['Wiki.Node.Read', 'Storage.File.Read', 'Document.WorkspaceDocument.Read', 'Document.WorkspaceDocument.Write']) };
    },
    exit: 4,
    code: 'API_FORBIDDEN',
  },
  {
    name: 'a token without the optional scopes (search, members): sync works, doctor warns',
    setup: async (f) => {
      await f.write('b.md', '# B\n\nNew.\n');
      return { KBSYNC_TOKEN: f.em.admin.addToken(['Wiki.Node.Read', 'Storage.File.Read', 'Storage.File.Write']) };
    },
    exit: 0,
    warns: ['scope:Document.WorkspaceDocument.Read', 'scope:Document.WorkspaceDocument.Write'],
  },
];

for (const c of CASES) {
  test(`doctor and sync agree: ${c.name} → exit ${c.exit}${c.code ? ` (${c.code})` : ''}`, async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '# A\n\nSynced.\n');
      if (!c.fresh) assert.equal((await syncOnce(f)).code, 0);
      const env = (await c.setup?.(f)) ?? {};

      // Doctor first: it must change nothing, so sync then meets the same situation.
      const doctor = await f.cli(['doctor', '--json'], env);
      const checks = JSON.parse(doctor.stdout) as DoctorJson;
      const sync = await f.cli(['sync', '--json'], env);
      const report = JSON.parse(sync.stdout.trim().split('\n').pop() ?? '') as SyncJson;

      assert.equal(sync.code, c.exit, `sync: ${sync.stderr}`);
      assert.deepEqual([report.exitCode, report.ok, report.error?.code], [c.exit, c.exit === 0, c.code]);
      assert.equal(doctor.code, c.exit, `doctor: ${JSON.stringify(checks.checks.filter((k) => k.status !== 'pass'))}`);
      assert.deepEqual([checks.exitCode, checks.ok], [c.exit, c.exit === 0]);
      const failed = checks.checks.filter((check) => check.status === 'fail');
      if (c.code) {
        assert.equal(failed[0]?.code, c.code, `doctor's first failure is sync's: ${JSON.stringify(failed)}`);
        assert.equal(failed[0]?.exitCode, c.exit);
      } else assert.deepEqual(failed, []);
      assert.deepEqual(checks.checks.filter((check) => check.status === 'warn').map((check) => check.name), c.warns ?? []);
    });
  });
}

test('doctor in text: a missing optional scope is a "!" line naming what it disables, and the run still passes', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n');
    assert.equal((await syncOnce(f)).code, 0);
    const token = f.em.admin.addToken(['Wiki.Node.Read', 'Storage.File.Read', 'Storage.File.Write', 'Document.WorkspaceDocument.Read']);
    const doctor = await f.cli(['doctor'], { KBSYNC_TOKEN: token });
    assert.equal(doctor.code, 0, doctor.stdout);
    assert.match(doctor.stdout, /^! scope Document\.WorkspaceDocument\.Write is missing: a file whose front matter has `members` does not sync/m);
    assert.match(doctor.stdout, /All checks passed\./);
    assert.doesNotMatch(doctor.stdout, /✗/);
  });
});

test('the one place doctor and sync part: beside a running daemon, sync is refused (DAEMON_RUNNING, exit 3) while doctor says the daemon is healthy (exit 0)', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nSynced.\n');
    assert.equal((await syncOnce(f)).code, 0);
    await holdLock('node kbsync watch')(f);
    const sync = await f.cli(['sync', '--json']);
    assert.equal(sync.code, 3);
    assert.match(sync.stderr, /DAEMON_RUNNING/);
    const doctor = await f.cli(['doctor', '--json']);
    const checks = JSON.parse(doctor.stdout) as DoctorJson;
    assert.equal(doctor.code, 0, JSON.stringify(checks.checks.filter((check) => check.status !== 'pass')));
    const daemon = checks.checks.find((check) => check.name === 'daemon');
    assert.equal(daemon?.status, 'pass');
    assert.match(daemon?.message ?? '', new RegExp(`^kbsync watch runs for this folder \\(pid ${process.pid}, since [^)]+\\): it has not finished a cycle yet`));
  });
});
