import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdir, readFile, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Images published through the user's own storage, end to end: the real CLI, the emulator over HTTP, an
 * upload command that copies each image into a folder served by a local HTTP server (as a storage CLI puts
 * it in a bucket), and a diagram command that turns a fenced source into an SVG.
 */

type ImageHost = { readonly base: string; readonly store: string; readonly log: string; uploads(): Promise<string[]>; close(): Promise<void> };

async function startImageHost(dir: string): Promise<ImageHost> {
  const store = join(dir, 'bucket');
  await mkdir(store, { recursive: true });
  const server: Server = createServer((request, response) => {
    readFile(join(store, decodeURIComponent((request.url ?? '/').slice(1)).replace(/[/\\]/g, '')))
      .then((bytes) => response.writeHead(200).end(bytes))
      .catch(() => response.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const log = join(dir, 'uploads.log');
  await writeFile(log, '');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    log,
    uploads: async () => (await readFile(log, 'utf8')).split('\n').filter((line) => line !== ''),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The upload command: copies $1 into the bucket under its content-addressed name and prints its URL. Fails for *broken*, hangs for *slow*. */
const uploader = (host: ImageHost): string =>
  `case "$1" in *broken*) echo "bucket refused the file" >&2; exit 3;; *slow*) sleep 30;; esac; ` +
  `cp "$1" "${host.store}/$KBSYNC_IMAGE_KEY" && echo "$(basename "$1") $2 $3" >> "${host.log}" && echo "uploaded" && echo "${host.base}/$KBSYNC_IMAGE_KEY"`;

/** A stand-in for a diagram CLI: the SVG holds the source, so another source renders to other bytes. */
const RENDERER = `printf '<svg xmlns="http://www.w3.org/2000/svg"><desc>%s</desc></svg>' "$(tr -d '\\n' < "$1")" > "$2"`;

/** PNG files as far as anyone can tell from their first bytes (kbsync publishes only files whose bytes are an image's). */
const png = (text: string): Buffer => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from(text)]);
const PNG_A = png('-flow');
const PNG_B = png('-screenshot');
const PNG_C = png('-architecture');

const GUIDE = [
  '# Deploy guide',
  '',
  'The flow, step by step:',
  '',
  '![the flow](img/flow.png)',
  '',
  'A screenshot inline <img src="img/screen shot.png" width="300"> beside text, and a badge ![ci](https://ci.example.com/badge.svg) left alone.',
  '',
  '```mermaid',
  'graph TD; A-->B',
  '```',
  '',
  'The architecture, by reference:',
  '',
  '![architecture][arch]',
  '',
  'Last paragraph.',
  '',
  '[arch]: ../shared/arch.png',
  '',
].join('\n');

async function writeImages(f: SyncFixture): Promise<void> {
  await mkdir(join(f.root, 'guides/img'), { recursive: true });
  await mkdir(join(f.root, 'shared'), { recursive: true });
  await writeFile(join(f.root, 'guides/img/flow.png'), PNG_A);
  await writeFile(join(f.root, 'guides/img/screen shot.png'), PNG_B);
  await writeFile(join(f.root, 'shared/arch.png'), PNG_C);
}

/** The http(s) image URLs a document received, in order. */
const imageUrls = (markdown: string, base: string): string[] => [...markdown.matchAll(/https?:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{64}\.(?:png|svg)/g)].map((m) => m[0]).filter((url) => url.startsWith(base));

async function fetchBytes(url: string): Promise<Buffer> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return Buffer.from(await response.arrayBuffer());
}

function imagesConfig(host: ImageHost, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { images: { upload: uploader(host), timeoutMs: 2000, diagrams: { command: RENDERER }, ...extra } };
}

/** Rewrites the fixture's config with `images` settings (the fixture writes its own first). */
async function configure(f: SyncFixture, images: Record<string, unknown>): Promise<void> {
  const config = JSON.parse(await readFile(f.configPath, 'utf8')) as Record<string, unknown>;
  await writeFile(f.configPath, JSON.stringify({ ...config, ...images }, null, 2));
}

/** A fixture whose config publishes images to a fresh image host (`extra` laid over the images settings). */
async function withImageHost(fn: (f: SyncFixture, host: ImageHost) => Promise<void>, extra: Record<string, unknown> = {}): Promise<void> {
  await withSyncFixture(async (f) => {
    const host = await startImageHost(f.dir);
    try {
      await configure(f, imagesConfig(host, extra));
      await fn(f, host);
    } finally {
      await host.close();
    }
  });
}

describe('images published through the user\'s own storage', () => {
  test('screenshots and a diagram publish with working URLs; a rerun uploads nothing; one changed image uploads one; a renamed one none', async () => {
    await withImageHost(async (f, host) => {
      await writeImages(f);
      await f.write('guides/deploy.md', GUIDE);
      await f.write('plain.md', '# Plain\n\nNo images here.\n');

      const preview = await f.cli(['sync', '--push', '--dry-run']);
      assert.equal(preview.code, 0, preview.stderr);
      assert.match(preview.stdout, /Dry run: .*4 image\(s\) to upload/, 'a dry run says what it would upload');
      assert.deepEqual(await host.uploads(), [], 'and uploads nothing');

      const first = await f.sync(['--push']);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(first.report?.images, []);
      assert.equal(first.report?.imageUploads, 4);
      const uploads = await host.uploads();
      assert.equal(uploads.length, 4, `three images and one diagram: ${uploads.join(' | ')}`);
      assert.ok(uploads.some((line) => line.endsWith(' image/svg+xml')), 'the diagram went up as SVG');

      const sent = f.remoteDoc('Deploy guide').markdown ?? '';
      const urls = imageUrls(sent, host.base);
      assert.equal(urls.length, 4, sent);
      assert.deepEqual(await fetchBytes(urls[0] as string), PNG_A, 'the flow image is served at its URL');
      assert.deepEqual(await fetchBytes(urls[1] as string), PNG_B, 'the <img src> screenshot too');
      assert.match((await fetchBytes(urls[2] as string)).toString(), /<svg[^>]*><desc>graph TD; A-->B<\/desc>/, 'the diagram rendered from its source');
      assert.deepEqual(await fetchBytes(urls[3] as string), PNG_C, 'the reference-style image too');
      assert.match(sent, /!\[mermaid diagram\]\(http/, 'the diagram is published as its image');
      assert.ok(!sent.includes('```mermaid'), 'not as code');
      assert.ok(sent.includes('![ci](https://ci.example.com/badge.svg)'), 'a remote image is left as written');
      assert.ok(sent.includes('width="300"'), 'the HTML keeps its other attributes');
      assert.equal(await f.read('guides/deploy.md'), GUIDE, 'the file keeps its own references, byte for byte');

      const rerun = await f.sync(['--push']);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.equal((await host.uploads()).length, 4, 'a rerun uploads nothing');
      assert.equal(rerun.report?.calls, 0, 'and calls nothing');

      await writeFile(join(f.root, 'guides/img/flow.png'), Buffer.concat([PNG_A, Buffer.from('-v2')]));
      // status says what the run will do: the file whose image changed is changed here, not clean (issue 29).
      const status = await f.cli(['status', '--push', '--json']);
      const deploy = (JSON.parse(status.stdout) as { files: { path: string; state: string; action?: string }[] }).files.find((file) => file.path === 'guides/deploy.md');
      assert.deepEqual({ state: deploy?.state, action: deploy?.action }, { state: 'local-changed', action: 'push' }, status.stdout);
      const changed = await f.sync(['--push']);
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal((await host.uploads()).length, 5, 'one changed image: one upload');
      assert.equal(changed.report?.imageUploads, 1);
      assert.deepEqual(changed.report?.results.map((r) => [r.path, r.ok && r.result]), [['guides/deploy.md', 'pushed']], 'the document using it is sent again');
      const resent = imageUrls(f.remoteDoc('Deploy guide').markdown ?? '', host.base);
      assert.notEqual(resent[0], urls[0], 'it shows the new image');
      assert.deepEqual(await fetchBytes(resent[0] as string), Buffer.concat([PNG_A, Buffer.from('-v2')]));
      assert.deepEqual(resent.slice(1), urls.slice(1), 'the others keep their URLs');

      await rename(join(f.root, 'shared/arch.png'), join(f.root, 'shared/architecture.png'));
      await f.write('guides/deploy.md', GUIDE.replace('../shared/arch.png', '../shared/architecture.png'));
      const renamed = await f.sync(['--push']);
      assert.equal(renamed.code, 0, renamed.stderr);
      assert.equal((await host.uploads()).length, 5, 'a renamed image is the same content: no upload');
      assert.deepEqual(imageUrls(f.remoteDoc('Deploy guide').markdown ?? '', host.base), resent);
    });
  });

  test('a second machine and a stateless CI run reuse the uploads; a colleague\'s paragraph edit leaves every local image reference as written', async () => {
    await withImageHost(async (a, host) => {
      await writeImages(a);
      await a.write('guides/deploy.md', GUIDE);
      assert.equal((await a.sync(['--push'])).code, 0);
      assert.equal((await host.uploads()).length, 4);

      // Machine B clones, with its own config that publishes images the same way.
      const clone = join(a.dir, 'second');
      const cloned = await a.cli(['clone', a.em.seed.workspaceUrl, clone]);
      assert.equal(cloned.code, 0, `${cloned.stdout}\n${cloned.stderr}`);
      assert.equal(await readFile(join(clone, 'guides/deploy.md'), 'utf8'), GUIDE, 'the clone has the references as written, not URLs or placeholders');
      const bConfigPath = join(clone, 'sync.config.json');
      const bConfig = JSON.parse(await readFile(bConfigPath, 'utf8')) as Record<string, unknown>;
      await writeFile(bConfigPath, JSON.stringify({ ...bConfig, ...imagesConfig(host) }));
      const b = (args: string[]) => runCli([...args, '--config', bConfigPath, '--json'], { cwd: clone, env: a.env });

      // The colleague edits a paragraph in the web editor (which keeps the images it shows).
      const doc = a.remoteDoc('Deploy guide');
      a.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Last paragraph.', 'Last paragraph, edited on the web.'));
      const expected = GUIDE.replace('Last paragraph.', 'Last paragraph, edited on the web.');
      const aPull = await a.sync([]);
      assert.equal(aPull.code, 0, aPull.stderr);
      assert.equal(await a.read('guides/deploy.md'), expected, 'A: the edit came in, every image reference as written');
      assert.equal(imageUrls(a.remoteDoc('Deploy guide').markdown ?? '', host.base).length, 4, `A's pull leaves the published images: ${a.remoteDoc('Deploy guide').markdown}`);
      const bPull = await b(['sync']);
      assert.equal(bPull.code, 0, bPull.stderr);
      assert.equal(await readFile(join(clone, 'guides/deploy.md'), 'utf8'), expected, 'B: the same');
      assert.equal(imageUrls(a.remoteDoc('Deploy guide').markdown ?? '', host.base).length, 4, `B, without the image files, takes no image away: ${a.remoteDoc('Deploy guide').markdown}\n${bPull.stdout}\n${bPull.stderr}`);
      assert.equal((await host.uploads()).length, 4, 'nothing uploaded by either pull');

      // B has the images too (a git checkout); a local edit there pushes with the URLs A uploaded.
      await mkdir(join(clone, 'guides/img'), { recursive: true });
      await mkdir(join(clone, 'shared'), { recursive: true });
      await writeFile(join(clone, 'guides/img/flow.png'), PNG_A);
      await writeFile(join(clone, 'guides/img/screen shot.png'), PNG_B);
      await writeFile(join(clone, 'shared/arch.png'), PNG_C);
      const urlsBefore = imageUrls(a.remoteDoc('Deploy guide').markdown ?? '', host.base);
      await writeFile(join(clone, 'guides/deploy.md'), expected.replace('The flow, step by step:', 'The flow, step by step (B):'));
      // The document holds the colleague's web edit, which the service shows only as plain text: the overwrite
      // waits for the user's word (FLATTEN), and --force gives it.
      const bHeld = await b(['sync', '--push']);
      assert.equal(bHeld.code, 1, `${bHeld.stdout}\n${bHeld.stderr}`);
      const bPush = await b(['sync', '--push', '--force']);
      assert.equal(bPush.code, 0, `${bPush.stdout}\n${bPush.stderr}`);
      assert.equal((await host.uploads()).length, 4, 'B uploads nothing: the URLs come from the shared state');
      assert.deepEqual(imageUrls(a.remoteDoc('Deploy guide').markdown ?? '', host.base), urlsBefore);

      // The state written anew (after damage, from A once it has taken B's push in) keeps every image URL.
      assert.equal((await a.sync([])).code, 0);
      const rewritten = await a.cli(['state', 'rewrite']);
      assert.equal(rewritten.code, 0, `${rewritten.stdout}\n${rewritten.stderr}`);

      // A docs-as-code CI run: a fresh checkout, no ledger at all.
      const ci = join(a.dir, 'ci');
      await mkdir(ci);
      for (const [from, to] of [['second/guides', 'ci/guides'], ['second/shared', 'ci/shared']] as const) await copyTree(join(a.dir, from), join(a.dir, to));
      await writeFile(join(ci, 'sync.config.json'), JSON.stringify({ ...bConfig, root: '.', ...imagesConfig(host) }));
      const ciRun = await runCli(['sync', '--push', '--json', '--config', join(ci, 'sync.config.json')], { cwd: ci, env: a.env });
      assert.equal(ciRun.code, 0, `${ciRun.stdout}\n${ciRun.stderr}`);
      assert.equal((await host.uploads()).length, 4, 'the CI run uploads nothing either');
    });
  });

  for (const point of ['after-create', 'after-overwrite', 'before-ledger-commit']) {
    test(`killed at ${point} after the uploads: the rerun uploads nothing again, makes no second document, and the document has every URL`, async () => {
      await withImageHost(async (f, host) => {
        await writeImages(f);
        await f.write('guides/deploy.md', GUIDE);
        const killed = await f.sync(['--push'], { KBSYNC_CRASH_AT: point });
        assert.equal(killed.signal ?? killed.code, 'SIGKILL', `${killed.stdout}\n${killed.stderr}`);
        assert.equal((await host.uploads()).length, 4);
        const rerun = await f.sync(['--push']);
        assert.equal(rerun.code, 0, rerun.stderr);
        assert.equal((await host.uploads()).length, 4, 'what was uploaded before the kill is not uploaded again');
        assert.equal(f.remoteDocs().filter((doc) => doc.title === 'Deploy guide').length, 1);
        assert.equal(imageUrls(f.remoteDoc('Deploy guide').markdown ?? '', host.base).length, 4);
        const settled = await f.sync(['--push']);
        assert.equal(settled.report?.calls, 0, 'and then nothing is left to do');
      });
    });
  }

  test('a failing or hanging uploader fails that file alone, clearly, and sends nothing of it; the rest of the run completes', async () => {
    await withImageHost(async (f, host) => {
      await mkdir(join(f.root, 'img'), { recursive: true });
      await writeFile(join(f.root, 'img/broken.png'), PNG_A);
      await writeFile(join(f.root, 'img/slow.png'), PNG_B);
      await writeFile(join(f.root, 'img/fine.png'), PNG_C);
      await f.write('a-broken.md', '# Broken upload\n\nText.\n\n![x](img/broken.png)\n');
      await f.write('b-slow.md', '# Slow upload\n\n![y](img/slow.png)\n');
      await f.write('c-fine.md', '# Fine\n\n![z](img/fine.png)\n');
      await f.write('d-plain.md', '# Plain\n\nNo image.\n');

      const started = Date.now();
      const run = await f.sync(['--push']);
      assert.ok(Date.now() - started < 20_000, 'the hanging command was stopped at its timeout');
      assert.equal(run.code, 1, run.stderr);
      const failed = (run.report?.results ?? []).filter((r) => !r.ok);
      assert.deepEqual(failed.map((r) => [r.path, !r.ok && r.code]), [
        ['a-broken.md', 'IMAGE_UPLOAD_FAILED'],
        ['b-slow.md', 'IMAGE_UPLOAD_FAILED'],
      ]);
      const message = (path: string) => failed.find((r) => r.path === path && !r.ok) as { error: string };
      assert.match(message('a-broken.md').error, /a-broken\.md:5: the image "img\/broken\.png" could not be published: the upload command failed: it exited with code 3: bucket refused the file/);
      assert.match(message('b-slow.md').error, /b-slow\.md:3: .*did not finish within 1500 ms/);
      assert.deepEqual(
        f.remoteDocs().map((d) => d.title).sort(),
        ['Fine', 'Plain'],
        'nothing of the failed files was published',
      );
      assert.equal(imageUrls(f.remoteDoc('Fine').markdown ?? '', host.base).length, 1);

      // Fixed: the next run publishes them.
      await configure(f, imagesConfig(host, { upload: uploader(host).replace('*broken*)', '*never*)').replace('*slow*)', '*never2*)') }));
      const again = await f.sync(['--push']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(f.remoteDocs().length, 4);
    }, { timeoutMs: 1500 });
  });

  test('with no image settings, local images are said (file, line, why) and the document is published as before; refused paths are never uploaded', async () => {
    await withSyncFixture(async (f) => {
      await mkdir(join(f.root, 'img'), { recursive: true });
      await writeFile(join(f.root, 'img/a.png'), PNG_A);
      await f.write('page.md', '# Page\n\n![a](img/a.png)\n');
      const none = await f.sync(['--push']);
      assert.equal(none.code, 0, none.stderr);
      assert.deepEqual(none.report?.images.map((i) => [i.path, i.line, i.target, i.reason]), [['page.md', 3, 'img/a.png', 'not-configured']]);
      assert.ok((f.remoteDoc('Page').markdown ?? '').includes('![a](img/a.png)'), 'sent as written');
      const human = await f.cli(['sync', '--push', '--dry-run']);
      assert.equal(human.code, 0);

      const host = await startImageHost(f.dir);
      try {
        await configure(f, imagesConfig(host, { maxBytes: 64 }));
        await writeFile(join(f.dir, 'secret.png'), PNG_B);
        await symlink(join(f.dir, 'secret.png'), join(f.root, 'img/link.png'));
        await writeFile(join(f.root, 'img/big.png'), Buffer.alloc(65, 1));
        await f.write('page.md', '# Page\n\n![a](img/a.png)\n\n![out](../secret.png) ![link](img/link.png)\n\n![big](img/big.png) ![gone](img/gone.png)\n');
        const run = await f.sync(['--push']);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual(run.report?.images.map((i) => [i.line, i.target, i.reason]), [
          [5, '../secret.png', 'outside-root'],
          [5, 'img/link.png', 'outside-root'],
          [7, 'img/big.png', 'too-large'],
          [7, 'img/gone.png', 'missing'],
        ]);
        assert.deepEqual(await host.uploads().then((lines) => lines.map((line) => line.split(' ')[0])), ['a.png'], 'only the image inside the root, within the limit, went up');
        assert.deepEqual(await readdir(host.store).then((names) => names.length), 1);
      } finally {
        await host.close();
      }
    });
  });

  test('images.baseUrl maps paths under the docs site with no upload at all', async () => {
    await withSyncFixture(async (f) => {
      await configure(f, { images: { baseUrl: 'https://docs.example.com/site/' } });
      await mkdir(join(f.root, 'guide/img'), { recursive: true });
      await writeFile(join(f.root, 'guide/img/flow chart.png'), PNG_A);
      await f.write('guide/page.md', '# Page\n\n![flow](img/flow%20chart.png)\n');
      const run = await f.sync(['--push']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.report?.images, []);
      assert.ok((f.remoteDoc('Page').markdown ?? '').includes('![flow](https://docs.example.com/site/guide/img/flow%20chart.png)'), f.remoteDoc('Page').markdown);
      const rerun = await f.sync(['--push']);
      assert.equal(rerun.report?.calls, 0);
    });
  });
});

async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name));
    else await writeFile(join(to, entry.name), await readFile(join(from, entry.name)));
  }
}
