import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { KbsyncError } from '../../../src/errors.js';
import { ImagePublisher, type ImagePublisherDeps } from '../../../src/images/publisher.js';
import { NO_IMAGES, type ImageSettings, type ImageUrlCache, type SentImage } from '../../../src/images/types.js';
import type { LinkSite } from '../../../src/links/types.js';

const hex = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');
/** An image file's content in these tests: a GIF signature (only files whose bytes are an image's are published), then the text. */
const image = (text: string): string => `GIF89a${text}`;
const fileKey = (text: string): string => `sha256:${hex(image(text))}`;
/** The diagram key as the publisher derives it: the format, the language as written and the source, NUL-separated. */
const diagramKey = (format: string, language: string, source: string): string => `diagram:${hex(`${format}\0${language}\0${source}`)}`;

type MemoryCache = ImageUrlCache & { readonly map: Map<string, string> };
const memoryCache = (entries: Record<string, string> = {}): MemoryCache => {
  const map = new Map(Object.entries(entries));
  return { map, get: (key) => map.get(key), put: (key, url) => void map.set(key, url) };
};

const SITE: LinkSite = { root: '', basePath: '/' };
/** Upload configured: keys are by content. The command never runs in the synchronous tests. */
const UPLOAD: ImageSettings = { ...NO_IMAGES, upload: 'exit 99' };

async function tempDir(t: { after: (fn: () => Promise<void>) => void }, prefix = 'kbsync-images-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes an image file holding `text` after its signature (see `image`). */
async function put(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), image(text));
}

function publisherOf(root: string, settings: ImageSettings, more: Partial<ImagePublisherDeps> = {}): { images: ImagePublisher; cache: MemoryCache } {
  const cache = (more.cache as MemoryCache | undefined) ?? memoryCache();
  return { images: new ImagePublisher({ root, site: SITE, settings, cache, ...more }), cache };
}

/** Calls `fn`, expecting it to reject with IMAGE_UPLOAD_FAILED; returns the message. */
async function uploadFailure(fn: () => Promise<void>): Promise<string> {
  const error: unknown = await fn().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof KbsyncError, `expected a KbsyncError, got ${String(error)}`);
  assert.equal(error.code, 'IMAGE_UPLOAD_FAILED');
  return error.message;
}

