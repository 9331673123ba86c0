import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Passing } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, saidIn, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Convergence soak 739 (keyed): B, back from a kill with an edit of its own, listed and read the team's state, then
 * read a page A had just written (A's record of that write not read yet), merged its edit into that reading, and
 * overwrote the page; meanwhile A had written the page again, and read that write back a minute on. B's write landed
 * after A's read-back, and the read-back had ended the window in which A takes a revert of its last write for a lost
 * update: A took B's version for the page's next, and A's three edits were gone from every machine and the knowledge base.
 */

type Step = () => Promise<unknown>;

/**
 * Hooks that run `onRead` when B first reads the page's blocks, `onWrite` when B first overwrites it, and `onRecord`
 * when B first appends to its state after that write, each call held until its step is done.
 */
function betweenBsCalls(page: () => string, onRead: Step, onWrite: Step, onRecord: Step) {
  const steps: { read?: Step; write?: Step; record?: Step } = {};
  const fired: string[] = [];
  const hooks = {
    before: async (request: Passing) => {
      const id = page();
      const ofPage = id !== '' && request.path.includes(`/documents/${id}/`);
      const which =
        ofPage && request.method === 'GET' && request.path.includes('/blocks')
          ? 'read'
          : ofPage && request.path.includes('/overwriteContent')
            ? 'write'
            : fired.includes('write') && request.path.includes('/appendText')
              ? 'record'
              : undefined;
      const step = which && steps[which];
      if (!which || !step) return;
      delete steps[which];
      fired.push(which);
      await step();
    },
  };
  return { hooks, fired, arm: () => Object.assign(steps, { read: onRead, write: onWrite, record: onRecord }) };
}

for (const keyless of [false, true]) {
  test(`a merge read between another machine's two writes does not undo the second (${keyless ? 'keyless' : 'keyed'} team)`, async () => {
    let docKey = '';
    let a: SyncFixture | undefined;
    let aSync: ((f: SyncFixture) => Promise<SyncReport>) | undefined;
    const edit = async (f: SyncFixture, from: string, to: string) => f.write('semver.md', (await f.read('semver.md')).replace(from, to));
    const gate = betweenBsCalls(
      () => docKey,
      // A writes the page once more before B's read: its second paragraph.
      async () => {
        await edit(a!, 'Para two.', 'Para two, edited on A first.');
        await aSync!(a!);
      },
      // And once more between B's read and B's write: its third paragraph, and a new one.
      async () => {
        await edit(a!, 'Para three.', 'Para three, edited on A again.\n\nA new paragraph from A.');
        await aSync!(a!);
        // A minute on, A reads its write back, standing: B's write, still on its way, can land over it yet.
        await aSync!(a!);
      },
      // A syncs once B's write has landed, before B's record of it.
      // It reads B's write plainly, its record not come: a revert of A's last write, by a writer or a colleague.
      async () => {
        const waited = await aSync!(a!);
        assert.deepEqual(waited.results.filter((r) => !r.ok || r.result !== 'unchanged' || r.detail !== undefined), [], 'A waits for the record that may explain it');
        assert.match(await a!.read('semver.md'), /A new paragraph from A/);
      },
    );
    await withGatedPair(keyless, gate.hooks, async (em, open, b) => {
      a = open;
      const { sync } = minuteByMinute(em);
      aSync = sync;
      await publishedOnBoth(em, a, b, { 'semver.md': '# Semver\n\nPara one.\n\nPara two.\n\nPara three.\n\nPara four.\n' });
      docKey = a.remoteDoc('Semver').dentryUuid;
      // A version of A's that B has not pulled: B's record is older than the page.
      await edit(a, 'Para four.', 'Para four, edited on A before it all.');
      await sync(a);
      await edit(b, 'Para one.', 'Para one, edited on **B**.');
      gate.arm();
      await sync(b);
      assert.deepEqual(gate.fired, ['read', 'write', 'record'], "A wrote the page before B's read and between B's read and B's write, and synced before B's record");
      const said: string[] = [];
      for (const f of [a, b, a, b, a]) {
        const report = await sync(f);
        assert.deepEqual(report.results.filter((r) => !r.ok || r.result === 'held' || r.result === 'conflict'), [], 'nothing held, failed or in conflict');
        said.push(...saidIn(report));
      }
      assert.deepEqual(said, ['LOST_UPDATE_REPAIRED'], "A puts back what B's write undid, with B's record's exact version merged in, once");
      const want = ['Para one, edited on **B**.', 'Para two, edited on A first.', 'Para three, edited on A again.', 'A new paragraph from A.', 'Para four, edited on A before it all.'];
      for (const [name, text] of [['A', await a.read('semver.md')], ['B', await b.read('semver.md')], ['the knowledge base', a.remoteDoc('Semver').markdown ?? '']] as const) {
        for (const line of want) assert.ok(text.includes(line), `${name} holds "${line}":\n${text}`);
      }
    });
  });
}
