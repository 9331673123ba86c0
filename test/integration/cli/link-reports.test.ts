import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LinkProblem } from '../../../src/links/index.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** `sync --output-format github` with a job summary file: stdout, and the summary it appended. */
async function withSummary(f: SyncFixture, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; summary: string }> {
  const file = join(f.dir, `summary-${Math.random().toString(36).slice(2)}.md`);
  await writeFile(file, '');
  const result = await f.cli(['sync', '--output-format', 'github', ...args], { GITHUB_STEP_SUMMARY: file, ...env });
  return { code: result.code, stdout: result.stdout, summary: await readFile(file, 'utf8') };
}

test('a link check says how many files and links it checked and how many are broken, in text, JSON and the GitHub output, with or without the service', async () => {
  await withSyncFixture(async (f) => {
    await f.write('index.md', '# Home\n\nSee [the guide](guide.md), [gone](gone.md) and [the web](https://example.com).\n');
    await f.write('guide.md', '# Guide\n\nBack [home](index.md#home).\n');
    const line = 'Link check: 2 files, 4 links (1 to other sites, left alone): 1 broken (1 missing).';

    for (const env of [{ KBSYNC_TOKEN: '' }, {}]) {
      const text = await f.cli(['sync', '--push', '--check-links', '--dry-run'], env);
      assert.equal(text.code, 5, text.stderr);
      assert.ok(text.stdout.split('\n').includes(line), text.stdout);
      assert.doesNotMatch(text.stdout, /Nothing to do\./);
      const json = await f.sync(['--push', '--check-links', '--dry-run'], env);
      assert.deepEqual(json.report?.linkCheck, { files: 2, links: 4, external: 1, broken: 1, byReason: { missing: 1 }, localOnly: env.KBSYNC_TOKEN === '' });
      const github = await withSummary(f, ['--push', '--check-links', '--dry-run'], env);
      assert.ok(github.summary.split('\n').includes(line), github.summary);
      assert.ok(github.stdout.split('\n').includes(`::notice title=kbsync link check::${line}`), github.stdout);
    }

    await f.write('index.md', '# Home\n\nSee [the guide](guide.md) and [the web](https://example.com).\n');
    assert.equal((await f.sync(['--push', '--check-links'])).code, 0);
    const clean = await f.cli(['sync', '--push', '--check-links', '--dry-run']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stdout, /^Link check: 2 files, 3 links \(1 to other sites, left alone\): none broken\.$/m);
    assert.doesNotMatch(clean.stdout, /Nothing to do\./, 'the check says what it checked, not that it did nothing');
  });
});

/** A vault with links to every kind of note kbsync does not publish, and a commented heading link copied into many notes. */
const COPIES = 24;
const VAULT: Record<string, string> = {
  '.obsidian/app.json': '{}',
  '.obsidian/templates.json': '{ "folder": "Templates" }',
  'People/ben.md': '# Ben\n\n## Bio\n\nHello.\n',
  'Home.md': "# Home\n\nNotes: [[Refused]] [[Private]] [[Daily]] [[wip]] [[secret]] [[Latin]]\nSee [Ben's bio](People/ben.md#nope).\n",
  'Refused.md': '---\nmembers: everyone\n---\n# Refused\n',
  'Private.md': '---\npublish: false\n---\n# Private\n',
  'Templates/Daily.md': '# {{date}}\n',
  'Drafts/wip.md': '# Work in progress\n',
  '.kbsyncignore': 'secret.md\n',
  'secret.md': '# Secret\n',
  ...Object.fromEntries(Array.from({ length: COPIES + 1 }, (_, i) => [`Community/Plugins/p${String(i).padStart(2, '0')}.md`, `# Plugin ${i}\n\nSponsor: ![[ben#Sponsor this author]]\n`])),
};

