import { blocksHash, predictedBlocks } from '../../src/markdown/index.js';
import { contentHash } from '../../src/markdown/hash.js';
import { decideBody, type BodyDecision, type BodyFacts } from '../../src/sync/decide/body.js';
import { splitText } from '../../src/sync/content/document-text.js';

/** A record of `text` agreed on, its document reading as the text's body would (the blocks a read of it gives). */
export const agreedOn = (text: string, more: Partial<BodyFacts['record']> = {}): BodyFacts['record'] => {
  const blocks = predictedBlocks(splitText(text).body);
  return { baseMarkdown: text, remoteBlocks: blocks, alignment: undefined, localHash: contentHash(text), remoteBlocksHash: blocksHash(blocks), ...more };
};

/** A two-way decision on `path`, with no link rewriting, by merge.webEdits' default: the rest is the test's. */
export const decideTwoWay = (facts: Pick<BodyFacts, 'record' | 'fileText' | 'remote'> & Partial<BodyFacts>): BodyDecision =>
  decideBody({ mode: 'two-way', force: false, webEdits: 'merge', path: 'guide.md', urlOf: undefined, ...facts });