describe('rewriting a body to image URLs', () => {
  test('only the URL characters of cached images change; uncached, external and data images stay as written', async (t) => {
    const root = await tempDir(t);
    await put(root, 'docs/img/a.png', 'AAA');
    await put(root, 'docs/img/b.png', 'BBB');
    const { images } = publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('AAA')]: 'https://cdn.example/a' }) });
    const body = [
      '# Page',
      '',
      '![a](img/a.png "Title A") and ![b](img/b.png)',
      '',
      '<img src="img/a.png" width=30>',
      '',
      '![ext](https://example.com/x.png) ![data](data:image/png;base64,AAAA)',
      '',
      '![ref][r] and ![pointy](<img/a.png>)',
      '',
      '[r]: ./img/a.png "T"',
      '',
    ].join('\n');
    assert.equal(images.sentImages('docs/page.md'), undefined, 'nothing rewritten yet');
    assert.equal(images.rewrite(body, 'docs/page.md'), body.replace(/(\.\/)?img\/a\.png/g, 'https://cdn.example/a'));

    const { size, mtimeMs } = await stat(join(root, 'docs/img/a.png'));
    const a: SentImage = { p: 'docs/img/a.png', h: fileKey('AAA'), u: 'https://cdn.example/a', s: size, m: mtimeMs };
    const b = await stat(join(root, 'docs/img/b.png'));
    assert.deepEqual(images.sentImages('docs/page.md'), [a, { p: 'docs/img/b.png', h: fileKey('BBB'), u: '', s: b.size, m: b.mtimeMs }, a, a, a], 'in source order; external ones are not sent images');
  });

  test('a site-absolute image resolves from the site root', async (t) => {
    const root = await tempDir(t);
    await put(root, 'img/logo.png', 'LOGO');
    const { images } = publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('LOGO')]: 'https://cdn.example/logo' }) });
    assert.equal(images.rewrite('![l](/img/logo.png)\n', 'deep/down/page.md'), '![l](https://cdn.example/logo)\n');
  });

  test('the same bytes under two names share one URL', async (t) => {
    const root = await tempDir(t);
    await put(root, 'a.png', 'SAME');
    await put(root, 'copy.png', 'SAME');
    const { images } = publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('SAME')]: 'https://cdn.example/same' }) });
    assert.equal(images.rewrite('![a](a.png) ![b](copy.png)\n', 'p.md'), '![a](https://cdn.example/same) ![b](https://cdn.example/same)\n');
  });

  test('a body without any image is returned as is', async (t) => {
    const root = await tempDir(t);
    const { images } = publisherOf(root, UPLOAD);
    const body = '# Title\n\n[a link](x.png) and *text*\n';
    assert.equal(images.rewrite(body, 'p.md'), body);
  });

  test(
    'sentImages of a rewritten body without images is empty, not undefined (which means "not rewritten this run")',
    async (t) => {
      const root = await tempDir(t);
      const { images } = publisherOf(root, UPLOAD);
      images.rewrite('No images here.\n', 'p.md');
      assert.deepEqual(images.sentImages('p.md'), []);
    },
  );

  test('a diagram whose key is cached is replaced, fence and all, by an image of it', async (t) => {
    const root = await tempDir(t);
    const settings: ImageSettings = { ...UPLOAD, diagrams: { command: 'exit 99', languages: ['mermaid'], format: 'svg' } };
    const source = 'graph TD\n  A --> B';
    const { images } = publisherOf(root, settings, { cache: memoryCache({ [diagramKey('svg', 'mermaid', source)]: 'https://cdn.example/d.svg' }) });
    const body = `Before.\n\n\`\`\`mermaid\n${source}\n\`\`\`\n\nAfter.\n\n\`\`\`mermaid\nnot cached\n\`\`\`\n`;
    assert.equal(images.rewrite(body, 'p.md'), 'Before.\n\n![mermaid diagram](https://cdn.example/d.svg)\n\nAfter.\n\n```mermaid\nnot cached\n```\n');
    assert.deepEqual(images.sentImages('p.md'), [
      { p: 'mermaid', h: diagramKey('svg', 'mermaid', source), u: 'https://cdn.example/d.svg', d: 1 },
      { p: 'mermaid', h: diagramKey('svg', 'mermaid', 'not cached'), u: '', d: 1 },
    ]);
  });

  test(
    'a fence whose language differs in case from the configured one is a diagram whether or not the body has other images',
    async (t) => {
      const root = await tempDir(t);
      const settings: ImageSettings = { ...UPLOAD, diagrams: { command: 'exit 99', languages: ['mermaid'], format: 'svg' } };
      const { images } = publisherOf(root, settings, { cache: memoryCache({ [diagramKey('svg', 'Mermaid', 'a')]: 'https://cdn.example/d.svg' }) });
      const withOther = '```Mermaid\na\n```\n\n![e](https://example.com/e.png)\n';
      assert.equal(images.rewrite(withOther, 'p.md'), '![Mermaid diagram](https://cdn.example/d.svg)\n\n![e](https://example.com/e.png)\n');
      assert.equal(images.rewrite('```Mermaid\na\n```\n', 'p.md'), '![Mermaid diagram](https://cdn.example/d.svg)\n');
    },
  );

  test('the diagram key depends on the format: a png render is another image than an svg one', async (t) => {
    const root = await tempDir(t);
    const settings: ImageSettings = { ...UPLOAD, diagrams: { command: 'exit 99', languages: ['dot'], format: 'png' } };
    const { images } = publisherOf(root, settings, { cache: memoryCache({ [diagramKey('svg', 'dot', 'a -> b')]: 'https://cdn.example/svg' }) });
    const body = '```dot\na -> b\n```\n';
    assert.equal(images.rewrite(body, 'p.md'), body);
  });

  test('property: whatever text surrounds the images, only URLs change, and replacing them back gives the body', async (t) => {
    const root = await tempDir(t);
    const paths = ['img/p0.png', 'img/p1.png', 'img/p2.png'];
    // The cached URLs hold a character the generated text never has, so mapping them back is unambiguous.
    const urls = ['https://cdn.example/¤0', 'https://cdn.example/¤1'];
    for (const [i, path] of paths.entries()) await put(root, path, `bytes of ${i}`);
    const cache = memoryCache({ [fileKey('bytes of 0')]: urls[0] as string, [fileKey('bytes of 1')]: urls[1] as string });
    const { images } = publisherOf(root, UPLOAD, { cache });

    const forms: ((path: string, n: number) => { inline: string; definition?: string })[] = [
      (p) => ({ inline: `![alt](${p})` }),
      (p) => ({ inline: `![alt *x*](${p} "title")` }),
      (p) => ({ inline: `![alt](<${p}>)` }),
      (p) => ({ inline: `<img src="${p}" width=10>` }),
      (p) => ({ inline: `<img alt='a' src='${p}'>` }),
      // An unquoted src holding a `/` is HTML to the parser only inside an HTML block (see find.test.ts).
      (p) => ({ inline: `<img data-x="1" src="${p}"/>` }),
      (p, n) => ({ inline: `![alt][r${n}]`, definition: `[r${n}]: ${p}` }),
    ];
    const image = fc.record({ form: fc.nat({ max: forms.length - 1 }), file: fc.nat({ max: paths.length - 1 }) });
    const build = (texts: readonly string[], chosen: readonly { form: number; file: number }[], glue: (text: string, image: string) => string): string => {
      const definitions: string[] = [];
      const parts = chosen.map(({ form, file }, n) => {
        const written = (forms[form] as (typeof forms)[number])(paths[file] as string, n);
        if (written.definition) definitions.push(written.definition);
        return glue(texts[n % Math.max(texts.length, 1)] ?? '', written.inline);
      });
      return [...parts, ...definitions, texts.at(-1) ?? ''].join('\n\n');
    };
    const reverse = (text: string): string => urls.reduce((out, url, i) => out.split(url).join(paths[i] as string), text);

    // Any text at all around the images, Markdown's special characters included: only URLs may change.
    const anyText = fc.string({ unit: fc.constantFrom(...'ab \n\t*_`[]()<>!#\\-:"\'&=/.|~'.split('')), maxLength: 40 });
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 6 }), fc.array(image, { minLength: 1, maxLength: 6 }), (texts, chosen) => {
        const body = build(texts, chosen, (text, img) => `${text}${img}${text}`);
        assert.equal(reverse(images.rewrite(body, 'page.md')), body);
      }),
      { numRuns: 300 },
    );

    // Plain paragraphs around them: then every cached image is replaced, and no uncached one.
    const word = fc.string({ unit: fc.constantFrom(...'abcXYZ019.,'.split('')), minLength: 1, maxLength: 8 });
    const paragraph = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 6 }), fc.array(image, { minLength: 1, maxLength: 6 }), (texts, chosen) => {
        const body = build(texts, chosen, (text, img) => `${text} ${img} ${text}`);
        const out = images.rewrite(body, 'page.md');
        assert.equal(reverse(out), body);
        for (const [i, url] of urls.entries()) {
          assert.equal(out.split(url).length - 1, chosen.filter((c) => c.file === i).length, `every image of ${paths[i]} is replaced`);
          assert.equal(out.includes(paths[i] as string), false);
        }
        assert.equal(out.split(paths[2] as string).length - 1, chosen.filter((c) => c.file === 2).length, 'the uncached image stays');
      }),
      { numRuns: 300 },
    );
  });
});

