import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { publishedOnBoth, reported as synced, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 704 (rerun): B rewrapped a line of a page (the same words, a line broken elsewhere), and its run was
 * killed after the push's intent, before the overwrite went out. The next run asked whether the write had landed:
 * the document read as the body sent, past spacing (the comparison every read-back makes), so it was taken for
 * landed, the rewrapped text recorded as agreed and the file said unchanged. The document never got the rewrap,
 * nor did A, and nothing said so. A change inside code, which no read shows, went the same way.
 */
const TEXT =
  '# Buffers\n\nThe optional `start` and `end` arguments are passed on to `slice()`, while the `encoding` is passed on to `toString()` of the resulting Buffer.\n\n' +
  '```js\nbl.toString()\n```\n\nA closing paragraph.\n';

const CHANGES = [
  { name: 'a rewrap', text: TEXT.replace('is passed on to `toString()`', 'is passed on\nto `toString()`') },
  { name: 'a code edit', text: TEXT.replace('bl.toString()', "bl.toString('utf8')") },
];

const page = (f: SyncFixture): string => f.remoteDoc('Buffers').markdown ?? '';
const said = (reports: readonly Awaited<ReturnType<typeof synced>>[]): string => JSON.stringify(reports.flatMap((report) => report.results));

/** B's `text` saved and B's run killed at `point`: the push's write not yet made (after-intent), or made. */
async function killed(b: SyncFixture, text: string, point: string): Promise<void> {
  await b.write('buffers.md', text);
  const run = await b.sync([], { KBSYNC_CRASH_AT: point });
  assert.equal(run.signal, 'SIGKILL', `B is killed at ${point}: ${run.stderr}`);
}

/** From the kill on: B's next run sends `text` (again), A gets it with its own edit of another paragraph, nothing held or said. */
async function converges(a: SyncFixture, b: SyncFixture, clock: (minutes: number) => void, text: string): Promise<void> {
  clock(5);
  const rerun = await synced(b);
  assert.deepEqual(
    rerun.results.filter((r) => r.path === 'buffers.md').map((r) => r.ok && r.result),
    ['pushed'],
    `B's next run sends the file: ${said([rerun])}`,
  );
  assert.equal(page(b), text, 'the document has the change');
  // A, which never saw it, edits another paragraph: its merge keeps the change.
  clock(7);
  await a.write('buffers.md', TEXT.replace('A closing paragraph.', 'A closing paragraph, from A.'));
  const edited = await synced(a);
  const both = text.replace('A closing paragraph.', 'A closing paragraph, from A.');
  assert.equal(await a.read('buffers.md'), both, `A has B's change and its own edit: ${said([edited])}`);
  assert.equal(page(a), both);
  clock(9);
  await synced(b);
  assert.equal(await b.read('buffers.md'), both, "B has A's edit and keeps its own change");
  clock(11);
  const after = [rerun, edited, await synced(a), await synced(b)];
  assert.doesNotMatch(said(after), /"held"|HIDDEN_EDIT|FLATTEN/, 'nothing held or said');
}

for (const keyless of [false, true]) {
  const team = keyless ? ' (keyless team)' : '';
  for (const change of CHANGES) {
    test(`${change.name} whose push was killed before its write reaches the document and the other machine${team}`, async () => {
      await withWorkstationPair(keyless, async (em, a, b) => {
        const clock = (minutes: number) => em.admin.setClockOffset(minutes * 60_000);
        await publishedOnBoth(em, a, b, { 'buffers.md': TEXT });
        clock(4);
        await killed(b, change.text, 'after-intent');
        assert.equal(page(a), TEXT, 'the write never went out');
        await converges(a, b, clock, change.text);
      });
    });
  }
}

// The kill between the write's answer and the note of it in the intent (a SIGKILL's race): the write landed, and a
// change no read shows cannot be told from one that never went out. Sent again, the same body, its minute no hidden edit.
test('a code edit whose write landed and whose kill came before its answer was noted is sent again, said by nobody as a hidden edit', async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    const clock = (minutes: number) => em.admin.setClockOffset(minutes * 60_000);
    await publishedOnBoth(em, a, b, { 'buffers.md': TEXT });
    clock(4);
    const change = CHANGES[1]?.text ?? '';
    await killed(b, change, 'after-overwrite');
    assert.equal(page(a), change, 'the write landed');
    const ledger = new Database(join(b.root, '.kbsync', 'ledger.sqlite'));
    try {
      const unnoted = ledger.prepare("UPDATE intents SET payload_json = json_remove(payload_json, '$.written') WHERE state = 'open' AND subject = 'buffers.md'").run();
      assert.equal(unnoted.changes, 1, "the push's intent is open");
    } finally {
      ledger.close();
    }
    await converges(a, b, clock, change);
  });
});
