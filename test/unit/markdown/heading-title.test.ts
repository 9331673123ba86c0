import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { documentTitle } from '../../../src/sync/content/document-text.js';
import { headingTitle, parsedHeadingTitle, plainFirstHeading } from '../../../src/markdown/heading-title.js';

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

test('a plain first heading is read without a parse, and always as the parse reads it', () => {
  assert.equal(plainFirstHeading('\n  ## Area 51: the notes (draft)  \n\nText.\n'), 'Area 51: the notes (draft)');
  assert.equal(plainFirstHeading('# Uses *emphasis*\n'), null, 'inline Markdown: the parse decides');
  assert.equal(plainFirstHeading('Intro.\n\n# Later\n'), null, 'not the first block');
  const piece = fc.constantFrom('Title', 'note-000', 'a.b', ' ', '  ', '\t', '*', '_', '`', '[x](y)', '<b>', '&amp;', '\\', '#', '(', ')', ':', '//', 'www.example.com', 'http://x.io', 'a@b.co', "it's", '"q"', '1.', '-', '=', 'é', '😀');
  const heading = fc.tuple(fc.constantFrom('', '\n', '  \n', ' ', '   ', '    ', '\t'), fc.constantFrom('#', '##', '######', '#######'), fc.constantFrom(' ', '  ', '\t', ''), fc.array(piece, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '', ' #\n', '\n===\n', '\nmore text\n'));
  fc.assert(
    fc.property(heading, fc.constantFrom('', 'Body.\n', '# Second\n', '```\n# not\n```\n'), ([before, hashes, gap, words, after], rest) => {
      const body = `${before}${hashes}${gap}${words.join('')}${after}\n${rest}`;
      const plain = plainFirstHeading(body);
      if (plain !== null) assert.equal(plain, parsedHeadingTitle(body), JSON.stringify(body));
      assert.equal(headingTitle(body), parsedHeadingTitle(body), JSON.stringify(body));
    }),
    { numRuns: 2000 },
  );
});
