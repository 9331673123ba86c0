import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMarkdownDialect } from '../../../src/markdown/parse.js';
import { retext } from '../../../src/markdown/retext.js';

/*
 * The knowledge base shows a wiki link as its label, and a colleague edits those words there: the edit is
 * written into the label (README "Note vaults"). The service reads the link as plain text, so where the words
 * added at the label's edge belong is read from the words: joined to it, or a remark in brackets after it,
 * they are the label's; set apart, they follow the link as they follow any.
 */
describe("a colleague's edit of a wiki link's label", () => {
  beforeEach(() => useMarkdownDialect('wiki'));
  afterEach(() => useMarkdownDialect('gfm'));

  const cases: [string, string, string][] = [
    ['[[liamcain|Liam Cain]], author of the 3 plugins', 'Liam Cain (liamcain), author of the 3 plugins', '[[liamcain|Liam Cain (liamcain)]], author of the 3 plugins'],
    ['[[How to debug]] by [[liamcain|Liam Cain]]', 'How to debug by Liam Cain (liamcain)', '[[How to debug]] by [[liamcain|Liam Cain (liamcain)]]'],
    ['The [[calendar|Calendar]] plugin', 'The Calendars plugin', 'The [[calendar|Calendars]] plugin'],
    ['[[liamcain|Liam Cain]], author', 'Liam M. Cain, author', '[[liamcain|Liam M. Cain]], author'],
    ['The [[obsidian-readwise|Readwise _Community_]] Plugin', 'The Readwise Community (beta) Plugin', 'The [[obsidian-readwise|Readwise _Community_ (beta)]] Plugin'],
    ['The [[obsidian-readwise|Readwise _Community_]] Plugin', 'The Readwise Community Edition Plugin', 'The [[obsidian-readwise|Readwise _Community_]] Edition Plugin'],
    // Set apart: after the link, as after a Markdown link.
    ['See [[Note|the guide]].', 'See the guide, then rest.', 'See [[Note|the guide]], then rest.'],
    ['See [[Note|the guide]]', 'See the guide for details', 'See [[Note|the guide]] for details'],
    ['See [Liam Cain](x.md), author', 'See Liam Cain (liamcain), author', 'See [Liam Cain](x.md) (liamcain), author'],
  ];
  for (const [source, text, expected] of cases) {
    test(`${JSON.stringify(text)} in ${JSON.stringify(source)}`, () => assert.equal(retext(source, text)?.markdown, expected));
  }
});
