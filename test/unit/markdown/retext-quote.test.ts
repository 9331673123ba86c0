import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retext } from '../../../src/markdown/retext.js';

test('a quote of several blocks takes an edit in place: its blocks read as lines, each kept as written', () => {
  assert.equal(retext('> Ship **it** soon.\n>\n> - then *rest*', 'Ship it today.\nthen rest')?.markdown, '> Ship **it** today.\n>\n> - then *rest*');
  assert.equal(retext('> One [link](x).\n>\n> Two.', 'One link.\nTwo more.')?.markdown, '> One [link](x).\n>\n> Two more.');
  // An edit across the line between two blocks is not one the source can take: the caller writes plain text.
  assert.equal(retext('> One.\n>\n> Two.', 'One Two.')?.markdown, undefined);
});
