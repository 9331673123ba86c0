import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { runCli } from '../../helpers/cli.js';
import { withEmulator } from '../../helpers/emulator.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

test('search shows title, url and the local path of synced documents (null for the others)', async () => {
  await withSyncFixture(async (f) => {
    await f.write('guides/release.md', '# Release checklist\n\nTag the release.\n');
    assert.equal((await f.sync()).code, 0);
    const extra = f.em.admin.createDocument({ name: 'Release party', markdown: 'Cake.\n' });

    const json = await f.cli(['search', 'release', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const hits = JSON.parse(json.stdout) as { title: string; url: string; localPath: string | null }[];
    assert.deepEqual(
      hits.map((hit) => [hit.title, hit.localPath]).sort(),
      [['Release checklist', 'guides/release.md'], ['Release party', null]],
    );
    assert.equal(hits.find((hit) => hit.title === 'Release party')?.url, extra.url);

    const text = await f.cli(['search', 'checklist']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Release checklist\n {2}http:\/\/127\.0\.0\.1:\d+\/i\/nodes\/\w+\n {2}.*notes\/guides\/release\.md/);
    const none = await f.cli(['search', 'zebra']);
    assert.match(none.stdout, /No document/);
  });
});

test('clone: a folder URL, a document URL (its folder) and a workspace-level document; each linked by a first pull', async () => {
  await withEmulator(
    async (em) => {
      const folder = em.admin.createDocument({ name: 'Handbook', folder: true });
      em.admin.createDocument({ name: 'Onboarding', parentNodeId: folder.dentryUuid, markdown: '# Onboarding\n\nWelcome aboard.\n' });
      em.admin.createDocument({ name: 'Holidays', parentNodeId: folder.dentryUuid, markdown: 'Ask a week ahead.\n' });
      const top = em.admin.createDocument({ name: 'Top', markdown: 'At the top.\n' });
      const onboarding = em.admin.dump().nodes.find((node) => node.title === 'Onboarding');
      assert.ok(onboarding);
      const work = await mkdtemp(join(tmpdir(), 'kbsync-clone-'));
      const args = ['--base-url', em.seed.baseUrl, '--operator-id', em.seed.operatorId];
      const env = { KBSYNC_TOKEN: em.seed.token };
      try {
        const byFolder = await runCli(['clone', folder.url, 'hb', ...args], { cwd: work, env });
        assert.equal(byFolder.code, 0, byFolder.stderr);
        assert.equal(await readFile(join(work, 'hb', 'Onboarding.md'), 'utf8'), '# Onboarding\n\nWelcome aboard.\n');
        assert.ok(existsSync(join(work, 'hb', 'Holidays.md')));
        assert.ok(!existsSync(join(work, 'hb', 'Top.md')), 'only the folder is cloned');
        const config = JSON.parse(await readFile(join(work, 'hb', 'sync.config.json'), 'utf8')) as Record<string, unknown>;
        assert.equal(config['remoteFolder'], folder.dentryUuid);
        assert.equal(config['root'], '.');
        const status = await runCli(['status', '--json'], { cwd: join(work, 'hb'), env });
        assert.equal(status.code, 0, status.stderr);
        assert.deepEqual((JSON.parse(status.stdout) as StatusReport).counts, { clean: 2 }, 'both documents are linked in the ledger');

        const byDocument = await runCli(['clone', `${em.seed.baseUrl}/i/nodes/${onboarding.dentryUuid}`, ...args], { cwd: work, env });
        assert.equal(byDocument.code, 0, byDocument.stderr);
        assert.match(byDocument.stdout, /the folder holding "Onboarding"/);
        assert.ok(existsSync(join(work, 'Handbook', 'Onboarding.md')), 'the default folder name is the folder title');
        assert.ok(existsSync(join(work, 'Handbook', 'Holidays.md')));

        const atTop = await runCli(['clone', top.url, 'all', ...args], { cwd: work, env });
        assert.equal(atTop.code, 0, atTop.stderr);
        assert.ok(existsSync(join(work, 'all', 'Top.md')));
        assert.ok(existsSync(join(work, 'all', 'Handbook', 'Onboarding.md')));
        assert.equal((JSON.parse(await readFile(join(work, 'all', 'sync.config.json'), 'utf8')) as Record<string, unknown>)['remoteFolder'], undefined);

        await mkdir(join(work, 'busy'));
        await writeFile(join(work, 'busy', 'x.md'), 'mine');
        const busy = await runCli(['clone', folder.url, 'busy', ...args], { cwd: work, env });
        assert.equal(busy.code, 2);
        assert.match(busy.stderr, /CLONE_TARGET_EXISTS/);
        assert.equal(await readFile(join(work, 'busy', 'x.md'), 'utf8'), 'mine');
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    { rateLimit: 0 },
  );
});

test('clone ignores KBSYNC_ROOT and friends for its own pull (and says so), counts only files as pulled, and leaves nothing behind when it fails', async () => {
  await withEmulator(
    async (em) => {
      const folder = em.admin.createDocument({ name: 'Handbook', folder: true });
      const sub = em.admin.createDocument({ name: 'Teams', folder: true, parentNodeId: folder.dentryUuid });
      em.admin.createDocument({ name: 'Onboarding', parentNodeId: folder.dentryUuid, markdown: 'Welcome.\n' });
      em.admin.createDocument({ name: 'Platform', parentNodeId: sub.dentryUuid, markdown: 'We run things.\n' });
      const work = await mkdtemp(join(tmpdir(), 'kbsync-clone-'));
      const args = ['--base-url', em.seed.baseUrl, '--operator-id', em.seed.operatorId];
      try {
        const env = { KBSYNC_TOKEN: em.seed.token, KBSYNC_ROOT: './docs', KBSYNC_WORKSPACE_ID: 'elsewhere' };
        const cloned = await runCli(['clone', folder.url, 'hb', ...args], { cwd: work, env });
        assert.equal(cloned.code, 0, cloned.stderr);
        assert.ok(existsSync(join(work, 'hb', 'Teams', 'Platform.md')));
        assert.match(cloned.stdout, /Synced: 1 folder made, 2 pulled;/, 'two files pulled, one folder made');
        assert.match(cloned.stderr, /KBSYNC_ROOT and KBSYNC_WORKSPACE_ID are set in your environment[\s\S]*unset KBSYNC_ROOT KBSYNC_WORKSPACE_ID/);

        const listOnly = em.admin.addToken(['Wiki.Node.Read']);
        const failed = await runCli(['clone', folder.url, 'partial', ...args], { cwd: work, env: { KBSYNC_TOKEN: listOnly } });
        assert.equal(failed.code, 4, failed.stderr);
        assert.match(failed.stderr, /API_FORBIDDEN/);
        assert.ok(!existsSync(join(work, 'partial')), 'no half-made folder: running it again just works');
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    { rateLimit: 0 },
  );
});
