import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { stateNodes, TEST_STATE_KEY, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { keyFingerprint } from '../../../src/remote-state/token.js';
import type { SyncReport } from '../../../src/sync/views/report.js';

/**
 * A team's second machine, CI job and service, each set up as the README says, on a team whose shared state
 * is signed; and each way of getting the key wrong refused before anything is written, with what to do.
 */

/** What the service holds that a refused run must leave alone: every document's text, the state's included. */
const everything = (f: SyncFixture): string =>
  JSON.stringify(f.em.admin.dump().nodes.filter((node) => node.workspaceId === f.em.seed.workspaceId).map((node) => [node.title, node.markdown ?? null]).sort());

/** The JSON report a run printed (a refused run's too), with the error that ended it. */
const reportOf = (run: CliResult): (SyncReport & { readonly error?: { readonly code: string } }) | undefined => {
  const line = run.stdout.trim().split('\n').pop() ?? '';
  return line.startsWith('{') ? (JSON.parse(line) as SyncReport & { readonly error?: { readonly code: string } }) : undefined;
};

/** A second workstation: its own folder and config home, cloned from the workspace's URL. */
async function secondMachine(f: SyncFixture, work: string): Promise<{ readonly dir: string; readonly keyFile: string; sync(env: Record<string, string | undefined>): Promise<CliResult> }> {
  const home = join(work, 'home');
  const args = ['--base-url', f.em.seed.baseUrl, '--operator-id', f.em.seed.operatorId];
  // As the refusal message says: the key in KBSYNC_STATE_KEY.
  const cloned = await runCli(['clone', f.em.seed.workspaceUrl, 'b', ...args], { cwd: work, env: { KBSYNC_TOKEN: f.em.seed.token, KBSYNC_STATE_KEY: TEST_STATE_KEY, XDG_CONFIG_HOME: home } });
  assert.equal(cloned.code, 0, `${cloned.stdout}\n${cloned.stderr}`);
  assert.match(cloned.stdout, /kept in .*state-key-.*where kbsync finds it when the variable is unset/);
  const dir = join(work, 'b');
  return {
    dir,
    keyFile: join(home, 'kbsync', `state-key-${f.em.seed.workspaceId}`),
    // The next shell: no KBSYNC_STATE_KEY (unless the test gives one).
    sync: (env) => runCli(['sync', '--json', '--config', join(dir, 'sync.config.json')], { cwd: dir, env: { KBSYNC_TOKEN: f.em.seed.token, KBSYNC_STATE_KEY: undefined, XDG_CONFIG_HOME: home, ...env } }),
  };
}

/** A first machine that synced `a.md`, and a second one cloned from it (its own folder and config home, removed after). */
async function withSecondMachine(fn: (f: SyncFixture, b: Awaited<ReturnType<typeof secondMachine>>, work: string) => Promise<void>): Promise<void> {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# Alpha\n\nFirst words.\n');
    assert.equal((await f.sync()).code, 0);
    const work = await mkdtemp(join(tmpdir(), 'kbsync-second-'));
    try {
      await fn(f, await secondMachine(f, work), work);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
}

describe('the team state key on a second machine', () => {
  test('clone keeps the key it read the state with: the next shell syncs an edit without the variable, and the first machine gets it, no conflict', async () => {
    await withSecondMachine(async (f, b) => {
        await writeFile(join(b.dir, 'a.md'), '# Alpha\n\nFirst words, and the second machine\'s.\n');
        const run = await b.sync({});
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.doesNotMatch(run.stdout + run.stderr, /STATE_NOT_PUBLISHED|STATE_KEY/);
        assert.equal(f.remoteDoc('Alpha').markdown, '# Alpha\n\nFirst words, and the second machine\'s.\n');
        const first = await f.sync();
        assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
        assert.deepEqual(first.report?.results.map((r) => [r.path, r.ok && r.result]), [['a.md', 'pulled']], 'the edit comes in: no phantom conflict');
        assert.equal(await f.read('a.md'), '# Alpha\n\nFirst words, and the second machine\'s.\n');
    });
  });

  test('without the key, or with another, an edit is refused before anything is written (exit 3), saying what to do; the first machine sees nothing', async () => {
    await withSecondMachine(async (f, b, work) => {
        await rm(b.keyFile);
        await writeFile(join(b.dir, 'a.md'), '# Alpha\n\nAn edit made without the key.\n');
        const before = everything(f);
        for (const mode of [[], ['--push']]) {
          const run = await runCli(['sync', '--json', ...mode, '--config', join(b.dir, 'sync.config.json')], { cwd: b.dir, env: { KBSYNC_TOKEN: f.em.seed.token, KBSYNC_STATE_KEY: undefined, XDG_CONFIG_HOME: join(work, 'home') } });
          assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
          assert.equal(reportOf(run)?.error?.code, 'STATE_KEY_NEEDED');
          assert.match(run.stderr, /written as a kbsync with a state key writes its state .* this machine has no key[\s\S]*key file \(~\/\.config\/kbsync\/state-key-<workspace>[\s\S]*KBSYNC_STATE_KEY/);
          assert.doesNotMatch(run.stdout + run.stderr, /STATE_NOT_PUBLISHED/);
          assert.equal(everything(f), before, `${mode.join(' ') || 'two-way'}: nothing was written, the state included`);
        }
        // Another key (a colleague's own, a rotated one): refused alike, with a code of its own and both fingerprints' worth of help.
        const other = 'a-key-that-is-not-the-teams-0123456789';
        await writeFile(b.keyFile, `${other}\n`, { mode: 0o600 });
        const wrong = await b.sync({});
        assert.equal(wrong.code, 3, `${wrong.stdout}\n${wrong.stderr}`);
        assert.equal(reportOf(wrong)?.error?.code, 'STATE_KEY_WRONG');
        assert.match(wrong.stderr, new RegExp(`signed with another state key than this machine's \\(from the file .*state-key-.*, fingerprint ${keyFingerprint(other)}\\)`));
        assert.match(wrong.stderr, /kbsync doctor/);
        assert.equal(everything(f), before);
        // The first machine changed nothing and sees nothing to do.
        const first = await f.sync();
        assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
        assert.deepEqual(first.report?.planned, []);
    });
  });
});

describe('the team state key on a workstation set up with init', () => {
  test("init on a keyed team's workspace makes no key of its own: it says to put the team's there, and the sync is refused until it is", async () => {
    await withSecondMachine(async (f, _b, work) => {
      const dir = join(work, 'c');
      const home = join(work, 'c-home');
      const env = { KBSYNC_TOKEN: f.em.seed.token, KBSYNC_STATE_KEY: undefined, XDG_CONFIG_HOME: home };
      const init = await runCli(['init', '--dir', dir, '--root', '.', '--base-url', f.em.seed.baseUrl, '--operator-id', f.em.seed.operatorId, '--workspace', f.em.seed.workspaceId], { env });
      assert.equal(init.code, 0, `${init.stdout}\n${init.stderr}`);
      assert.match(init.stdout, /shared state is signed with its team's state key, which this machine does not have: put the team's key in .*state-key-/);
      const keyFile = join(home, 'kbsync', `state-key-${f.em.seed.workspaceId}`);
      await assert.rejects(readFile(keyFile, 'utf8'), 'no key made');
      const refused = await runCli(['sync', '--json', '--config', join(dir, 'sync.config.json')], { cwd: dir, env });
      assert.equal(reportOf(refused)?.error?.code, 'STATE_KEY_NEEDED');
      await mkdir(join(home, 'kbsync'), { recursive: true });
      await writeFile(keyFile, `${TEST_STATE_KEY}\n`, { mode: 0o600 });
      const synced = await runCli(['sync', '--json', '--config', join(dir, 'sync.config.json')], { cwd: dir, env });
      assert.equal(synced.code, 0, `${synced.stdout}\n${synced.stderr}`);
      assert.equal(await readFile(join(dir, 'a.md'), 'utf8'), '# Alpha\n\nFirst words.\n');
    });
  });
});

describe('the team state key in CI', () => {
  test('a wrong or rotated key fails the job (STATE_KEY_WRONG, exit 3): no deletion is skipped silently, no state is written that others call junk', async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '# Alpha\n\nA.\n');
      await f.write('b.md', '# Beta\n\nB.\n');
      assert.equal((await f.sync(['--push'])).code, 0);
      await f.remove('b.md');
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      const before = everything(f);
      const states = stateNodes(f.em.admin.dump().nodes).length;
      const job = await f.sync(['--push'], { KBSYNC_STATE_KEY: 'a-rotated-out-key-0123456789abcdef' });
      assert.equal(job.code, 3, `${job.stdout}\n${job.stderr}`);
      assert.equal(reportOf(job)?.error?.code, 'STATE_KEY_WRONG');
      assert.match(job.stdout, /Nothing was done: the run was refused with STATE_KEY_WRONG \(exit 3\)|"ok":false/);
      assert.equal(everything(f), before, 'Beta stays, and no state document was added');
      assert.equal(stateNodes(f.em.admin.dump().nodes).length, states);
      // With the team's key the same job deletes Beta.
      const right = await f.sync(['--push']);
      assert.equal(right.code, 0, `${right.stdout}\n${right.stderr}`);
      assert.ok(!f.remoteDocs().some((d) => d.title === 'Beta'));
    });
  });

  test("a key on a team that has none is refused before it signs anything the team's machines would stop at", async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', '# Alpha\n\nA.\n');
        assert.equal((await f.sync()).code, 0);
        await f.write('a.md', '# Alpha\n\nA, edited.\n');
        const before = everything(f);
        const keyed = await f.sync(['--push'], { KBSYNC_STATE_KEY: TEST_STATE_KEY });
        assert.equal(keyed.code, 3, `${keyed.stdout}\n${keyed.stderr}`);
        assert.equal(reportOf(keyed)?.error?.code, 'STATE_KEY_WRONG');
        assert.match(keyed.stderr, /not signed .*its team has no state key.*but this machine has one[\s\S]*kbsync state rewrite/);
        assert.equal(everything(f), before);
        // Adopting the key for the team, as the message says: the rewrite, then every machine with the key.
        const adopted = await f.cli(['state', 'rewrite'], { KBSYNC_STATE_KEY: TEST_STATE_KEY });
        assert.equal(adopted.code, 0, `${adopted.stdout}\n${adopted.stderr}`);
        const after = await f.sync(['--push'], { KBSYNC_STATE_KEY: TEST_STATE_KEY });
        assert.equal(after.code, 0, `${after.stdout}\n${after.stderr}`);
        assert.equal(f.remoteDoc('Alpha').markdown, '# Alpha\n\nA, edited.\n');
      },
      { env: { KBSYNC_STATE_KEY: '' } },
    );
  });
});

