import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linksToUrls } from '../../../src/sync/links.js';

const urls: Record<string, string> = { 'guide/setup.md': 'https://kb/i/nodes/A', 'index.md': 'https://kb/i/nodes/B', 'a b.md': 'https://kb/i/nodes/C' };
const urlOf = (path: string) => urls[path];

test('relative links to synced files become document URLs, keeping anchors', () => {
  const body = 'See [setup](setup.md) and [home](../index.md#top).\n';
  assert.equal(linksToUrls(body, 'guide/intro.md', urlOf), 'See [setup](https://kb/i/nodes/A) and [home](https://kb/i/nodes/B#top).\n');
});

test('reference definitions and encoded names are rewritten too', () => {
  const body = 'Read [the guide][g] or [C](a%20b.md).\n\n[g]: guide/setup.md "Setup"\n';
  assert.equal(linksToUrls(body, 'index.md', urlOf), 'Read [the guide][g] or [C](https://kb/i/nodes/C).\n\n[g]: https://kb/i/nodes/A "Setup"\n');
});

test('external, absolute, anchor-only, unknown and escaping links stay exactly as written', () => {
  const body = '[x](https://e.com/a.md) [y](/abs.md) [z](#h) [w](missing.md) [v](../../out.md) ![i](setup.md)\n';
  assert.equal(linksToUrls(body, 'guide/intro.md', urlOf), body);
});

test('a link whose text equals its target is rewritten in the target only', () => {
  assert.equal(linksToUrls('[index.md](index.md)\n', 'x.md', urlOf), '[index.md](https://kb/i/nodes/B)\n');
});
