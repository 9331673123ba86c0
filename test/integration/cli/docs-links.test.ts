import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkUses } from '../../../src/links/index.js';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { owedResend } from '../../helpers/owed-resend.js';

/** A docs folder written for a static site generator: site-absolute, extensionless, folder, anchor, reference and encoded links. */
const DOCS: Record<string, string> = {
  'index.md': '# npm docs\n\nStart with [installing](/commands/npm-install) or the [scripts guide][scripts].\nSee [all commands](/commands/) and [config](using-npm/config.md#environment-variables).\n\n[scripts]: using-npm/scripts\n',
  'commands/index.md': '# Commands\n\n- [npm install](./npm-install)\n- [npm run](npm-run.md#synopsis)\n',
  'commands/npm-install.md': '---\ntitle: npm-install\n---\n# npm install\n\n## Synopsis\n\nRuns [scripts](../using-npm/scripts#life-cycle-scripts). Home: [docs](/).\n',
  'commands/npm-run.md': '# npm run\n\n## Synopsis\n\nSee [npm install](/commands/npm-install.md) and [folders](../using-npm/my%20folders.md).\n',
  'using-npm/scripts.md': '# Scripts\n\n## Life Cycle Scripts\n\nBack to [commands](../commands).\n',
  'using-npm/config.md': '# Config\n\n## Environment Variables\n\nText.\n',
  'using-npm/my folders.md': '# Folders\n\nText.\n',
};
const BROKEN = '# Broken\n\nA [gone page](/commands/npm-gone), an [image](../images/logo.png), and [far](../../outside.md).\n\nAlso [bad anchor](scripts#nope).\n';

/** Every link the knowledge base holds, by document title. */
function remoteLinks(f: SyncFixture): Map<string, string[]> {
  return new Map(f.remoteDocs().map((doc) => [doc.title, linkUses(doc.markdown ?? '', () => ({ kind: 'external' })).map((use) => use.url)]));
}

async function titleAt(url: string): Promise<string> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  const html = await response.text();
  const hash = new URL(url).hash.slice(1);
  if (hash) assert.ok(html.includes(`id="${decodeURIComponent(hash)}"`), `${url}: the page has the heading`);
  return /<h1 class="title">([^<]*)<\/h1>/.exec(html)?.[1] ?? '';
}

