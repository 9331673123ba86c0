import { test } from 'node:test';
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import fc from 'fast-check';
import { encodeLinkPath, linkProblems, linkUses, resolveLink, rewriteLinks, type LinkTree } from '../../../src/links/index.js';
import { parseMarkdown } from '../../../src/markdown/parse.js';

const segment = fc.constantFrom('a', 'b', 'docs', '..', '.', '', '%2e%2e', '%2F', 'x.md', 'index', 'a%20b', '..%2f..', '\\..');
const synced = ['index.md', 'a/index.md', 'a/b.md', 'docs/x.md', 'docs/a/b.md'];
const from = fc.constantFrom(...synced);

test('a resolved link is always a synced file inside the root, and nothing outside the root is ever looked at', () => {
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 8 }),
      fc.boolean(),
      from,
      fc.constantFrom('', 'docs', '..', 'a/..'),
      fc.constantFrom('/', '/docs/'),
      (segments, absolute, fromPath, siteRoot, basePath) => {
        const looked: string[] = [];
        const tree: LinkTree = {
          synced: new Set(synced),
          exists: (path) => {
            looked.push(path);
            return false;
          },
          anchors: () => undefined,
        };
        const url = (absolute ? '/' : '') + segments.join('/');
        const outcome = resolveLink(url, fromPath, tree, { root: posix.normalize(siteRoot) === '.' ? '' : siteRoot, basePath });
        if (outcome.kind === 'file') assert.ok(synced.includes(outcome.path), `${url} → ${outcome.path}`);
        for (const path of looked) assert.ok(path !== '..' && !path.startsWith('../') && !path.startsWith('/') && posix.normalize(path) === path, `looked at ${path}`);
      },
    ),
    { numRuns: 2000 },
  );
});

const nameChar = fc.constantFrom('a', 'Z', ' ', '#', '?', '%', '(', ')', 'é', '中', '&', '+', '[', ']', '\\', '*', "'", '~');
const name = fc.array(nameChar, { minLength: 1, maxLength: 8 }).map((chars) => chars.join('')).filter((n) => n !== '.' && n !== '..');

test('percent-encoding round trips: an encoded relative path resolves to exactly the file it was made from', () => {
  fc.assert(
    fc.property(name, name, fc.boolean(), (folder, file, siteAbsolute) => {
      const target = `${folder}/${file}.md`;
      const fromPath = 'other/page.md';
      const tree: LinkTree = { synced: new Set([target, fromPath]), exists: () => false, anchors: () => undefined };
      const url = siteAbsolute ? `/${encodeLinkPath(target)}` : encodeLinkPath(posix.relative(posix.dirname(fromPath), target));
      assert.deepEqual(resolveLink(url, fromPath, tree, { root: '', basePath: '/' }), { kind: 'file', path: target });
    }),
    { numRuns: 1000 },
  );
});

const target = fc.constantFrom('a/b.md', 'b', '../index.md', '/docs/x', 'missing.md', 'https://e.com/', '#top', 'x.png', '../../out.md', 'a%zz', '/a/', 'docs/x.md#h', 'b%20c.md');
const linkText = fc.constantFrom('text', 'a `code]` span', '*em*', '', 'b.md');
const piece = fc.oneof(
  fc.tuple(linkText, target).map(([t, u]) => `[${t}](${u})`),
  fc.tuple(linkText, target).map(([t, u]) => `![${t}](<${u}>)`),
  fc.tuple(linkText, target).map(([t, u]) => `[${t}](${u} "title")`),
  fc.constantFrom('plain words', '\n\n', '\n', '- ', '# Top\n\n'),
);
const definition = fc.tuple(fc.constantFrom('r1', 'r2'), target).map(([label, u]) => `\n\n[${label}]: ${u}\n`);

test('every link is either rewritten, left for an external site, waiting for its document, or reported', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.array(definition, { maxLength: 2 }), (pieces, definitions) => {
      const body = pieces.join(' ') + definitions.join('');
      const tree: LinkTree = { synced: new Set(['a/b.md', 'a/index.md', 'index.md', 'docs/x.md']), exists: () => false, anchors: () => undefined };
      const uses = linkUses(body, (url) => resolveLink(url, 'a/page.md', tree, { root: '', basePath: '/' }));
      const urlOf = (path: string) => (path === 'docs/x.md' ? undefined : `https://kb/${path.replace(/\W/g, '_')}`);
      const rewritten = rewriteLinks(body, uses, urlOf);
      const problems = linkProblems('a/page.md', uses, 0);
      for (const use of uses) {
        const o = use.outcome;
        const reported = problems.some((p) => p.line === use.line && p.target === use.url);
        if (o.kind === 'external' || o.kind === 'self') continue;
        if (o.kind === 'broken') assert.ok(reported, `broken ${use.url} reported`);
        else assert.ok((rewritten.linked.has(o.path) && rewritten.linked.get(o.path) === urlOf(o.path)) || rewritten.waiting.includes(o.path) || reported, `${use.url} handled`);
      }
      // Only destinations changed: the rewritten body has the same links, each with the expected URL.
      const after = linkUses(rewritten.markdown, () => ({ kind: 'external' }));
      assert.equal(after.length, uses.length);
      after.forEach((use, i) => {
        const before = uses[i]!;
        const o = before.outcome;
        const path = o.kind === 'file' || o.kind === 'broken' ? o.path : undefined;
        const url = path && before.span ? urlOf(path) : undefined;
        const expected = url === undefined ? before.url : url + (o.kind === 'file' && o.anchor ? `#${o.anchor}` : '');
        assert.equal(use.url, expected);
      });
      assert.equal(parseMarkdown(rewritten.markdown).children.length, parseMarkdown(body).children.length);
    }),
    { numRuns: 500 },
  );
});