describe('the team state key in a service', () => {
  test('kbsync watch without the key, or with another, stops with exit 3 and the reason, instead of retrying every few seconds while "active"', async () => {
    const { startDaemon } = await import('../daemon/daemon-process.js');
    const { createSyncFixture } = await import('../../helpers/sync-fixture.js');
    await withSyncFixture(async (a) => {
      await a.write('a.md', '# Alpha\n\nA.\n');
      assert.equal((await a.sync()).code, 0);
      for (const [key, code] of [['', 'STATE_KEY_NEEDED'], ['a-key-that-is-not-the-teams-0123456789', 'STATE_KEY_WRONG']] as const) {
        const b = await createSyncFixture({ shared: a.em, env: { KBSYNC_STATE_KEY: key } });
        const d = startDaemon(b);
        try {
          assert.equal(await d.exited(), 3, d.stderr());
          const fatal = d.logs.find((line) => line.level === 60);
          assert.equal(fatal?.['code'], code, d.stderr());
          assert.match(fatal?.msg ?? '', /kbsync watch stops \(a restart cannot mend this\)/);
          assert.equal(d.logs.filter((line) => line['code'] === code).length, 1, 'said once, not every few seconds');
          assert.ok(!(await b.exists('a.md')), 'nothing was pulled');
        } finally {
          await d.dispose();
          await b.close();
        }
      }
    });
  });
});

