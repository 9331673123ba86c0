import { test } from 'node:test';
import assert from 'node:assert/strict';
import { predictedBlocks } from '../../../src/markdown/index.js';
import type { Block } from '../../../src/model/blocks.js';
import { asBlockId } from '../../../src/model/ids.js';
import { ourWriteUnder } from '../../../src/sync/act/standing-write.js';

const WROTE = '# Page\n\nFirst words.\n\n```sh\nnpm test\n```\n\n- an item\n\nLast words.\n';

/** The blocks the service would give `markdown`, with ids of its own. */
const read = (markdown: string): Block[] => predictedBlocks(markdown).map((block, i) => ({ ...block, id: asBlockId(`svc-${i}`) }));

test("a save of words in place over our write: our text under the service's ids", () => {
  const ours = ourWriteUnder(predictedBlocks(WROTE), read(WROTE.replace('Last words', 'Last saved words').replace('an item', 'an edited item')));
  assert.deepEqual(ours, read(WROTE));
});

test('any other shape of save cannot be told from one our write replaced', () => {
  const cases = {
    'a block added': WROTE.replace('Last words.', 'Last words.\n\nNew words.'),
    'a block removed': WROTE.replace('First words.\n\n', ''),
    'a block retyped': WROTE.replace('First words.', '## First words'),
    'a table for a paragraph': WROTE.replace('First words.', '| a |\n| - |\n| b |'),
  };
  for (const [name, saved] of Object.entries(cases)) assert.equal(ourWriteUnder(predictedBlocks(WROTE), read(saved)), undefined, name);
});
