import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { foldedState, withoutTeamRecords } from '../../helpers/state-reader.js';
import { TEST_STATE_KEY, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * The settings every machine must read a folder with alike (layout, dialect, links, base path, whether the state
 * is signed and by which key) travel in the shared state: a clone, a CI job with a fresh checkout and a fresh
 * workstation read the folder as the first machine did with no hand-edited config, and a config that says
 * otherwise is refused before anything is written.
 */

const HOME = '# Home\n\nSee [[Other]] and [[Other|the other page]].\n';
const OTHER = '# Other\n\nText.\n';

/** A wiki link sent as a link: the document holds a link to Other's page, never the literal `[[…]]`. */
function linksSent(f: SyncFixture): void {
  const home = f.remoteDoc('Home').markdown ?? '';
  assert.doesNotMatch(home, /\[\[/, `the wiki links went out as links:\n${home}`);
  assert.match(home, new RegExp(`\\[Other\\]\\(${f.em.seed.baseUrl.replace(/[.]/g, '\\.')}/i/nodes/${f.remoteDoc('Other').dentryUuid}\\)`));
}

const everything = (f: SyncFixture): string =>
  JSON.stringify(f.em.admin.dump().nodes.filter((node) => node.workspaceId === f.em.seed.workspaceId).map((node) => [node.title, node.markdown ?? null]).sort());

const serviceEnv = (f: SyncFixture, home: string): Record<string, string | undefined> => ({ KBSYNC_TOKEN: f.em.seed.token, KBSYNC_STATE_KEY: TEST_STATE_KEY, XDG_CONFIG_HOME: home });

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-team-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const codeOf = (run: CliResult): string | undefined => (JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { error?: { code: string } }).error?.code;

describe('team settings travel with the shared state', () => {
  test('a vault whose repository has no .obsidian folder: a clone, a fresh CI checkout and an env-only config all read [[links]] as the first machine set it', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('Home.md', HOME);
        await f.write('Other.md', OTHER);
        assert.equal((await f.sync()).code, 0);
        linksSent(f);
        assert.equal(foldedState(f).team?.dialect, 'obsidian', 'the first run publishes how it reads the folder');

        await inTemp(async (work) => {
          // A clone: its config is written without a dialect; it follows the team's.
          const cloned = await runCli(['clone', f.em.seed.workspaceUrl, 'b', '--base-url', f.em.seed.baseUrl, '--operator-id', f.em.seed.operatorId], { cwd: work, env: serviceEnv(f, join(work, 'home')) });
          assert.equal(cloned.code, 0, `${cloned.stdout}\n${cloned.stderr}`);
          assert.match(cloned.stdout, /read as its team reads it .*markdown\.dialect "obsidian"/);
          assert.equal(await readFile(join(work, 'b', 'Home.md'), 'utf8'), HOME);
          await writeFile(join(work, 'b', 'Home.md'), `${HOME}\nA second machine's line.\n`);
          const b = await runCli(['sync', '--json', '--config', join(work, 'b', 'sync.config.json')], { cwd: join(work, 'b'), env: serviceEnv(f, join(work, 'home')) });
          assert.equal(b.code, 0, `${b.stdout}\n${b.stderr}`);
          linksSent(f);
          assert.match(f.remoteDoc('Home').markdown ?? '', /A second machine's line/);

          // A CI job: a fresh checkout of the files, configured by variables alone (no dialect anywhere).
          const checkout = join(work, 'checkout');
          await cp(f.root, checkout, { recursive: true, filter: (source) => !source.includes('.kbsync') });
          await writeFile(join(checkout, 'Home.md'), `${HOME}\nFrom CI.\n`);
          const ci = await runCli(['sync', '--push', '--json'], {
            cwd: checkout,
            env: { ...serviceEnv(f, join(work, 'ci-home')), KBSYNC_WORKSPACE_ID: f.em.seed.workspaceId, KBSYNC_SERVICE_BASE_URL: f.em.seed.baseUrl, KBSYNC_SERVICE_OPERATOR_ID: f.em.seed.operatorId, KBSYNC_ROOT: '.' },
          });
          assert.equal(ci.code, 0, `${ci.stdout}\n${ci.stderr}`);
          linksSent(f);
          assert.match(f.remoteDoc('Home').markdown ?? '', /From CI\./);

          // A machine whose config says otherwise is refused before it writes, naming the setting and both values.
          const config = JSON.parse(await readFile(join(work, 'b', 'sync.config.json'), 'utf8')) as Record<string, unknown>;
          await writeFile(join(work, 'b', 'sync.config.json'), JSON.stringify({ ...config, markdown: { dialect: 'commonmark' } }));
          await writeFile(join(work, 'b', 'Home.md'), `${HOME}\nRead as CommonMark.\n`);
          const before = everything(f);
          const refused = await runCli(['sync', '--json', '--config', join(work, 'b', 'sync.config.json')], { cwd: join(work, 'b'), env: serviceEnv(f, join(work, 'home')) });
          assert.equal(refused.code, 2, `${refused.stdout}\n${refused.stderr}`);
          assert.equal(codeOf(refused), 'TEAM_SETTINGS_DIFFER');
          assert.match(refused.stderr, /team reads it with markdown\.dialect "obsidian" .* this machine's configuration says markdown\.dialect "commonmark"[\s\S]*Remove markdown\.dialect \(or KBSYNC_MARKDOWN_DIALECT\)/);
          assert.equal(everything(f), before, 'nothing was written');
          // The same by its variable.
          const byVariable = await runCli(['sync', '--push', '--json'], {
            cwd: checkout,
            env: { ...serviceEnv(f, join(work, 'ci-home')), KBSYNC_WORKSPACE_ID: f.em.seed.workspaceId, KBSYNC_SERVICE_BASE_URL: f.em.seed.baseUrl, KBSYNC_SERVICE_OPERATOR_ID: f.em.seed.operatorId, KBSYNC_ROOT: '.', KBSYNC_MARKDOWN_DIALECT: 'commonmark' },
          });
          assert.equal(byVariable.code, 2, `${byVariable.stdout}\n${byVariable.stderr}`);
          assert.equal(codeOf(byVariable), 'TEAM_SETTINGS_DIFFER');
        });
      },
      { config: { markdown: { dialect: 'obsidian' } } },
    );
  });

  /** One setting each: what the first machine's config says, the file a fresh checkout sends, and what the document must then hold. */
  const SETTINGS: readonly { readonly name: string; readonly config: Record<string, unknown>; readonly file: string; readonly text: string; readonly sent: (f: SyncFixture) => void }[] = [
    {
      name: 'links: false (a link to a synced file goes as written)',
      config: { links: false },
      file: 'guide.md',
      text: '# Guide\n\nRead [the intro](intro.md) first.\n',
      sent: (f) => assert.equal(f.remoteDoc('Guide').markdown, '# Guide\n\nRead [the intro](intro.md) first.\n'),
    },
    {
      name: 'site.basePath "/docs/" (a site-absolute link under it reaches its document)',
      config: { site: { basePath: '/docs/' } },
      file: 'guide.md',
      text: '# Guide\n\nRead [the intro](/docs/intro) first.\n',
      sent: (f) => assert.equal(f.remoteDoc('Guide').markdown, `# Guide\n\nRead [the intro](${f.em.seed.baseUrl}/i/nodes/${f.remoteDoc('Intro').dentryUuid}) first.\n`),
    },
    {
      name: 'layout "flat" (a new file in a folder is one document titled by its path, at the top)',
      config: { layout: 'flat' },
      file: 'guide/new.md',
      text: '# New\n\nNew here.\n',
      sent: (f) => {
        assert.ok(f.remoteDocs().some((d) => d.title === 'guide/new'), f.remoteDocs().map((d) => d.title).join(', '));
        assert.ok(!f.em.admin.dump().nodes.some((n) => n.docType === 'FOLDER' && n.title === 'guide'), 'no folder made');
      },
    },
  ];

  for (const setting of SETTINGS) {
    test(`${setting.name} travels: a fresh CI checkout configured by variables alone sends what the first machine would`, async () => {
      await withSyncFixture(
        async (f) => {
          await f.write('intro.md', '# Intro\n\nHello.\n');
          assert.equal((await f.sync(['--push'])).code, 0);
          await inTemp(async (work) => {
            const checkout = join(work, 'checkout');
            await cp(f.root, checkout, { recursive: true, filter: (source) => !source.includes('.kbsync') });
            await mkdir(dirname(join(checkout, setting.file)), { recursive: true });
            await writeFile(join(checkout, setting.file), setting.text);
            const ci = await runCli(['sync', '--push', '--json'], {
              cwd: checkout,
              env: { ...serviceEnv(f, join(work, 'ci-home')), KBSYNC_WORKSPACE_ID: f.em.seed.workspaceId, KBSYNC_SERVICE_BASE_URL: f.em.seed.baseUrl, KBSYNC_SERVICE_OPERATOR_ID: f.em.seed.operatorId, KBSYNC_ROOT: '.' },
            });
            assert.ok(ci.code === 0 || ci.code === 1, `${ci.stdout}\n${ci.stderr}`);
            setting.sent(f);
          });
        },
        { config: setting.config },
      );
    });
  }

  test('a state published before the team settings travelled gets them from the next run, refusing no one; then a no-op writes nothing', async () => {
    await withSyncFixture(async (f) => {
      await f.write('a.md', '# Alpha\n\nA.\n');
      assert.equal((await f.sync()).code, 0);
      withoutTeamRecords(f);
      // This machine as it was before the upgrade: its ledger has not seen the team's settings either.
      const db = new Database(join(f.root, '.kbsync', 'ledger.sqlite'));
      db.prepare("DELETE FROM meta WHERE key LIKE 'team:%'").run();
      db.close();
      assert.equal(foldedState(f).team, undefined);
      const migrated = await f.sync();
      assert.equal(migrated.code, 0, `${migrated.stdout}\n${migrated.stderr}`);
      assert.deepEqual(migrated.report?.planned, []);
      assert.deepEqual(foldedState(f).team, { t: 'team', key: foldedState(f).team?.key, layout: 'folders', links: true, base: '/', webEdits: 'merge', b: 1 });
      assert.match(foldedState(f).team?.key ?? '', /^[0-9a-f]{16}$/);
      const again = await f.sync(['--push']);
      assert.equal(again.code, 0);
      assert.equal(again.report?.calls, 0, 'a no-op push makes no call');
    });
  });
});