describe('images under images.baseUrl', () => {
  test('the path under the site root is appended, percent-encoded; nothing needs uploading', async (t) => {
    const root = await tempDir(t);
    await put(root, 'site/img/flow chart.png', 'FLOW');
    await put(root, 'site/img/(x).png', 'X');
    const settings: ImageSettings = { ...NO_IMAGES, baseUrl: 'https://docs.example.com/static//' };
    const cache = memoryCache();
    const images = new ImagePublisher({ root, site: { root: 'site', basePath: '/' }, settings, cache });
    const body = '![f](../img/flow%20chart.png) ![g](</img/flow chart.png>) ![x](../img/(x).png)\n';
    assert.equal(
      images.rewrite(body, 'site/guide/page.md'),
      '![f](https://docs.example.com/static/img/flow%20chart.png) ![g](<https://docs.example.com/static/img/flow%20chart.png>) ![x](https://docs.example.com/static/img/%28x%29.png)\n',
    );
    assert.deepEqual(images.problems('site/guide/page.md', body), []);
    await images.prepare(body, 'site/guide/page.md');
    assert.equal(cache.map.size, 0, 'no upload, nothing cached');
    assert.equal(images.sentImages('site/guide/page.md')?.[0]?.h, 'url:https://docs.example.com/static/img/flow%20chart.png');
  });

  test('an image inside the synced folder but outside the site root has no URL: outside-root', async (t) => {
    const root = await tempDir(t);
    await put(root, 'notes/x.png', 'X');
    const settings: ImageSettings = { ...NO_IMAGES, baseUrl: 'https://docs.example.com' };
    const images = new ImagePublisher({ root, site: { root: 'site', basePath: '/' }, settings, cache: memoryCache() });
    const body = 'Text\n\n![x](../notes/x.png)\n';
    assert.equal(images.rewrite(body, 'site/page.md'), body);
    assert.deepEqual(
      images.problems('site/page.md', body).map((p) => [p.line, p.target, p.reason]),
      [[3, '../notes/x.png', 'outside-root']],
    );
  });
});