test('docs-site links become working document URLs in one push; the rest are reported with file and line; --check-links gates', async () => {
  await withSyncFixture(async (f) => {
    for (const [path, text] of Object.entries(DOCS)) await f.write(path, text);
    await f.write('using-npm/broken.md', BROKEN);
    await f.write('images/logo.png', 'not really a png');

    const gate = await f.sync(['--push', '--check-links']);
    assert.equal(gate.code, 5, gate.stderr);
    assert.equal(gate.report?.links.length, 4);
    assert.equal(f.remoteDocs().length, 0, '--check-links sent nothing');

    const run = await f.sync(['--push']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      run.report?.links.map((l) => [l.path, l.line, l.target, l.reason]),
      [
        ['using-npm/broken.md', 3, '/commands/npm-gone', 'missing'],
        ['using-npm/broken.md', 3, '../images/logo.png', 'not-synced'],
        ['using-npm/broken.md', 3, '../../outside.md', 'outside-root'],
        ['using-npm/broken.md', 5, 'scripts#nope', 'anchor-missing'],
      ],
    );
    const links = remoteLinks(f);
    const expected: Record<string, string[]> = {
      'npm docs': ['npm-install', 'Commands', 'Config', 'Scripts'],
      Commands: ['npm-install', 'npm run'],
      'npm-install': ['Scripts', 'npm docs'],
      'npm run': ['npm-install', 'Folders'],
      Scripts: ['Commands'],
      Broken: ['Scripts'],
    };
    for (const [title, targets] of Object.entries(expected)) {
      const urls = (links.get(title) ?? []).filter((url) => url.startsWith(f.em.seed.baseUrl));
      assert.deepEqual(await Promise.all(urls.map(titleAt)), targets, `links of "${title}"`);
    }
    assert.deepEqual(links.get('Broken')?.filter((url) => !url.startsWith('http')), ['/commands/npm-gone', '../images/logo.png', '../../outside.md'], 'broken links stay as written');

    await f.write('using-npm/broken.md', '# Broken\n\nFixed: [scripts](scripts#life-cycle-scripts).\n');
    const clean = await f.sync(['--push', '--check-links']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.deepEqual(clean.report?.links, []);
    assert.deepEqual(await Promise.all((remoteLinks(f).get('Broken') ?? []).map(titleAt)), ['Scripts']);
    const fixed = remoteLinks(f);

    // CI: a fresh checkout (no ledger) finds its documents again and sends nothing: the links were right when sent.
    await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
    const again = await f.sync(['--push']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.report?.callsByEndpoint['overwriteContent'] ?? 0, 0);
    assert.deepEqual(remoteLinks(f), fixed);
  });
});

test('new files linking to each other (forward, backward, in a cycle, to itself) each go out once, whole: create and overwrite, read back by the next read', async () => {
  await withSyncFixture(async (f) => {
    const files: Record<string, string> = {
      'a.md': '# A\n\nNext: [b](b.md), and back to [the top](a.md).\n',
      'b.md': '# B\n\nOn to [c](sub/c.md), back to [a](a.md).\n',
      'sub/c.md': '# C\n\nAround to [a](../a.md) and [d](../d.md).\n',
      'd.md': '# D\n\nNo links.\n',
    };
    for (const [path, text] of Object.entries(files)) await f.write(path, text);
    const run = await f.sync(['--push']);
    assert.equal(run.code, 0, run.stderr);
    const expected: Record<string, string[]> = { A: ['B', 'A'], B: ['C', 'A'], C: ['A', 'D'], D: [] };
    const links = remoteLinks(f);
    for (const [title, targets] of Object.entries(expected)) assert.deepEqual(await Promise.all((links.get(title) ?? []).map(titleAt)), targets, `links of "${title}"`);
    for (const doc of f.remoteDocs()) {
      // Read back once its minute is over, by the next run's first read of it (act/apply-body.ts): not in this run.
      assert.deepEqual(f.em.admin.callsOn(doc.dentryUuid), { overwriteContent: 1 }, `"${doc.title}" got its body once, and no read yet`);
    }
    const again = await f.sync(['--push']);
    assert.equal(again.report?.calls, 0, 'nothing is owed: no body is sent again');
  });
});

test('more new files waiting for one target than the run works on at once: the waits give their places up, and the target is made', async () => {
  await withSyncFixture(async (f) => {
    // 24 documents are worked on at once; the 40 pages before z.md in path order all wait for its document.
    const pages = Array.from({ length: 40 }, (_, i) => `Page ${String(i).padStart(2, '0')}`);
    for (const page of pages) await f.write(`${page.replace(' ', '-')}.md`, `# ${page}\n\nSee [the last page](z.md).\n`);
    await f.write('z.md', '# Z\n');
    const run = await f.sync(['--push']);
    assert.equal(run.code, 0, run.stderr);
    const links = remoteLinks(f);
    for (const page of pages) {
      assert.deepEqual(await Promise.all((links.get(page) ?? []).map(titleAt)), ['Z'], `the link of "${page}"`);
      assert.equal(f.em.admin.callsOn(f.remoteDoc(page).dentryUuid).overwriteContent, 1, `"${page}" was sent once`);
    }
  });
});

test('a link to a file added later is sent again once its document exists, and never again; a link to a deleted one is reported', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nSee [b](b.md).\n');
    const first = await f.sync(['--push']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.report?.links.map((l) => l.reason), ['missing']);
    await f.write('b.md', '# B\n');
    const second = await f.sync(['--push']);
    assert.equal(second.code, 0, second.stderr);
    const [url] = remoteLinks(f).get('A') ?? [];
    assert.equal(await titleAt(url ?? ''), 'B', 'a.md was sent again with b.md\'s document URL');
    const third = await f.sync(['--push']);
    assert.equal(third.report?.callsByEndpoint['overwriteContent'] ?? 0, 0, 'steady state: nothing sent again');

    await f.remove('b.md');
    const fourth = await f.sync(['--push']);
    assert.equal(fourth.code, 0, fourth.stderr);
    assert.deepEqual(
      fourth.report?.links.map((l) => [l.path, l.line, l.target, l.message]),
      [['a.md', 3, 'b.md', 'b.md was deleted, and its document with it']],
      'the unchanged file whose link died with the document is told about',
    );
  });
});

test('`sync --push --check-links --dry-run` needs no token and no service settings: the local files alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-links-'));
  try {
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, 'docs', 'a.md'), '# A\n\n[b](/b) [c](c)\n');
    await writeFile(join(dir, 'docs', 'b.md'), '# B\n');
    const broken = await runCli(['sync', '--push', '--check-links', '--dry-run', '--json'], { cwd: dir, env: { KBSYNC_ROOT: 'docs' } });
    assert.equal(broken.code, 5, broken.stderr);
    const report = JSON.parse(broken.stdout) as { ok: boolean; exitCode: number; links: { path: string; line: number; target: string }[] };
    assert.deepEqual([report.ok, report.exitCode], [false, 5]);
    assert.deepEqual(report.links.map((l) => [l.path, l.line, l.target]), [['a.md', 3, 'c']]);
    assert.match(broken.stderr, /checked from the local files alone/);
    await writeFile(join(dir, 'docs', 'c.md'), '# C\n');
    const fine = await runCli(['sync', '--push', '--check-links', '--dry-run'], { cwd: dir, env: { KBSYNC_ROOT: 'docs' } });
    assert.equal(fine.code, 0, fine.stderr);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a re-send that failed (or a run stopped before it) is owed: the next run sends it, with the new URL', async () => {
  await withSyncFixture(async (f) => {
    const failing = await owedResend(f);
    assert.equal(failing.code, 1, failing.stderr);
    const next = await f.sync(['--push']);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.report?.callsByEndpoint['overwriteContent'], 1);
    const [url] = remoteLinks(f).get('A') ?? [];
    assert.equal(await titleAt(url ?? ''), 'b');
    assert.equal((await f.sync(['--push'])).report?.callsByEndpoint['overwriteContent'] ?? 0, 0, 'owed once, sent once');
  });
});
