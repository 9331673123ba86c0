import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHash, predictedBlocks } from '../../../src/markdown/index.js';
import { contentHash } from '../../../src/markdown/hash.js';
import { AGREED_SLACK_MS, decideBody, type BodyFacts, type PublishedVersion } from '../../../src/sync/decide/body.js';

/**
 * Another kbsync writer's version of a document, from the shared state, against this machine's record: a
 * change the service reads back the same (a link's address) shows only there. Found by the model test
 * (seed 5): two machines wrote within the same second, and the later write's agreement time, read from the
 * service's Date header (±1 s), came out a few milliseconds before the earlier one's.
 */
const MINUTE = '2026-11-02T09:04Z';
const OURS = '# Semver\n\nSee [the spec](https://example.com/spec).\n\nMore text.\n';
const THEIRS = OURS.replace('https://example.com/spec', 'https://example.com/u10z');

function facts(publishedAgreedAt: number, ourAgreedAt: number): BodyFacts {
  const blocks = predictedBlocks(OURS);
  const published: PublishedVersion = { text: THEIRS, remoteBlocksHash: blocksHash(blocks), modifiedTime: MINUTE, exact: true, agreedAt: publishedAgreedAt };
  return {
    mode: 'two-way',
    force: false,
    path: 'semver.md',
    record: { baseMarkdown: OURS, remoteBlocks: blocks, alignment: undefined, localHash: contentHash(OURS), remoteBlocksHash: blocksHash(blocks), remoteModifiedTime: MINUTE, agreedAt: ourAgreedAt },
    listedTime: MINUTE,
    published,
    fileText: OURS,
    remote: blocks,
    urlOf: undefined,
  };
}

describe("another writer's published version", () => {
  test('agreed a few milliseconds "before" ours (closer than the clock can tell): its stamp makes it the latest, and it is taken in', () => {
    const decision = decideBody(facts(1_000_000, 1_000_010));
    assert.equal(decision.kind, 'pull');
    assert.equal(decision.nextFile, THEIRS, "the other machine's link address comes into the file");
    assert.equal(decision.send, undefined, 'nothing is sent back');
  });

  test('agreed clearly before ours (a record published late): an older version, left alone', () => {
    const decision = decideBody(facts(1_000_000 - AGREED_SLACK_MS - 1, 1_000_000));
    assert.equal(decision.kind, 'none');
    assert.equal(decision.nextFile, undefined);
  });
});
