import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maintainState } from '../../../src/remote-state/compaction.js';
import type { DocRecord } from '../../../src/remote-state/records.js';
import { GRACE_MS } from '../../../src/remote-state/store.js';
import { withEmulator, type RunningEmulator } from '../../helpers/emulator.js';
import { dataText } from '../../helpers/state-reader.js';
import { doc, freshState, indexDocs, sha, upkeepOf, writer, type Writer } from '../../helpers/state-store.js';
import { stateNodes } from '../../helpers/sync-fixture.js';

const indexChars = (em: RunningEmulator): number => indexDocs(em).reduce((sum, d) => sum + dataText(d).length, 0);
/** Far enough apart that every retirement's grace period is over at the next job. */
const JOB_GAP = GRACE_MS + 60_000;
const START = Date.UTC(2026, 10, 2, 9, 0, 0);

/** A CI job: a fresh writer (no ledger: its own clock, no remembered target), run `n` of a series. */
const job = (em: RunningEmulator, n: number, key = true): Writer => writer(em, { key, now: START + n * JOB_GAP });

/** A job's publish of a commit that edits four files, then its upkeep of the state, as a run does. */
async function publishAndMaintain(w: Writer, version: string): Promise<void> {
  const loaded = await w.store.load();
  const written = await w.store.publish(['a.md', 'b.md', 'c.md', 'd.md'].map((p) => doc(p, version)));
  await maintainState(upkeepOf(w), w.store.loaded ?? loaded, written);
}

describe('compaction when CI jobs (no ledger) are the only writers', () => {
  test("a keyless team's jobs, which can delete no document an earlier job made, compact nothing: the state grows by what they append, not by a copy per job", async () => {
    await withEmulator(async (em) => {
      for (let n = 0; n < 12; n += 1) {
        const w = job(em, n, false);
        const loaded = await w.store.load();
        const written = await w.store.publish(['a.md', 'b.md', 'c.md', 'd.md'].map((p) => doc(p, `v${n}`)));
        const before = indexChars(em);
        await maintainState(upkeepOf(w), w.store.loaded ?? loaded, written);
        assert.equal(indexChars(em), before, `job ${n}: a compaction nobody could finish wrote copies beside the documents it would retire`);
      }
      const state = await freshState(em, false);
      assert.equal(state.retired.size, 0, 'nothing retired');
      assert.equal(state.entries.get('a.md')?.h, sha('v11'));
    });
  });

  test('with the key, the same jobs compact and delete: the index stays within three documents and twice its live records', async () => {
    await withEmulator(async (em) => {
      let most = 0;
      for (let n = 0; n < 16; n += 1) {
        await publishAndMaintain(job(em, n), `v${n}`);
        most = Math.max(most, indexChars(em));
      }
      const state = await freshState(em);
      for (const p of ['a.md', 'b.md', 'c.md', 'd.md']) assert.equal(state.entries.get(p)?.h, sha('v15'));
      // The documents of 2,000 characters: three of them, and the retired ones of the last compaction beside.
      assert.ok(most < 6 * 2000, `the index peaked at ${most} characters`);
      assert.ok(indexDocs(em).length <= 6, `${indexDocs(em).length} index documents`);
      assert.ok((em.admin.calls().byEndpoint['deleteDocument']?.calls ?? 0) > 0, 'jobs deleted the documents earlier jobs retired');
    });
  });

  test('two jobs that compact at once fold to one set of copies: the one whose copies sort first retires them instead of what both read', async () => {
    await withEmulator(async (em) => {
      // Churn until a compaction is worth it, by jobs that each leave the state as it is (their grace never over).
      const a = writer(em);
      for (let round = 0; round < 10; round += 1) await a.store.publish(['a.md', 'b.md', 'c.md', 'd.md'].map((p) => doc(p, `v${round}`)));
      const old = indexDocs(em).map((d) => d.dentryUuid);
      assert.ok(old.length >= 3, `${old.length} index documents`);
      const [b, c] = [writer(em, { now: a.now + 1000 }), writer(em, { now: a.now + 1000 })] as const;
      const [lb, lc] = [await b.store.load(), await c.store.load()];
      // Both have written their copies before either looks again.
      let arrived = 0;
      let release = (): void => undefined;
      const both = new Promise<void>((resolve) => (release = resolve));
      const gate = async (): Promise<void> => {
        arrived += 1;
        if (arrived === 2) release();
        await both;
      };
      await Promise.all([maintainState({ ...upkeepOf(b), onStep: gate }, lb, []), maintainState({ ...upkeepOf(c), onStep: gate }, lc, [])]);
      const state = await freshState(em);
      const copiesOf = (w: Writer) => [...w.store.madeIds().keys()];
      const retiredCopies = [b, c].filter((w) => copiesOf(w).every((docKey) => state.retired.has(docKey)));
      assert.equal(retiredCopies.length, 1, 'exactly one of the two sets of copies is retired');
      const kept = [b, c].find((w) => !retiredCopies.includes(w));
      assert.ok(kept && copiesOf(kept).every((docKey) => !state.retired.has(docKey)), 'the other set stays');
      assert.deepEqual(old.filter((docKey) => !state.retired.has(docKey)), [], 'what both read is retired');
      // After the grace period, a later job deletes the retired documents: one set of copies is left.
      const later = writer(em, { now: b.now + JOB_GAP });
      await maintainState(upkeepOf(later), await later.store.load(), []);
      assert.deepEqual(indexDocs(em).map((d) => d.dentryUuid).sort(), copiesOf(kept).sort());
      const after = await freshState(em);
      for (const p of ['a.md', 'b.md', 'c.md', 'd.md']) assert.equal(after.entries.get(p)?.h, sha('v9'));
    });
  });

  test("a write a killed job announced keeps its text through a compaction of the sources (the next job takes the document for that job's version by it)", async () => {
    await withEmulator(async (em) => {
      const a = writer(em, { now: START });
      const announced = '# Announced\n\nThe text a killed job wrote.\n';
      const write = { t: 'write' as const, p: 'w.md', k: 'Kannounced', h: sha(announced), a: START };
      await a.store.publish([write], [{ hash: sha(announced), text: announced }]);
      // Churn: three files rewritten over and over, until the sources hold more dead texts than live ones.
      for (let v = 0; v < 6; v += 1) {
        const texts = ['a.md', 'b.md', 'c.md'].map((p) => `# ${p}\n\n${'Words that do not compress much. '.repeat(4)}${sha(`${p}${v}`)}\n`);
        await a.store.publish(
          texts.map((text, i): DocRecord => ({ ...doc(['a.md', 'b.md', 'c.md'][i] ?? '', ''), h: sha(text) })),
          texts.map((text) => ({ hash: sha(text), text })),
        );
      }
      const sourcesDocs = () => stateNodes(em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-sources-'));
      const before = sourcesDocs().map((d) => d.dentryUuid);
      await maintainState(upkeepOf(a), await a.store.load(), []);
      a.now += JOB_GAP;
      await maintainState(upkeepOf(a), await a.store.load(), []);
      assert.ok(before.every((docKey) => !sourcesDocs().some((d) => d.dentryUuid === docKey)), 'the sources were compacted and the old documents deleted');
      const reader = writer(em, { now: a.now });
      assert.equal((await reader.store.load()).state.writes.get('Kannounced')?.h, sha(announced), 'the announcement is live');
      assert.equal((await reader.store.sources(new Set([sha(announced)]))).get(sha(announced)), announced, 'and its text is still kept');
    });
  });
});
