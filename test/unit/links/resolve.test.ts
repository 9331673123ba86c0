import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headingAnchors, resolveLink, type LinkSite, type LinkTree } from '../../../src/links/index.js';

const files: Record<string, string> = {
  'index.md': '# Home\n',
  'commands/npm-install.md': '# npm install\n\n## Synopsis\n\n## Description {#about}\n\n## Synopsis\n',
  'commands/index.md': '# Commands\n',
  'using-npm/scripts.md': '<a id="life"></a>\n\n## Life Cycle Scripts\n',
  'using-npm/README.md': '# Using npm\n',
  'a b/c#d.md': '# Odd name\n',
};
const others = new Set(['images/logo.png', 'drafts/secret.md']);
const tree: LinkTree = {
  synced: new Set(Object.keys(files)),
  exists: (path) => path in files || others.has(path) || [...others].some((o) => o.startsWith(`${path}/`)),
  anchors: (path) => (files[path] === undefined ? undefined : headingAnchors(files[path])),
};
const site: LinkSite = { root: '', basePath: '/' };
const from = 'using-npm/scripts.md';
const resolve = (url: string, s: LinkSite = site, f = from) => resolveLink(url, f, tree, s);

test('relative links, with or without .md, and .html pages resolve to the synced file', () => {
  assert.deepEqual(resolve('../commands/npm-install.md'), { kind: 'file', path: 'commands/npm-install.md' });
  assert.deepEqual(resolve('../commands/npm-install'), { kind: 'file', path: 'commands/npm-install.md' });
  assert.deepEqual(resolve('../commands/npm-install.html'), { kind: 'file', path: 'commands/npm-install.md' });
  assert.deepEqual(resolve('./scripts?plain=1'), { kind: 'file', path: 'using-npm/scripts.md' });
});

test('site-absolute links start at the site root; a base path is removed first', () => {
  assert.deepEqual(resolve('/commands/npm-install'), { kind: 'file', path: 'commands/npm-install.md' });
  assert.deepEqual(resolve('/cli/v10/commands/npm-install', { root: '', basePath: '/cli/v10/' }), { kind: 'file', path: 'commands/npm-install.md' });
  assert.deepEqual(resolve('/npm-install', { root: 'commands', basePath: '/' }), { kind: 'file', path: 'commands/npm-install.md' });
  const outside = resolve('/other/x', { root: '', basePath: '/cli/' });
  assert.equal(outside.kind === 'broken' && outside.reason, 'outside-root');
});

test('folder links open the folder index (index.md, else README.md)', () => {
  assert.deepEqual(resolve('/commands/'), { kind: 'file', path: 'commands/index.md' });
  assert.deepEqual(resolve('/commands'), { kind: 'file', path: 'commands/index.md' });
  assert.deepEqual(resolve('.'), { kind: 'file', path: 'using-npm/README.md' });
  assert.deepEqual(resolve('..'), { kind: 'file', path: 'index.md' });
  assert.deepEqual(resolve('/'), { kind: 'file', path: 'index.md' });
});

test('anchors map to the knowledge base heading id: slugs, explicit {#id}, HTML ids, repeated headings', () => {
  assert.deepEqual(resolve('/commands/npm-install#synopsis'), { kind: 'file', path: 'commands/npm-install.md', anchor: 'synopsis' });
  assert.deepEqual(resolve('/commands/npm-install#synopsis-1'), { kind: 'file', path: 'commands/npm-install.md', anchor: 'synopsis-1' });
  assert.deepEqual(resolve('/commands/npm-install#about'), { kind: 'file', path: 'commands/npm-install.md', anchor: 'description-about' });
  assert.deepEqual(resolve('#life'), { kind: 'self', anchor: 'life-cycle-scripts' });
  const missing = resolve('/commands/npm-install#nope');
  assert.equal(missing.kind, 'broken');
  assert.equal(missing.kind === 'broken' && missing.reason, 'anchor-missing');
  assert.equal(missing.kind === 'broken' && missing.path, 'commands/npm-install.md', 'the link still reaches the document');
  // One of this file's own is left as written (it opens this page all the same): it names no file to wait for.
  const own = resolve('#nope');
  assert.deepEqual(own.kind === 'broken' && [own.reason, own.path], ['anchor-missing', undefined]);
});

test('percent-encoded names resolve; malformed encoding is reported', () => {
  assert.deepEqual(resolve('../a%20b/c%23d.md'), { kind: 'file', path: 'a b/c#d.md' });
  const bad = resolve('../a%zz.md');
  assert.equal(bad.kind === 'broken' && bad.reason, 'malformed');
});

test('missing files, files kbsync does not publish, and paths leaving the root are reported with a reason', () => {
  const reason = (url: string) => {
    const outcome = resolve(url);
    return outcome.kind === 'broken' ? outcome.reason : outcome.kind;
  };
  assert.equal(reason('../commands/npm-uninstall'), 'missing');
  assert.equal(reason('/images/logo.png'), 'not-synced');
  assert.equal(reason('/drafts/secret'), 'not-synced');
  assert.equal(reason('../../outside.md'), 'outside-root');
  assert.equal(reason('/../outside.md'), 'outside-root');
});

test('other sites and empty links are left alone', () => {
  for (const url of ['https://example.com/x.md', 'mailto:a@b.c', '//cdn.example.com/a.md', '', '?q=1']) assert.deepEqual(resolve(url), { kind: 'external' }, url);
});
