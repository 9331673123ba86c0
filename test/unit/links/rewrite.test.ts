import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headingAnchors, linkProblems, linkUses, resolveLink, rewriteLinks, type LinkTree } from '../../../src/links/index.js';

const files: Record<string, string> = { 'guide/setup.md': '# Setup\n\n## Install it\n', 'index.md': '# Home\n', 'a b.md': '# C\n' };
const tree: LinkTree = {
  synced: new Set(Object.keys(files)),
  exists: (path) => path in files || path === 'img/logo.png',
  anchors: (path) => (files[path] === undefined ? undefined : headingAnchors(files[path])),
};
const urls: Record<string, string> = { 'guide/setup.md': 'https://kb/i/nodes/A', 'index.md': 'https://kb/i/nodes/B', 'a b.md': 'https://kb/i/nodes/C' };
const site = { root: '', basePath: '/' };

function rewrite(body: string, from: string, urlOf: (path: string) => string | undefined = (p) => urls[p]) {
  const uses = linkUses(body, (url) => resolveLink(url, from, tree, site));
  return { ...rewriteLinks(body, uses, urlOf), problems: linkProblems(from, uses, 0) };
}

test('links to synced files become document URLs by source offsets; anchors become the heading id', () => {
  const body = 'See [setup](setup.md "Set up") and [home](/#home), [x](<../a b.md>).\n';
  assert.equal(rewrite(body, 'guide/intro.md').markdown, 'See [setup](https://kb/i/nodes/A "Set up") and [home](https://kb/i/nodes/B#home), [x](<https://kb/i/nodes/C>).\n');
  assert.equal(rewrite('[install](/guide/setup#install-it)\n', 'index.md').markdown, '[install](https://kb/i/nodes/A#install-it)\n');
});

test('reference definitions, escaped and parenthesised destinations, and link text equal to the URL', () => {
  const body = 'Read [the guide][g] or [C](a%20b.md).\n\n[g]: guide/setup.md "Setup"\n  [h]:\n  /index\n';
  assert.equal(rewrite(body, 'index.md').markdown, 'Read [the guide][g] or [C](https://kb/i/nodes/C).\n\n[g]: https://kb/i/nodes/A "Setup"\n  [h]:\n  https://kb/i/nodes/B\n');
  assert.equal(rewrite('[index.md](index.md) [`a]`](index)\n', 'x.md').markdown, '[index.md](https://kb/i/nodes/B) [`a]`](https://kb/i/nodes/B)\n');
  assert.equal(rewrite('[s](guide/setup\\.md)\n', 'x.md').markdown, '[s](https://kb/i/nodes/A)\n');
});

test('broken links are left as written and reported with their line; external ones are neither; images are not links (src/images publishes them)', () => {
  const body = '# T\n\n[ok](https://e.com/a.md) [gone](missing.md)\n\n![logo](img/logo.png)\n\n[a](guide/setup#nope)\n';
  const result = rewrite(body, 'index.md');
  assert.equal(result.markdown, body.replace('guide/setup#nope', 'https://kb/i/nodes/A'), 'a missing anchor is dropped, the link kept');
  assert.deepEqual(
    result.problems.map((p) => [p.line, p.target, p.reason]),
    [
      [3, 'missing.md', 'missing'],
      [7, 'guide/setup#nope', 'anchor-missing'],
    ],
  );
});

test('a target without a document yet is left as written and named as waiting', () => {
  const result = rewrite('[s](guide/setup.md) [h](index.md)\n', 'x.md', (p) => (p === 'index.md' ? urls[p] : undefined));
  assert.equal(result.markdown, '[s](guide/setup.md) [h](https://kb/i/nodes/B)\n');
  assert.deepEqual(result.waiting, ['guide/setup.md']);
  assert.deepEqual([...result.linked], [['index.md', 'https://kb/i/nodes/B']], 'with the URL that went in');
});
