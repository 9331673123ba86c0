import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLinker } from '../../../src/links/index.js';

const texts: Record<string, string> = { 'a.md': '# A\n\n[b](b)\n', 'b.md': '# B\n', 'c.md': '---\ntitle: C\n---\n# C\n\nSee [b](b.md) and [x](x.md).\n' };

function linker(urls: Map<string, string>) {
  return createLinker({ root: '/nowhere', site: { root: '', basePath: '/' }, synced: new Set(Object.keys(texts)), known: (path) => texts[path], urlOf: (path) => urls.get(path) });
}

test('a body rewritten while its target had no document is stale once the target has one', () => {
  const urls = new Map<string, string>();
  const links = linker(urls);
  assert.equal(links.rewrite(texts['a.md']!, 'a.md'), texts['a.md']);
  assert.deepEqual(links.stale(new Set(), () => true), []);
  urls.set('b.md', 'https://kb/b');
  assert.deepEqual(links.stale(new Set(), () => true), ['a.md']);
});

test('files linking to a document new in this run are stale unless their body went out with its URL', () => {
  const links = linker(new Map([['b.md', 'https://kb/b']]));
  assert.equal(links.rewrite(texts['a.md']!, 'a.md'), '# A\n\n[b](https://kb/b)\n');
  assert.deepEqual(links.stale(new Set(['b.md']), (path) => path === 'a.md'), ['c.md'], 'c.md was not sent at all');
  assert.deepEqual(links.stale(new Set(['b.md']), () => false), ['a.md', 'c.md'], 'rewritten but not sent: the service may hold the old link');
  assert.equal(links.resending(new Set(['c.md'])).mustResend('c.md'), true);
  assert.equal(links.mustResend('c.md'), false);
});

test('a body sent with the URL its target had when it was decided is stale once the target has a new document', () => {
  // A page renamed in place keeps its URL (so it went out with it), unless its document turns out gone and is made again.
  const urls = new Map([['b.md', 'https://kb/old-b']]);
  const links = linker(urls);
  links.rewrite(texts['a.md']!, 'a.md');
  assert.deepEqual(links.stale(new Set(['b.md']), (path) => path === 'a.md'), ['c.md'], 'a.md was sent with the URL b.md still has');
  urls.set('b.md', 'https://kb/new-b');
  assert.deepEqual(links.stale(new Set(['b.md']), (path) => path === 'a.md'), ['a.md', 'c.md'], 'a.md went out with the old URL');
});

test('a page is not its own target by a heading of its own, there or not: its rename or move owes nothing for them', () => {
  const page = '# A\n\n## Setup\n\n[setup](#setup), [gone](#nope)\n';
  const urls = new Map<string, string>();
  const links = createLinker({ root: '/nowhere', site: { root: '', basePath: '/' }, synced: new Set(['r1-a.md']), known: () => page, urlOf: (path) => urls.get(path) });
  assert.equal(links.rewrite(page, 'r1-a.md'), page, 'both left as written: the page has no URL yet, and needs none for them');
  urls.set('r1-a.md', 'https://kb/a');
  assert.deepEqual(links.stale(new Set(['r1-a.md']), () => false), []);
  assert.deepEqual(links.problems(['r1-a.md']).map((p) => [p.target, p.reason]), [['#nope', 'anchor-missing']], 'still reported');
});

test('problems carry the line in the file, front matter counted', () => {
  assert.deepEqual(
    linker(new Map()).problems(['a.md', 'c.md']).map((p) => [p.path, p.line, p.target, p.reason]),
    [['c.md', 6, 'x.md', 'missing']],
  );
});

test('rewriting bodies that link nowhere keeps nothing for them (a first push rewrites every file)', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const body = '# Note\n\nNothing linked here.\n';
  const paths = Array.from({ length: 20_000 }, (_, i) => `n-${i}.md`);
  const links = createLinker({ root: '/nowhere', site: { root: '', basePath: '/' }, synced: new Set(paths), known: () => body, urlOf: () => undefined });
  links.rewrite(body, 'n-0.md');
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const path of paths) assert.equal(links.rewrite(body, path), body);
  gc();
  const kept = process.memoryUsage().heapUsed - before;
  // An empty map and set kept per file came to about 8 MB here.
  assert.ok(kept < 1024 * 1024, `the linker kept ${(kept / 1024).toFixed(0)} KB for 20,000 bodies that link nowhere`);
  assert.equal(links.waitingFor('n-5.md').size, 0);
  assert.deepEqual(links.stale(new Set(['n-1.md']), () => true), []);
});
