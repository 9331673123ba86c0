import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentTitle } from '../../../src/sync/document-text.js';

test('a title is the heading\'s words: no badges, images or HTML', () => {
  const cases: [string, string][] = [
    ['# gray-matter [![NPM version](https://img.shields.io/npm/v/gray-matter.svg)](https://npm.im/gray-matter) [![NPM monthly downloads](https://img/d.svg)](https://npm.im/x) [![Linux Build Status](https://img/t.svg)](https://travis)\n\nBody.\n', 'gray-matter'],
    ['# <img src="logo.png" width="20"> Acme *API* `v2`\n', 'Acme API v2'],
    ['# ![logo](logo.png)\n\n## Real title\n', 'Real title'],
    ['# See [the guide](g.md) now\n', 'See the guide now'],
    ['No heading at all.\n', 'file'],
  ];
  for (const [text, title] of cases) assert.equal(documentTitle(text, 'dir/file.md'), title, text);
});
