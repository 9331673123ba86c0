import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StateRecord } from '../../../src/remote-state/records.js';
import { StateJournal } from '../../../src/sync/state/journal.js';

const MINUTE = 60_000;
const START = Date.parse('2026-12-07T10:00:10Z');

/** A journal whose appends are counted, and a write of `docKey`'s one text announced `minutes` after START. */
function journal() {
  const writes: StateRecord[] = [];
  const kept = new StateJournal(async (records) => void writes.push(...records.filter((record) => record.t === 'write')), { windowMs: 0 });
  const announce = (docKey: string, minutes: number): Promise<void> =>
    kept.announce({ p: `${docKey}.md`, k: docKey, a: START + minutes * MINUTE }, { text: `# ${docKey}\n`, hash: docKey.padEnd(64, '0') });
  return { writes, announce };
}

test('an announced write stands for the same text in its minute, and in the next for a clock that lags', async () => {
  const { writes, announce } = journal();
  await announce('a', 0);
  await announce('a', 0);
  assert.equal(writes.length, 1, 'announced once in its minute');
  await announce('b', 1);
  await announce('a', 0);
  assert.equal(writes.length, 2, "a's announcement still stands one minute on (a Date header may lag)");
  await announce('a', 1);
  assert.equal(writes.length, 3, 'a later minute is announced again');
});

test('announcements of minutes before the last two are forgotten: a long run keeps two minutes of them, not one per document', async () => {
  const { writes, announce } = journal();
  await announce('a', 0);
  await announce('b', 1);
  await announce('c', 2);
  await announce('a', 0);
  assert.equal(writes.length, 4, "a's announcement of minute 0 was dropped once minute 2 came, so it is made again");
});