describe('image problems', () => {
  test('without upload nor baseUrl every local image is not-configured; external ones are fine', async (t) => {
    const root = await tempDir(t);
    await put(root, 'a.png', 'A');
    const { images } = publisherOf(root, NO_IMAGES);
    const body = '![a](a.png)\n\n![e](https://example.com/e.png)\n\n<img src="a.png">\n';
    assert.deepEqual(
      images.problems('p.md', body).map((p) => [p.path, p.line, p.target, p.reason]),
      [
        ['p.md', 1, 'a.png', 'not-configured'],
        ['p.md', 5, 'a.png', 'not-configured'],
      ],
    );
    assert.equal(images.rewrite(body, 'p.md'), body);
  });

  test('missing, outside the root (by .. or by a symlink), too large, and an unreadable span; lines offset by the front matter', async (t) => {
    const root = await tempDir(t);
    const outside = await tempDir(t, 'kbsync-outside-');
    await put(outside, 'secret.png', 'SECRET');
    await put(root, 'docs/ok.png', '1234');
    await put(root, 'docs/big.png', '12345');
    await put(root, 'docs/a&b.png', 'AB');
    await symlink(join(outside, 'secret.png'), join(root, 'docs/link.png'));
    const { images } = publisherOf(root, { ...UPLOAD, maxBytes: image('1234').length });
    const body = ['![ok](ok.png)', '![gone](gone.png)', '![up](../../x.png)', '![link](link.png)', '![big](big.png)', ''].join('\n');
    const problems = images.problems('docs/page.md', body, 3);
    assert.deepEqual(
      problems.map((p) => [p.path, p.line, p.target, p.reason]),
      [
        ['docs/page.md', 5, 'gone.png', 'missing'],
        ['docs/page.md', 6, '../../x.png', 'outside-root'],
        ['docs/page.md', 7, 'link.png', 'outside-root'],
        ['docs/page.md', 8, 'big.png', 'too-large'],
      ],
    );
    assert.match(problems[0]?.message ?? '', /no file docs\/gone\.png/);
    assert.match(problems[3]?.message ?? '', /11 bytes, over images\.maxBytes \(10\)/);
    assert.equal(images.rewrite(body, 'docs/page.md'), body, 'nothing cached: every byte as written');

    // An entity in src: the file is there, but where its URL is written cannot be told apart.
    const entity = 'x\n\n<img src="a&amp;b.png">\n';
    assert.deepEqual(
      images.problems('docs/page.md', entity, 3).map((p) => [p.line, p.target, p.reason]),
      [[6, 'a&b.png', 'malformed']],
    );
  });

  test('the symlinked file is never published, even when its bytes are cached', async (t) => {
    const root = await tempDir(t);
    const outside = await tempDir(t, 'kbsync-outside-');
    await put(outside, 'secret.png', 'SECRET');
    await symlink(join(outside, 'secret.png'), join(root, 'link.png'));
    const log = join(outside, 'uploads.log');
    const { images } = publisherOf(root, { ...UPLOAD, upload: `echo "$1" >> "${log}"; echo https://cdn.example/x` }, { cache: memoryCache({ [fileKey('SECRET')]: 'https://cdn.example/secret' }) });
    const body = '![s](link.png)\n';
    assert.equal(images.rewrite(body, 'p.md'), body);
    await images.prepare(body, 'p.md');
    await assert.rejects(readFile(log), { code: 'ENOENT' }, 'the upload command never ran');
  });

  test('without upload a diagram is sent as code and said so (no-upload)', async (t) => {
    const root = await tempDir(t);
    const { images } = publisherOf(root, { ...NO_IMAGES, diagrams: { command: 'render', languages: ['mermaid'], format: 'svg' } });
    const body = 'x\n\n```mermaid\na\n```\n';
    assert.deepEqual(
      images.problems('p.md', body, 2).map((p) => [p.line, p.target, p.reason]),
      [[5, 'mermaid diagram', 'no-upload']],
    );
    assert.equal(images.rewrite(body, 'p.md'), body);
  });

  test('a missing file sent before keeps its previous URL, is reported as missing, and is not uploaded', async (t) => {
    const root = await tempDir(t);
    const log = join(root, 'uploads.log');
    const before: SentImage = { p: 'docs/img/gone.png', h: 'sha256:0ld', u: 'https://cdn.example/old' };
    const { images, cache } = publisherOf(
      root,
      { ...UPLOAD, upload: `echo "$1" >> "${log}"; echo https://cdn.example/new` },
      { sentBefore: (path) => (path === 'docs/page.md' ? [{ p: 'mermaid', h: 'diagram:x', u: 'https://cdn.example/d', d: 1 }, before] : undefined) },
    );
    const body = 'Intro\n\n![g](img/gone.png "t")\n';
    assert.equal(images.rewrite(body, 'docs/page.md'), 'Intro\n\n![g](https://cdn.example/old "t")\n');
    assert.deepEqual(images.sentImages('docs/page.md'), [before]);
    const [problem, ...others] = images.problems('docs/page.md', body, 1);
    assert.deepEqual(others, []);
    assert.equal(problem?.reason, 'missing');
    assert.equal(problem?.line, 4);
    assert.match(problem?.message ?? '', /keeps the image/);
    await images.prepare(body, 'docs/page.md');
    await assert.rejects(readFile(log), { code: 'ENOENT' }, 'the upload command never ran');
    assert.equal(cache.map.size, 0);

    // Another file's record does not lend its URL.
    assert.equal(images.rewrite(body, 'other/page.md'), body);
  });
});

