import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { IntentId, JsonValue, OpenIntent } from '../../../src/ledger/index.js';
import { asDocKey } from '../../../src/model/ids.js';
import { fileBeforeOwnWrite, fileWriteFields } from '../../../src/sync/run/interrupted.js';

/**
 * The file a body step's decision is made on (interrupted.ts fileBeforeOwnWrite): the recorded text only when the
 * file holds exactly what an interrupted run of this document wrote over that very text; the file itself otherwise,
 * so an edit of the user's, however small, is always there to merge.
 */

const record = (base: string) => ({ path: 'notes/p.md', docKey: asDocKey('doc-1'), baseMarkdown: base });

const intent = (payload: { readonly [key: string]: JsonValue }, over: Partial<OpenIntent> = {}): OpenIntent => ({
  id: 1 as IntentId,
  kind: 'sync',
  subject: 'notes/p.md',
  payload,
  createdAt: 0,
  pid: 1,
  ...over,
});

const texts = fc.string({ unit: 'grapheme', maxLength: 60 });

test('a file holding exactly what an interrupted pull wrote over the recorded text is decided as that text', () => {
  fc.assert(
    fc.property(texts, texts, (base, pulled) => {
      fc.pre(base !== pulled);
      const open = [intent({ docKey: 'doc-1', mode: 'both', ...fileWriteFields(base, pulled) })];
      assert.equal(fileBeforeOwnWrite(record(base), open, pulled), base);
    }),
  );
});

test('any other file text is decided as it is: edited since, written over other text, or by another document or path', () => {
  fc.assert(
    fc.property(texts, texts, texts, (base, pulled, file) => {
      fc.pre(base !== pulled && file !== pulled);
      const fields = { docKey: 'doc-1', mode: 'both', ...fileWriteFields(base, pulled) };
      // The user edited the file after the kill.
      assert.equal(fileBeforeOwnWrite(record(base), [intent(fields)], file), file);
      // The write replaced another text than the record's (an unsent edit of the user's was in it).
      assert.equal(fileBeforeOwnWrite(record(`${base}x`), [intent(fields)], pulled), pulled);
      // Another document's write, another file's, another kind of intent, or a push that wrote no file.
      assert.equal(fileBeforeOwnWrite(record(base), [intent({ ...fields, docKey: 'doc-2' })], pulled), pulled);
      assert.equal(fileBeforeOwnWrite(record(base), [intent(fields, { subject: 'notes/q.md' })], pulled), pulled);
      assert.equal(fileBeforeOwnWrite(record(base), [intent(fields, { kind: 'write-local' })], pulled), pulled);
      assert.equal(fileBeforeOwnWrite(record(base), [intent({ docKey: 'doc-1', mode: 'both' })], pulled), pulled);
    }),
  );
});
