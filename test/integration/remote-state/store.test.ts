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

describe('the shared state store against the service', () => {
  test('an append whose answer is lost is read back: applied once, never assumed, never doubled', async () => {
    await withEmulator(async (em) => {
      const a = writer(em);
      await a.store.publish([doc('a.md', 'v1')]);
      // Every append is applied and its answer dropped: each is confirmed by reading the document.
      em.admin.setFaults('drop=1,only=appendText');
      await a.store.publish([doc('a.md', 'v2')]);
      em.admin.setFaults({});
      assert.equal((await freshState(em)).entries.get('a.md')?.h, sha('v2'));
      const [index] = indexDocs(em);
      assert.equal(dataText(index ?? ({} as never)).split(' ').length, new Set(dataText(index ?? ({} as never)).split(' ')).size, 'no token twice');
      // Resets before any work: the append never happened, so it is sent again until it does.
      em.admin.setFaults('reset=0.5,only=appendText,seed=7');
      for (const v of ['v3', 'v4', 'v5']) await a.store.publish([doc('a.md', v)]);
      em.admin.setFaults({});
      assert.equal((await freshState(em)).entries.get('a.md')?.h, sha('v5'));
    });
  });

  test('a writer appending to the document it used last (an older one) is not beaten by an older record in a newer document', async () => {
    await withEmulator(async (em) => {
      const b = writer(em);
      await b.store.publish([doc('p.md', 'b-first')]);
      // A fills the document B used and starts newer ones, with an older view of p.md written before B's next edit.
      const a = writer(em);
      a.now = b.now + 1000;
      for (let i = 0; i < 12; i += 1) await a.store.publish([doc(`filler-${i}.md`, 'x'), doc('p.md', 'a-older')]);
      assert.ok(indexDocs(em).length >= 2, 'A started newer documents');
      b.now = a.now + 60_000;
      const again = writer(em, { targets: b.targets });
      again.now = b.now;
      await again.store.publish([doc('p.md', 'b-later')]);
      assert.equal((await freshState(em)).entries.get('p.md')?.h, sha('b-later'), "B's later record wins wherever it sits");
    });
  });

  test('compaction: nothing another writer appends meanwhile is lost, the old documents go after the grace period, and the state shrinks', async () => {
    await withEmulator(async (em) => {
      const a = writer(em);
      // Churn: four files, each rewritten many times, until the index spans several documents mostly superseded.
      for (let round = 0; round < 10; round += 1) await a.store.publish(['a.md', 'b.md', 'c.md', 'd.md'].map((p) => doc(p, `v${round}`)));
      const before = indexDocs(em);
      assert.ok(before.length >= 3, `${before.length} index documents before`);
      // B read the state and remembers where it appends.
      const b = writer(em);
      await b.store.load();
      await b.store.publish([doc('b.md', 'b-before')]);
      const loaded = await a.store.load();
      const upkeep = upkeepOf(a);
      await maintainState(upkeep, loaded, []);
      const retired = (await a.store.load()).state.retired;
      assert.deepEqual(before.filter((d) => !retired.has(d.dentryUuid)), [], 'every old document is retired, none deleted yet');
      // B appends where it did (its target, now retired), within half the grace period.
      b.now += GRACE_MS / 3;
      const b2 = writer(em, { targets: b.targets });
      b2.now = b.now;
      await b2.store.publish([doc('e.md', 'appended during the compaction')]);
      // A, who has not seen B's late record, then (by its clock, later) writes the same file without its creation id.
      a.now = b2.now + 1000;
      await a.store.publish([{ ...doc('e.md', 'A, later, without the id'), n: null }]);
      // Before the grace period is over, nothing is deleted.
      a.now += GRACE_MS / 10;
      await maintainState(upkeep, await a.store.load(), []);
      assert.equal(indexDocs(em).filter((d) => retired.has(d.dentryUuid)).length, before.length, 'nothing deleted before the grace period is over');
      // After it, the late record is copied on and the old documents are deleted.
      a.now += GRACE_MS;
      await maintainState(upkeep, await a.store.load(), []);
      const after = indexDocs(em);
      assert.deepEqual(after.filter((d) => retired.has(d.dentryUuid)), [], 'the retired documents are deleted');
      const state = await freshState(em);
      assert.equal(state.entries.get('e.md')?.h, sha('A, later, without the id'), "A's later record wins");
      assert.equal(state.entries.get('e.md')?.n, doc('e.md', '').n, 'the creation id only the late record held survives the deletion of its document');
      assert.equal(state.entries.get('b.md')?.h, sha('b-before'));
      for (const p of ['a.md', 'c.md', 'd.md']) assert.equal(state.entries.get(p)?.h, sha('v9'));
      const chars = after.reduce((sum, d) => sum + dataText(d).length, 0);
      const was = before.reduce((sum, d) => sum + dataText(d).length, 0);
      assert.ok(chars < was / 2, `the state shrank: ${was} → ${chars} characters`);
    });
  });

  test('junk in the state folder: 300 documents with state-like titles cost no read with a key, and a few without one', async () => {
    await withEmulator(async (em) => {
      const a = writer(em);
      await a.store.publish([doc('a.md', 'v1')]);
      const folder = em.admin.dump().nodes.find((n) => n.title === '.kbsync');
      assert.ok(folder);
      for (let i = 0; i < 300; i += 1) em.admin.createDocument({ name: `kbsync-state-${String(900 + i).padStart(6, '0')}`, parentNodeId: folder.dentryUuid, markdown: `Junk ${i}.\n\njunk junk ${i}\n` });
      em.admin.resetCalls();
      const keyed = await writer(em).store.load();
      assert.equal(keyed.state.entries.get('a.md')?.h, sha('v1'));
      assert.equal(keyed.junk.unverifiedDocs.length, 300);
      assert.equal(em.admin.calls().byEndpoint['readBlocks']?.calls, 1, 'with the key only the genuine document is read');

      em.admin.resetCalls();
      const keyless = await writer(em, { key: false }).store.load().catch((error: unknown) => error);
      // The genuine state is signed: a keyless machine is refused before it reads or writes anything of it.
      assert.equal((keyless as { code?: string }).code, 'STATE_KEY_NEEDED');
    });
  });

  test('junk in a keyless team\'s state folder: a run reads a few of them, not 300, and says the rest', async () => {
    await withEmulator(async (em) => {
      const a = writer(em, { key: false });
      await a.store.publish([doc('a.md', 'v1')]);
      const folder = em.admin.dump().nodes.find((n) => n.title === '.kbsync');
      assert.ok(folder);
      for (let i = 0; i < 300; i += 1) em.admin.createDocument({ name: `kbsync-state-${String(900 + i).padStart(6, '0')}`, parentNodeId: folder.dentryUuid, markdown: `Junk ${i}.\n\njunk junk ${i}\n` });
      em.admin.resetCalls();
      const loaded = await writer(em, { key: false }).store.load();
      const reads = em.admin.calls().byEndpoint['readBlocks']?.calls ?? 0;
      assert.ok(reads <= 10, `${reads} documents read`);
      assert.ok(loaded.junk.unreadDocs >= 290, 'the rest are counted, to be said');
    });
  });

  test('sources: a text another writer kept is not kept again, and churn is compacted to the live texts', async () => {
    await withEmulator(async (em) => {
      const a = writer(em);
      const text = (p: string, v: number): string => `# ${p}\n\n${'Words that do not compress much. '.repeat(4)}${sha(`${p}${v}`)}\n`;
      const publish = async (w: Writer, p: string, v: number) => {
        const source = text(p, v);
        const known = await w.store.load().then(() => w.store.hasSource(sha(source)));
        await w.store.publish([{ ...doc(p, ''), h: sha(source) }], known ? [] : [{ hash: sha(source), text: source }]);
      };
      await publish(a, 'a.md', 0);
      // Another machine records the same merged text: it finds it kept, and keeps nothing.
      const b = writer(em);
      em.admin.resetCalls();
      await publish(b, 'a.md', 0);
      const sourcesDocs = () => stateNodes(em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-sources-'));
      const keptChars = () => sourcesDocs().reduce((sum, d) => sum + dataText(d).length, 0);
      const once = keptChars();
      // Churn: three files rewritten over and over; the sources documents pile up with dead texts.
      for (let v = 1; v <= 12; v += 1) for (const p of ['a.md', 'b.md', 'c.md']) await publish(a, p, v);
      const before = keptChars();
      assert.ok(sourcesDocs().length >= 3 && before > 10 * once, `${sourcesDocs().length} sources documents, ${before} characters`);
      const upkeep = upkeepOf(a);
      await maintainState(upkeep, await a.store.load(), []);
      // The grace period over, by every writer's clock (B's started later than A's).
      a.now = Date.now() + GRACE_MS + 60_000;
      await maintainState(upkeep, await a.store.load(), []);
      const after = keptChars();
      assert.ok(after <= 3 * once * 2, `the sources shrank to the live texts: ${before} → ${after} characters (one text: ${once})`);
      const reader = writer(em);
      const live = await reader.store.load();
      const texts = await reader.store.sources(new Set([...live.state.entries.values()].map((entry) => entry.h)));
      assert.deepEqual([...texts.values()].sort(), ['a.md', 'b.md', 'c.md'].map((p) => text(p, 12)).sort(), 'every live text is still kept');
    });
  });

  test('two writers that start a document one after the other do not split its number: the later one joins the document the first started', async () => {
    await withEmulator(async (em) => {
      const a = writer(em);
      const tokenChars = (records: readonly DocRecord[]) => writer(em).store.encode(records).join(' ').length;
      const batch = ['p1.md', 'p2.md', 'p3.md', 'p4.md', 'p5.md'].map((p) => doc(p, 'b'));
      assert.ok(tokenChars(batch) < 1000, `${tokenChars(batch)} characters`);
      // A fills the first document past the room B's batch needs, and B reads the state then.
      for (let i = 0; indexChars(em) <= 2000 - tokenChars(batch); i += 1) await a.store.publish([doc(`a${i}.md`, 'a')]);
      assert.equal(indexDocs(em).length, 1);
      const b = writer(em, { now: a.now });
      await b.store.load();
      // A starts the next document; then B's batch does not fit where B last saw room.
      for (let i = 0; indexDocs(em).length < 2; i += 1) await a.store.publish([doc(`more${i}.md`, 'a')]);
      await b.store.publish(batch);
      const numbers = indexDocs(em).map((d) => d.title.split('-')[2]);
      assert.equal(new Set(numbers).size, numbers.length, `no number twice: ${numbers.join(', ')}`);
      assert.equal(b.store.madeIds().size, 0, 'B started no document');
      assert.equal(b.store.fingerprintAfterWrites('2026-11-02T09:00Z'), undefined, "B did not read A's records there: its next run reads the state");
      const state = await freshState(em);
      for (const record of batch) assert.equal(state.entries.get(record.p)?.h, sha('b'));
      assert.equal(state.entries.get('more0.md')?.h, sha('a'));
    });
  });
});