describe('stale: did an image a document was sent with change?', () => {
  test('unchanged: no; other bytes (not cached): yes; a missing file or a diagram: no', async (t) => {
    const root = await tempDir(t);
    await put(root, 'a.png', 'AAA');
    const { images } = publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('AAA')]: 'https://cdn.example/a' }) });
    images.rewrite('![a](a.png)\n', 'p.md');
    const sent = images.sentImages('p.md') ?? [];
    assert.equal(sent.length, 1);
    assert.equal(images.stale(sent), false);
    assert.equal(images.stale([]), false);

    await writeFile(join(root, 'a.png'), image('AAAA-longer'));
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('AAA')]: 'https://cdn.example/a' }) }).images.stale(sent), true);
    assert.equal(images.stale(sent), true, 'the same publisher sees the change too');

    await rm(join(root, 'a.png'));
    assert.equal(images.stale(sent), false, 'a missing file proves nothing');
    assert.equal(images.stale([{ p: 'mermaid', h: 'diagram:abc', u: 'https://cdn.example/d', d: 1 }]), false);
  });

  test('new bytes already uploaded under another URL are stale too; the same URL is not', async (t) => {
    const root = await tempDir(t);
    await put(root, 'a.png', 'NEW');
    const sent: SentImage[] = [{ p: 'a.png', h: fileKey('OLD'), u: 'https://cdn.example/old' }];
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('NEW')]: 'https://cdn.example/new' }) }).images.stale(sent), true);
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache({ [fileKey('NEW')]: 'https://cdn.example/old' }) }).images.stale(sent), false);
  });

  test('an image sent before its upload (empty URL) stays stale until a body with its URL is sent', async (t) => {
    const root = await tempDir(t);
    await put(root, 'a.png', 'AAA');
    const cache = memoryCache();
    const { images } = publisherOf(root, UPLOAD, { cache });
    images.rewrite('![a](a.png)\n', 'p.md');
    const sent = images.sentImages('p.md') ?? [];
    assert.equal(sent[0]?.u, '');
    assert.equal(images.stale(sent), true, 'the upload is still to do');
    cache.put(fileKey('AAA'), 'https://cdn.example/a');
    assert.equal(images.stale(sent), true, 'uploaded since: the document still shows no image');
    images.rewrite('![a](a.png)\n', 'p.md');
    assert.equal(images.stale(images.sentImages('p.md') ?? []), false);
  });

  test('the stat shortcut: same size and mtime trust the recorded hash without reading the file (intended)', async (t) => {
    const root = await tempDir(t);
    const file = join(root, 'a.png');
    await put(root, 'a.png', 'AAAA');
    const mtime = new Date('2024-05-01T12:00:00Z');
    await utimes(file, mtime, mtime);
    const cache = { [fileKey('AAAA')]: 'https://cdn.example/a' };
    const { images } = publisherOf(root, UPLOAD, { cache: memoryCache(cache) });
    images.rewrite('![a](a.png)\n', 'p.md');
    const sent = images.sentImages('p.md') ?? [];
    assert.equal(sent[0]?.m, mtime.getTime());

    // Other bytes of the same size, the mtime put back: the stat matches, so the recorded hash stands and the
    // file is not read. This is the intended trade (a stat per image, no hashing), like git's index.
    await writeFile(file, image('BBBB'));
    await utimes(file, mtime, mtime);
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache(cache) }).images.stale(sent), false);

    // Without the stat (the shared state keeps none) the file is hashed, and the change shows.
    const withoutStat = sent.map(({ s: _s, m: _m, ...rest }) => rest);
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache(cache) }).images.stale(withoutStat), true);
    // And a changed mtime alone makes it hash again.
    await utimes(file, new Date('2024-05-02T12:00:00Z'), new Date('2024-05-02T12:00:00Z'));
    assert.equal(publisherOf(root, UPLOAD, { cache: memoryCache(cache) }).images.stale(sent), true);
  });
});

