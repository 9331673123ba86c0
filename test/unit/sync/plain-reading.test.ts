import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, PLACEHOLDER_PREFIX, predictedBlocks } from '../../../src/markdown/index.js';
import { placeholdsSource, plainReading } from '../../../src/sync/decide/plain-reading.js';

/**
 * Another writer's version holding kbsync's placeholders (made from a plain reading) against this machine's
 * record: taken only where it stands no placeholder where this machine may hold the source.
 */
const PROSE = '# Guide\n\nFirst paragraph.\n\nLast paragraph.\n';
const CODED = '# Guide\n\nFirst paragraph.\n\n```sh\nnpm ci\n```\n\nLast paragraph.\n';
const PLACEHOLDER = `${PLACEHOLDER_PREFIX} a block the service does not expose (code, image or other) is here; edit it in the web editor -->`;
const HEAD = '---\ntags: [alpha]\n---\n';

const recordOf = (text: string) => {
  const blocks = predictedBlocks(text);
  return { baseMarkdown: text, remoteBlocks: blocks, alignment: undefined, remoteBlocksHash: blocksHash(blocks) };
};
const versionOf = (text: string, blocksText: string) => ({ text, remoteBlocksHash: blocksHash(predictedBlocks(blocksText)) });

describe("another writer's version with placeholders", () => {
  test('standing one where the base has the code (soak seed 13): refused', () => {
    const plain = CODED.replace('```sh\nnpm ci\n```', PLACEHOLDER);
    assert.equal(placeholdsSource(versionOf(plain, CODED), recordOf(CODED), predictedBlocks(CODED)), true);
  });

  test('one the base holds as well (a page made in the web editor, model seed 3 of note vaults): taken', () => {
    const plain = CODED.replace('```sh\nnpm ci\n```', PLACEHOLDER);
    assert.equal(placeholdsSource(versionOf(`${plain}\n%%a note's comment%%\n`, plain), recordOf(plain), predictedBlocks(plain)), false);
  });

  const now = predictedBlocks(CODED.replace('First paragraph.', 'First paragraph, from the web.'));
  const reading = plainReading(recordOf(PROSE), now);

  test("a colleague's code block new since the base, which this machine's own reading writes as a placeholder too (model seed 6002): taken", () => {
    assert.equal(reading, CODED.replace('First paragraph.', 'First paragraph, from the web.').replace('```sh\nnpm ci\n```', PLACEHOLDER));
    assert.equal(placeholdsSource({ text: HEAD + reading, remoteBlocksHash: blocksHash(now) }, recordOf(PROSE), now), false);
  });

  test('the same version, the document edited since: its blocks no longer the ones read now, whose placeholders the counts cannot match: refused', () => {
    const later = predictedBlocks(CODED.replace('Last paragraph.', 'Last paragraph, later.'));
    assert.equal(placeholdsSource({ text: HEAD + reading, remoteBlocksHash: blocksHash(now) }, recordOf(PROSE), later), true);
  });

  test('a placeholder for the new block and one more where the base has code: refused', () => {
    const both = `${CODED}\n\`\`\`js\nrun()\n\`\`\`\n`;
    const blocks = predictedBlocks(both);
    const plain = both.replace('```sh\nnpm ci\n```', PLACEHOLDER).replace('```js\nrun()\n```', PLACEHOLDER);
    assert.equal(placeholdsSource({ text: plain, remoteBlocksHash: blocksHash(blocks) }, recordOf(CODED), blocks), true);
  });
});
