import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Block } from '../../../src/model/blocks.js';
import { align, merge3 } from '../../../src/markdown/index.js';
import { useMarkdownDialect } from '../../../src/markdown/parse.js';
import { lowerBody } from '../../../src/vault/lower.js';
import { reindex, simulateServiceRead } from '../markdown/helpers/service-read.js';

/*
 * A note's comments never reach the knowledge base, so a colleague never sees them and cannot mean to remove
 * them: whatever their edit does to the blocks around a comment, the file keeps it, byte for byte.
 */

const NO_NAMES = { exists: () => false, resolve: () => undefined };

/** A vault note as last synced: what the push sent (comments left out), as the service read it back. */
function synced(base: string) {
  const sent = lowerBody(base, 'Note.md', { names: NO_NAMES, synced: new Set() }).markdown;
  assert.ok(!sent.includes('%%'), `the comments are not sent: ${sent}`);
  const remoteBase = simulateServiceRead(sent);
  return { base, remoteBase, alignment: align(base, remoteBase) };
}

const edited = (blocks: readonly Block[], from: string, to: string): Block[] => blocks.map((block) => ('text' in block && block.text === from ? { ...block, text: to } : block));
const without = (blocks: readonly Block[], text: string): Block[] => reindex(blocks.filter((block) => !('text' in block && block.text === text)));

describe('a pulled edit keeps the comments it could not see', () => {
  beforeEach(() => useMarkdownDialect('wiki'));
  afterEach(() => useMarkdownDialect('gfm'));

  const pull = (base: string, remote: (blocks: Block[]) => Block[]): string => {
    const { remoteBase, alignment } = synced(base);
    const result = merge3({ base, remoteBase, remote: remote([...remoteBase]), local: base, alignment });
    assert.deepEqual(result.conflicts, []);
    return result.body;
  };

  test('a block deleted before a comment of its own lines leaves the comment', () => {
    const base = '# Plugin\n\nRender statblocks.\n\n%% ![[ben#Sponsor this author]] %%\n\n%%\nA block comment,\n\nover paragraphs.\n%%\n\nClosing.\n';
    assert.equal(
      pull(base, (blocks) => without(blocks, 'Render statblocks.')),
      '# Plugin\n\n%% ![[ben#Sponsor this author]] %%\n\n%%\nA block comment,\n\nover paragraphs.\n%%\n\nClosing.\n',
    );
  });

  test('a block deleted with a comment inside it leaves the comment where it was', () => {
    assert.equal(pull('First.\n\nSecond %%why%% words.\n\nThird.\n', (blocks) => without(blocks, 'Second words.')), 'First.\n\n%%why%%\n\nThird.\n');
    // A list item's comment stays in the list (its own line in the item before), the list one list.
    assert.equal(pull('- a\n- b %%why%%\n- c\n', (blocks) => without(blocks, 'b')), '- a\n  %%why%%\n- c\n');
  });

  test('an edit written into the words keeps the comment between them; one across it keeps it after the new words', () => {
    assert.equal(pull('Ship it %%before Friday%% today.\n', (blocks) => edited(blocks, 'Ship it today.', 'Ship it tomorrow.')), 'Ship it %%before Friday%% tomorrow.\n');
    assert.equal(pull('alpha beta %%c%%gamma delta epsilon\n', (blocks) => edited(blocks, 'alpha beta gamma delta epsilon', 'alpha delta epsilon zeta')), 'alpha %%c%%delta epsilon zeta\n');
  });

  test('a paragraph rewritten whole (written plain) keeps its comments at its end, and loses no formatting it had', () => {
    const base = '# T\n\nAlpha %%why%% beta.\n';
    const { remoteBase, alignment } = synced(base);
    const result = merge3({ base, remoteBase, remote: edited(remoteBase, 'Alpha beta.', 'Nothing like what was here before at all.'), local: base, alignment });
    assert.equal(result.body, '# T\n\nNothing like what was here before at all. %%why%%\n');
    assert.deepEqual(result.simplified, [], 'a comment is no formatting the rewrite lost (it is kept)');
  });
});