describe('rotating the team state key', () => {
  test('kbsync state rotate-key, as the README says: the new key in the key file, the old state told, old-key machines and CI refused naming the new key, every machine fine once it has it, the old documents deleted', async () => {
    const { readFile: read, mkdir } = await import('node:fs/promises');
    const { createSyncFixture } = await import('../../helpers/sync-fixture.js');
    const { parseTitle } = await import('../../../src/remote-state/documents.js');
    const { stateKey } = await import('../../../src/remote-state/token.js');
    // A workstation that keeps the key in its key file, as init makes it; B has it in KBSYNC_STATE_KEY.
    await withSyncFixture(
      async (a) => {
        const keyFile = join(a.env['XDG_CONFIG_HOME'] ?? '', 'kbsync', `state-key-${a.em.seed.workspaceId}`);
        await mkdir(join(keyFile, '..'), { recursive: true });
        await writeFile(keyFile, `${TEST_STATE_KEY}\n`, { mode: 0o600 });
        const b = await createSyncFixture({ shared: a.em });
        try {
          await a.write('a.md', '# Alpha\n\nA.\n');
          assert.equal((await a.sync()).code, 0);
          assert.equal((await b.sync()).code, 0);
          assert.equal(await b.read('a.md'), '# Alpha\n\nA.\n');

          const rotated = await a.cli(['state', 'rotate-key']);
          assert.equal(rotated.code, 0, `${rotated.stdout}\n${rotated.stderr}`);
          const key = (await read(keyFile, 'utf8')).trim();
          assert.notEqual(key, TEST_STATE_KEY);
          assert.equal((await read(`${keyFile}.previous`, 'utf8')).trim(), TEST_STATE_KEY);
          assert.doesNotMatch(rotated.stdout + rotated.stderr, new RegExp(key.replace(/[-_]/g, '.')), 'the key is never shown');
          assert.match(rotated.stdout, new RegExp(`signed with the new key \\(fingerprint ${keyFingerprint(key)}\\)`));

          // The rotating machine goes on with the new key.
          await a.write('a.md', '# Alpha\n\nA, after the rotation.\n');
          const after = await a.sync();
          assert.equal(after.code, 0, `${after.stdout}\n${after.stderr}`);
          assert.equal(a.remoteDoc('Alpha').markdown, '# Alpha\n\nA, after the rotation.\n');

          // A machine with the old key, and CI with the old secret, are refused before they write, naming the new key.
          const before = everything(a);
          await b.write('b.md', '# Beta\n\nNew on B.\n');
          const old = await b.sync();
          assert.equal(old.code, 3, `${old.stdout}\n${old.stderr}`);
          assert.equal(reportOf(old)?.error?.code, 'STATE_KEY_WRONG');
          assert.match(old.stderr, new RegExp(`key is now another one \\(fingerprint ${keyFingerprint(key)}: the key was rotated\\)`));
          await rm(join(a.root, '.kbsync'), { recursive: true, force: true });
          const ci = await a.sync(['--push'], { KBSYNC_STATE_KEY: TEST_STATE_KEY });
          assert.equal(ci.code, 3, `${ci.stdout}\n${ci.stderr}`);
          assert.equal(reportOf(ci)?.error?.code, 'STATE_KEY_WRONG');
          assert.equal(everything(a), before);

          // Given the new key, B syncs: A's edit comes in, its own new file goes out.
          const given = await b.sync([], { KBSYNC_STATE_KEY: key });
          assert.equal(given.code, 0, `${given.stdout}\n${given.stderr}`);
          assert.equal(await b.read('a.md'), '# Alpha\n\nA, after the rotation.\n');
          assert.equal(b.remoteDoc('Beta').markdown, '# Beta\n\nNew on B.\n');

          // Once the grace period is over, the next run with the new key that writes the state deletes the old documents; nothing is left out as junk.
          const old1 = stateKey(TEST_STATE_KEY, a.em.seed.workspaceId, a.em.seed.rootNodeId);
          const signedWithOld = () => stateNodes(a.em.admin.dump().nodes).filter((n) => parseTitle(n.title, old1)?.signed === 'signed');
          assert.ok(signedWithOld().length > 0);
          await b.write('b.md', '# Beta\n\nNew on B, edited later.\n');
          const later = await b.sync([], { KBSYNC_STATE_KEY: key, KBSYNC_STATE_GRACE_MS: '0' });
          assert.equal(later.code, 0, `${later.stdout}\n${later.stderr}`);
          assert.deepEqual(signedWithOld().map((n) => n.title), []);
          const quiet = await b.sync([], { KBSYNC_STATE_KEY: key });
          assert.equal(quiet.code, 0);
          assert.ok(!quiet.report?.notices.some((n) => n.code === 'STATE_JUNK'), JSON.stringify(quiet.report?.notices));
        } finally {
          await b.close();
        }
      },
      { env: { KBSYNC_STATE_KEY: '' } },
    );
  });
});
