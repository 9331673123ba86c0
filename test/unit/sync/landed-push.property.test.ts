import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { IntentId, JsonValue, OpenIntent } from '../../../src/ledger/index.js';
import { blocksHash, toPushMarkdown } from '../../../src/markdown/index.js';
import { withLandedPush } from '../../../src/sync/run/interrupted.js';
import { sampleDocument } from '../ledger/helpers.js';
import { simulateServiceRead } from '../markdown/helpers/service-read.js';

/**
 * Did a push killed before its record land (interrupted.ts withLandedPush)? Soak seed 704: a rewrap (the same
 * words, a line broken elsewhere) killed after its intent, before its write, was taken for landed, since the read
 * agrees with the body sent past spacing; the rewrap was recorded as agreed and never sent. The read shows
 * spacing: the document reading as the recorded text, spacing and all, is a write that did not land; reading as
 * the body sent, one that did. A write whose answer the intent noted (`written`) landed, whatever the read.
 */

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'ember', 'slice()', 'Buffer', 'passed', 'on', 'to');
/** A paragraph's words and the spaces between them: a line break or a space each. */
const spaced = (words: readonly string[], gaps: readonly boolean[]): string => words.map((w, i) => (i === 0 ? w : `${gaps[i] ? '\n' : ' '}${w}`)).join('');
const page = (paragraph: string): string => `# Page\n\n${paragraph}\n\nA closing paragraph.\n`;

const pushIntent = (payload: { readonly [key: string]: JsonValue }): OpenIntent => ({ id: 1 as IntentId, kind: 'sync', subject: 'notes/doc-1.md', payload, createdAt: 0, pid: 1 });

test('a respaced body a kill may have kept from the document landed only where the read shows its spacing', () => {
  fc.assert(
    fc.property(fc.array(word, { minLength: 2, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (words, was, now) => {
      const base = page(spaced(words, was));
      const agreed = page(spaced(words, now));
      fc.pre(base !== agreed);
      const before = simulateServiceRead(toPushMarkdown(base));
      const record = sampleDocument(1, { baseMarkdown: base, remoteBlocks: before, remoteBlocksHash: blocksHash(before) });
      const fields = { docKey: record.docKey, mode: 'two-way', sent: toPushMarkdown(agreed), agreed, at: 0 };
      // Not sent: the document reads as it did, with fresh ids as after any read.
      assert.equal(withLandedPush(record, [pushIntent(fields)], simulateServiceRead(toPushMarkdown(base))), record, 'the record as it was: the file is sent again');
      // Sent: the document reads as the body, spacing and all.
      assert.equal(withLandedPush(record, [pushIntent(fields)], simulateServiceRead(toPushMarkdown(agreed))).baseMarkdown, agreed, 'the write landed');
      // Answered: landed, though the read shows the spacing it replaced (a service that reads line breaks as spaces).
      assert.equal(withLandedPush(record, [pushIntent({ ...fields, written: '2026-11-02T10:07Z' })], before).baseMarkdown, agreed, 'an answered write landed');
    }),
  );
});

// No read shows a change inside code: whether its write landed, only its noted answer tells. Unanswered, it is sent
// again (the record as it was, the document's time unknown, so its minute, if it landed, is no hidden edit).
test('a body changed only inside code, its write unanswered, is sent again; answered, it landed', () => {
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), fc.array(word, { minLength: 1, maxLength: 4 }), (was, now) => {
      const code = (words: readonly string[]) => page(`Before the code.\n\n\`\`\`js\n${words.join(' ')}\n\`\`\``);
      const base = code(was);
      const agreed = code(now);
      fc.pre(base !== agreed);
      const before = simulateServiceRead(toPushMarkdown(base));
      const record = sampleDocument(1, { baseMarkdown: base, remoteBlocks: before, remoteBlocksHash: blocksHash(before) });
      const fields = { docKey: record.docKey, mode: 'two-way', sent: toPushMarkdown(agreed), agreed, at: 0 };
      for (const remote of [before, simulateServiceRead(toPushMarkdown(agreed))]) {
        assert.deepEqual(withLandedPush(record, [pushIntent(fields)], remote), { ...record, remoteModifiedTime: '' }, 'sent again');
        assert.equal(withLandedPush(record, [pushIntent({ ...fields, written: '2026-11-02T10:07Z' })], remote).baseMarkdown, agreed, 'an answered write landed');
      }
    }),
  );
});
