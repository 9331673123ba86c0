import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt, type Passing } from '../../helpers/gate-proxy.js';
import { steadyProblems } from '../../helpers/reliability.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, withBothGated, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 726 (issue 44, keyless): B wrote an autolink into a page, and A, whose run had read the shared state
 * before B's record of that write came, read the write and took it in from the plain reading (the autolink's `<>`
 * lost, the README's stated window), keeping its front matter (`hc`). B then changed other words and published
 * the record of that later version before A's run published its reading of the first. The fold let A's reading,
 * the latest record, stand over B's later version, though it was of older blocks; A's next run found the
 * document changed, asked the state, met only its own reading, and took B's second write in plainly too. The
 * two files differed for good, nothing held: B's record never reached A.
 */
const PAGE = '# Encoder\n\n1. To start the encoding process, make an Encoder.\n\nIt reads the form data.\n\nIt never splits values.\n';
const LINKED = PAGE.replace('start the encoding', 'start the <https://example.com/u101z> encoding');
const REWORDED = LINKED.replace('never splits', 'never 段落u107z splits');

const recordAppend = (request: Passing): boolean => request.path.includes('appendText');

type Gate = ReturnType<typeof onceAt>;

/**
 * A's run, started when B's write reaches `writerGate` (B's record append: A reads the state before that record),
 * held at `readerGate` until released; `release` lets it go on, and `done` is its report.
 */
function readingBeforeRecord(a: SyncFixture, tick: () => void, readerGate: Gate, writerGate: Gate): { release(): void; done(): Promise<SyncReport> | undefined } {
  let reading: Promise<SyncReport> | undefined;
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    readerGate.arm(() => {
      resolve();
      return new Promise<void>((go) => (release = go));
    });
  });
  writerGate.arm(async () => {
    tick();
    reading = reported(a);
    await held;
  });
  return { release: () => release(), done: () => reading };
}

for (const keyless of [true, false]) {
  test(`a reading of another machine's write never stands over that machine's later version, published first (${keyless ? 'keyless' : 'keyed'})`, async () => {
    const readerGate = onceAt(recordAppend);
    const writerGate = onceAt(recordAppend);
    await withBothGated(keyless, [readerGate.hooks, writerGate.hooks], async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'encoder.md': PAGE });
      await b.write('encoder.md', LINKED);
      // B's record of its write waits until A has read the write; A's record of its reading waits at its append
      // until B has published its later version.
      const reading = readingBeforeRecord(a, tick, readerGate, writerGate);
      await sync(b);
      assert.ok(writerGate.fired && readerGate.fired, "A read B's write before B's record, and holds its own record");
      await b.write('encoder.md', REWORDED);
      await sync(b);
      reading.release();
      await reading.done();
      assert.equal(await a.read('encoder.md'), LINKED.replace('<https://example.com/u101z>', 'https://example.com/u101z'), 'A took the write in from the plain reading');
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await b.read('encoder.md'), REWORDED);
      assert.equal(await a.read('encoder.md'), REWORDED, "A gets B's later version, the autolink included");
      for (const f of [a, b]) assert.deepEqual(await steadyProblems(f), [], 'nothing more to publish: the reading that gave way is not sent again');
    });
  });
}

/**
 * The same race with a colleague's save after B's second write, read by A with it: A's reading is of blocks no
 * record has, yet was made without B's later version, so B's record stands over it. Both machines still end
 * alike, the colleague's words and B's autolink everywhere.
 */
const SAVED = 'c118z saved';
const documentRead = (docKey: () => string | undefined) => (request: Passing): boolean =>
  request.method === 'GET' && request.path.includes('/blocks') && docKey() !== undefined && request.path.includes(docKey() as string);

for (const keyless of [true, false]) {
  test(`a reading of another machine's two writes and a colleague's save, published after that machine's records: both end alike (${keyless ? 'keyless' : 'keyed'})`, async () => {
    let pageKey: string | undefined;
    const readerGate = onceAt(documentRead(() => pageKey));
    const writerGate = onceAt(recordAppend);
    await withBothGated(keyless, [readerGate.hooks, writerGate.hooks], async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'encoder.md': PAGE });
      pageKey = a.remoteDoc('Encoder').dentryUuid;
      await b.write('encoder.md', LINKED);
      // A's read of the page waits, its run having read the state, until B's second write and the colleague's save.
      const reading = readingBeforeRecord(a, tick, readerGate, writerGate);
      await sync(b);
      assert.ok(writerGate.fired && readerGate.fired, "A's run listed B's write and read the state before B's record");
      await b.write('encoder.md', REWORDED);
      await sync(b);
      em.admin.editDocument(pageKey, (a.remoteDoc('Encoder').markdown ?? '').replace('reads the form data', `reads the form data, ${SAVED}`));
      reading.release();
      await reading.done();
      for (const f of [a, b, a, b, a, b]) await sync(f);
      const settled = await b.read('encoder.md');
      assert.match(settled, new RegExp(SAVED), "B took the colleague's save in");
      assert.equal(await a.read('encoder.md'), settled, 'both machines end alike');
      for (const f of [a, b]) assert.deepEqual(await steadyProblems(f), []);
    });
  });
}