test('a link report quotes the link as written with its file, line and column, says why each unpublished note is not published, and summarises a long list', async () => {
  await withSyncFixture(
    async (f) => {
      for (const [path, text] of Object.entries(VAULT)) await f.write(path, text);
      await writeFile(join(f.root, 'Latin.md'), Buffer.from('# Caf\xe9\n', 'latin1'));
      const config = JSON.parse(await readFile(f.configPath, 'utf8')) as Record<string, unknown>;
      await writeFile(f.configPath, JSON.stringify({ ...config, markdown: { dialect: 'obsidian' }, exclude: ['Drafts/**'] }));

      const local = await f.sync(['--push', '--check-links', '--dry-run'], { KBSYNC_TOKEN: '' });
      const online = await f.sync(['--push', '--check-links', '--dry-run']);
      assert.equal(local.code, 5, local.stderr);
      assert.deepEqual(online.report?.links, local.report?.links, 'the same report from the files alone and with the service');
      const links = local.report?.links ?? [];
      const reported = (path: string): LinkProblem[] => links.filter((link) => link.path === path);

      // What the user wrote, where: not the Markdown kbsync made of it.
      assert.deepEqual(
        reported('Community/Plugins/p00.md').map((l) => [l.line, l.column, l.target, l.written, l.reason, l.message]),
        [[3, 10, '![[ben#Sponsor this author]]', '![[ben#Sponsor this author]]', 'anchor-missing', 'People/ben.md has no heading with the anchor #sponsor-this-author']],
      );
      const home = reported('Home.md');
      assert.deepEqual(
        home.filter((l) => l.reason === 'anchor-missing').map((l) => [l.line, l.column, l.target, l.written]),
        [[4, 5, 'People/ben.md#nope', "[Ben's bio](People/ben.md#nope)"]],
      );
      // Why each note is not published: its own reason, not "excluded, unpublished or a template".
      const why = Object.fromEntries(home.filter((l) => l.reason === 'not-synced').map((l) => [l.written, [l.column, l.message]]));
      assert.deepEqual(Object.keys(why), ['[[Refused]]', '[[Private]]', '[[Daily]]', '[[wip]]', '[[secret]]', '[[Latin]]']);
      assert.match(String(why['[[Refused]]']?.[1]), /^Refused\.md is not published: kbsync refuses it this run: .*"members" is "everyone".*\[FRONT_MATTER_INVALID\]$/);
      assert.equal(why['[[Private]]']?.[1], 'Private.md is not published: its front matter says publish: false');
      assert.equal(why['[[Daily]]']?.[1], "Templates/Daily.md is not published: it is a template (in the vault's templates folder Templates)");
      assert.equal(why['[[wip]]']?.[1], 'Drafts/wip.md is not published: the config\'s exclude "Drafts/**" leaves out its folder Drafts');
      assert.equal(why['[[secret]]']?.[1], 'secret.md is not published: a .kbsyncignore leaves out secret.md');
      assert.match(String(why['[[Latin]]']?.[1]), /^Latin\.md is not published: kbsync refuses it this run: .*\[FILE_NOT_UTF8\]$/);
      assert.deepEqual(Object.values(why).map(([column]) => column), [8, 20, 32, 42, 50, 61]);

      // Past twenty, the list is summarised: counts per reason, the most frequent link first, the full list in JSON.
      const total = COPIES + 1 + 1 + 6;
      assert.equal(links.length, total);
      const text = await f.cli(['sync', '--push', '--check-links', '--dry-run'], { KBSYNC_TOKEN: '' });
      const lines = text.stdout.split('\n');
      assert.ok(lines.includes(`✗ ${total} broken links in ${COPIES + 2} files [LINK_BROKEN]: ${COPIES + 2} anchor-missing, 6 not-synced. The most frequent:`), text.stdout);
      assert.ok(
        lines.includes(`  Community/Plugins/p00.md:3:10: broken link ![[ben#Sponsor this author]]: People/ben.md has no heading with the anchor #sponsor-this-author (the same link in ${COPIES} more places, ${COPIES + 1} files in all)`),
        text.stdout,
      );
      assert.equal(lines.filter((l) => l.includes('broken link ')).length, 8, 'one line per distinct link, not one per copy');
      assert.ok(lines.includes(`Link check: ${COPIES + 3} files, ${total} links (0 to other sites, left alone): ${total} broken (${COPIES + 2} anchor-missing, 6 not-synced).`), text.stdout);
      const github = await withSummary(f, ['--push', '--check-links', '--dry-run'], { KBSYNC_TOKEN: '' });
      assert.match(github.summary, new RegExp(`^${total} broken links in ${COPIES + 2} files: ${COPIES + 2} anchor-missing, 6 not-synced\\. The most frequent:$`, 'm'));
      assert.match(github.summary, new RegExp(`^\\| \`!\\[\\[ben#Sponsor this author\\]\\]\` \\| People/ben\\.md has no heading with the anchor #sponsor-this-author \\| ${COPIES + 1} \\| \`Community/Plugins/p00\\.md\` line 3:10 \\|$`, 'm'));
    },
    { env: { KBSYNC_LOG_LEVEL: 'error' } },
  );
});