describe('prepare: uploading what the cache lacks', () => {
  /** A real upload command: copies the file to DIR under its content key, logs each call, prints a URL. */
  const COPY = 'printf "%s\\n" "$1" >> "$LOG"; cp "$1" "$DIR/$KBSYNC_IMAGE_KEY" && echo "http://127.0.0.1:9/$KBSYNC_IMAGE_KEY"';

  async function setUp(t: { after: (fn: () => Promise<void>) => void }, settings: Partial<ImageSettings> = {}, more: Partial<ImagePublisherDeps> = {}) {
    const root = await tempDir(t);
    const store = await tempDir(t, 'kbsync-store-');
    const log = join(await tempDir(t, 'kbsync-log-'), 'uploads.log');
    const env = { PATH: process.env.PATH, DIR: store, LOG: log };
    const { images, cache } = publisherOf(root, { ...UPLOAD, upload: COPY, timeoutMs: 20_000, ...settings }, { env, ...more });
    const uploads = async (): Promise<string[]> => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
    return { root, store, images, cache, uploads };
  }

  test('uploads each content once, caches its URL, and the rewrite then uses it', async (t) => {
    const { root, store, images, cache, uploads } = await setUp(t);
    await put(root, 'img/a.png', 'AAA');
    await put(root, 'img/copy.png', 'AAA');
    await put(root, 'img/b.jpg', 'BBB');
    const body = '![a](img/a.png) ![again](img/a.png) ![copy](img/copy.png)\n\n<img src="img/b.jpg">\n\n![e](https://example.com/e.png)\n';
    await images.prepare(body, 'p.md');
    assert.equal((await uploads()).length, 2, 'one upload per content');
    assert.deepEqual(Object.fromEntries(cache.map), {
      [fileKey('AAA')]: `http://127.0.0.1:9/${hex(image('AAA'))}.png`,
      [fileKey('BBB')]: `http://127.0.0.1:9/${hex(image('BBB'))}.jpg`,
    });
    assert.deepEqual((await readdir(store)).sort(), [`${hex(image('AAA'))}.png`, `${hex(image('BBB'))}.jpg`].sort());
    assert.equal(await readFile(join(store, `${hex(image('BBB'))}.jpg`), 'utf8'), image('BBB'));
    assert.equal(
      images.rewrite(body, 'p.md'),
      `![a](http://127.0.0.1:9/${hex(image('AAA'))}.png) ![again](http://127.0.0.1:9/${hex(image('AAA'))}.png) ![copy](http://127.0.0.1:9/${hex(image('AAA'))}.png)\n\n<img src="http://127.0.0.1:9/${hex(image('BBB'))}.jpg">\n\n![e](https://example.com/e.png)\n`,
    );

    await images.prepare(body, 'p.md');
    await images.prepare('![c](img/copy.png)\n', 'q.md');
    assert.equal((await uploads()).length, 2, 'cached: nothing uploaded again');
  });

  test('two files preparing the same image at once upload it once', async (t) => {
    const { root, images, uploads } = await setUp(t);
    await put(root, 'a.png', 'AAA');
    await Promise.all([images.prepare('![a](a.png)\n', 'p.md'), images.prepare('![a](a.png)\n', 'q.md')]);
    assert.equal((await uploads()).length, 1);
  });

  test('URLs the team already uploaded (the shared state) are learned, asked once, and not uploaded again', async (t) => {
    let asked = 0;
    const shared = async () => {
      asked += 1;
      return new Map([[fileKey('AAA'), 'https://cdn.example/team-a']]);
    };
    const { root, images, cache, uploads } = await setUp(t, {}, { shared });
    await put(root, 'a.png', 'AAA');
    await put(root, 'b.png', 'BBB');
    await images.prepare('![a](a.png) ![b](b.png)\n', 'p.md');
    await put(root, 'c.png', 'CCC');
    await images.prepare('![c](c.png)\n', 'q.md');
    assert.equal(asked, 1);
    assert.equal(cache.get(fileKey('AAA')), 'https://cdn.example/team-a');
    assert.deepEqual((await uploads()).map((line) => line.split('/').at(-1)), ['b.png', 'c.png']);
  });

  test('without upload, prepare does nothing', async (t) => {
    const { root, images, cache, uploads } = await setUp(t, { upload: null });
    await put(root, 'a.png', 'AAA');
    await images.prepare('![a](a.png)\n', 'p.md');
    assert.equal(cache.map.size, 0);
    assert.deepEqual(await uploads(), []);
  });

  test('a failing command: IMAGE_UPLOAD_FAILED naming path:line, the image and what the command said; nothing cached', async (t) => {
    const { root, images, cache } = await setUp(t, { upload: 'echo "bucket kb-images not found" >&2; exit 3' });
    await put(root, 'docs/shot.png', 'S');
    const message = await uploadFailure(() => images.prepare('# T\n\n![s](shot.png)\n', 'docs/page.md', 4));
    assert.match(message, /^docs\/page\.md:7: /);
    assert.match(message, /image "shot\.png"/);
    assert.match(message, /code 3/);
    assert.match(message, /bucket kb-images not found/);
    assert.equal(cache.map.size, 0);
  });

  test('a command whose last line is not an http(s) URL, or that prints nothing, fails', async (t) => {
    const { root, images, cache } = await setUp(t, { upload: 'echo uploading; echo "s3://bucket/key"' });
    await put(root, 'a.png', 'A');
    assert.match(await uploadFailure(() => images.prepare('![a](a.png)\n', 'p.md')), /last line is not an http\(s\) URL: "s3:\/\/bucket\/key"/);
    const silent = await setUp(t, { upload: 'true' });
    await put(silent.root, 'a.png', 'A');
    assert.match(await uploadFailure(() => silent.images.prepare('![a](a.png)\n', 'p.md')), /printed no URL/);
    assert.equal(cache.map.size, 0);
  });

  test('a command that outlives timeoutMs fails promptly, saying so', async (t) => {
    const { root, images, cache } = await setUp(t, { upload: 'sleep 30; echo https://cdn.example/late', timeoutMs: 300 });
    await put(root, 'a.png', 'A');
    const started = Date.now();
    const message = await uploadFailure(() => images.prepare('![a](a.png)\n', 'p.md'));
    const elapsed = Date.now() - started;
    assert.match(message, /did not finish within 300 ms/);
    // Not a speed claim: the point is that it does not wait for the 30 s sleep (generous for a busy machine).
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
    assert.equal(cache.map.size, 0);
  });

  test('a diagram is rendered with diagrams.command, the image uploaded, and its key cached', async (t) => {
    const diagrams = { command: `printf '<svg/>' > "$2"`, languages: ['mermaid'], format: 'svg' as const };
    const { store, images, cache, uploads } = await setUp(t, { diagrams });
    const body = 'Flow:\n\n```mermaid\ngraph TD; A-->B\n```\n';
    await images.prepare(body, 'p.md');
    const url = `http://127.0.0.1:9/${hex('<svg/>')}.svg`;
    assert.deepEqual(Object.fromEntries(cache.map), { [diagramKey('svg', 'mermaid', 'graph TD; A-->B')]: url });
    assert.equal(await readFile(join(store, `${hex('<svg/>')}.svg`), 'utf8'), '<svg/>');
    assert.equal((await uploads()).length, 1);
    assert.equal(images.rewrite(body, 'p.md'), `Flow:\n\n![mermaid diagram](${url})\n`);
  });

  test('a diagram command that writes something else than an image: IMAGE_UPLOAD_FAILED, and nothing uploaded', async (t) => {
    const { images, uploads } = await setUp(t, { diagrams: { command: `cat "$HOME/.netrc" > "$2" 2>/dev/null || printf 'machine x password y' > "$2"`, languages: ['mermaid'], format: 'svg' } });
    const message = await uploadFailure(() => images.prepare('```mermaid\na\n```\n', 'p.md'));
    assert.match(message, /wrote something that is not a svg image/);
    assert.deepEqual(await uploads(), []);
  });

  test('only an image the synced folder shows is ever read or uploaded (.git, the ledger, node_modules, excludes, non-images, links into them)', async (t) => {
    const { root, images, cache, uploads } = await setUp(t, {}, { places: { stateDir: 'state', exclude: ['private/**'] } });
    await put(root, 'img/real.png', 'REAL');
    await put(root, 'node_modules/pkg/logo.png', 'LOGO');
    await put(root, 'private/shot.png', 'PRIVATE');
    await put(root, 'drafts/wip.png', 'WIP');
    await put(root, 'ignored.png', 'IGNORED');
    await put(root, '.hidden.png', 'HIDDEN');
    await put(root, 'state/ledger.png', 'STATE');
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git/config'), '[remote "origin"]\n\turl = https://user:ghp_secret@github.com/x/y\n');
    await mkdir(join(root, '.kbsync'));
    await writeFile(join(root, '.kbsync/ledger.db'), 'SQLite format 3\0');
    await writeFile(join(root, 'notes.txt'), 'plain text');
    await writeFile(join(root, 'fake.png'), '[core]\n\tbare = false\n');
    await writeFile(join(root, '.kbsyncignore'), 'drafts/\nignored.png\n');
    await symlink(join(root, '.git/config'), join(root, 'img/config.png'));
    const targets = ['img/real.png', '.git/config', '.kbsync/ledger.db', 'state/ledger.png', 'node_modules/pkg/logo.png', 'private/shot.png', 'drafts/wip.png', 'ignored.png', '.hidden.png', 'notes.txt', 'fake.png', 'img/config.png'];
    const body = targets.map((target, i) => (i % 2 === 0 ? `![x](${target})` : `<img src="${target}" width="0" height="0">`)).join('\n\n') + '\n';
    await images.prepare(body, 'page.md');
    assert.deepEqual(await uploads(), [join(root, 'img/real.png')], 'only the real image was handed to images.upload');
    assert.deepEqual(
      images.problems('page.md', body).map((p) => [p.target, p.reason]),
      [
        ['.git/config', 'hidden'],
        ['.kbsync/ledger.db', 'hidden'],
        ['state/ledger.png', 'excluded'],
        ['node_modules/pkg/logo.png', 'excluded'],
        ['private/shot.png', 'excluded'],
        ['drafts/wip.png', 'excluded'],
        ['ignored.png', 'excluded'],
        ['.hidden.png', 'hidden'],
        ['notes.txt', 'not-an-image'],
        ['fake.png', 'not-an-image'],
        ['img/config.png', 'hidden'],
      ],
    );
    // Refused images are sent as written: only the real one's reference becomes its URL.
    assert.equal(images.rewrite(body, 'page.md'), body.replace('img/real.png', cache.get(fileKey('REAL')) ?? 'not uploaded'));
  });

  test('a diagram command that writes nothing fails with IMAGE_UPLOAD_FAILED: wrote no image', async (t) => {
    const { images, cache, uploads } = await setUp(t, { diagrams: { command: 'true', languages: ['mermaid'], format: 'svg' } });
    const message = await uploadFailure(() => images.prepare('x\n\n```mermaid\na\n```\n', 'p.md', 10));
    assert.match(message, /^p\.md:13: the mermaid diagram could not be published/);
    assert.match(message, /wrote no image/);
    assert.equal(cache.map.size, 0);
    assert.deepEqual(await uploads(), []);
  });
});
