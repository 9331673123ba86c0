import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atFirstReadOf, onceAt, type Passing } from '../../helpers/gate-proxy.js';
import { ledgerRows } from '../../helpers/reliability.js';
import { firstBodyLandedLate, minuteByMinute, publishedOnBoth, saidIn, withArmedPair, withBothGated, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 705: B made a page, announcing its first body with its ids; the body itself went out minutes later (a
 * slow queue), and B's record of it had not come when A took the page in. A took the announcement's minute for the
 * latest the write could bear, so the listing's later minute, every block as announced, was a hidden edit to A: it
 * published the page as holding one (`hd`), and every machine held each later edit of a page nobody had touched.
 */
for (const keyless of [false, true]) {
  test(`a first body that lands minutes after its announcement is not taken for a hidden edit${keyless ? ' (keyless team)' : ''}`, async () => {
    await withArmedPair(keyless, (request) => request.path.includes('/overwriteContent'), async (pair) => {
      const { a, b, sync } = pair;
      await firstBodyLandedLate(pair);
      const waited = await sync(a);
      assert.deepEqual(saidIn(waited), [], "A waits a run for B's record of the page: nothing to say");
      assert.equal(await a.read('guide.md').catch(() => undefined), undefined, 'not taken in yet');
      assert.match(waited.results.flatMap((r) => (r.path === 'guide.md' && r.ok ? [r.detail ?? ''] : [])).join(), /the next run takes it in/, 'and the run says why');
      assert.deepEqual(saidIn(await sync(b)), [], "B's next run finishes its write and publishes its record");
      assert.deepEqual(saidIn(await sync(a)), [], "A takes in the page by B's record: nobody edited it, nothing to say");
      assert.equal(ledgerRows(a).find((row) => row.path === 'guide.md')?.inexact, false, 'A holds the page as its writer left it: no hidden edit recorded');
      await b.write('guide.md', (await b.read('guide.md')).replace('second paragraph', 'second paragraph, edited on B'));
      for (const f of [b, a]) assert.deepEqual(saidIn(await sync(f)), [], 'no hidden edit is said on either machine');
      assert.equal(await a.read('guide.md'), await b.read('guide.md'));
      await a.write('guide.md', (await a.read('guide.md')).replace('A new page', 'A new page, edited on A'));
      const pushed = await sync(a);
      assert.deepEqual(pushed.results.map((r) => (r.ok ? r.result : r.code)), ['pushed'], "A's edit is published, not held");
      for (const f of [b, a, b]) assert.deepEqual(saidIn(await sync(f)), [], 'settled: nothing to say');
      assert.equal(await b.read('guide.md'), await a.read('guide.md'));
    });
  });
}

/**
 * The same wait when the service's clock goes past the page's minute between A's read of the shared state and its
 * read of the page (colleagues' saves move it on; soak 738 met it on another path): B's record may have come since
 * A read the state, so A waits for it as before, its two minutes counted to that read, not to the page's.
 */
for (const keyless of [false, true]) {
  test(`a late first body read two minutes after the state is still waited for${keyless ? ' (keyless team)' : ''}`, async () => {
    const lateRead = atFirstReadOf();
    const gate = onceAt((request) => request.path.includes('/overwriteContent'));
    await withBothGated(keyless, [lateRead.hooks, gate.hooks], async (em, a, b) => {
      const clock = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'other.md': '# Other\n\nA page both have.\n' });
      await firstBodyLandedLate({ em, a, b, gate, ...clock });
      lateRead.arm(a.remoteDoc('Guide').dentryUuid, () => {
        clock.tick();
        clock.tick();
      });
      const waited = await clock.sync(a);
      assert.ok(lateRead.fired, 'A read the page two minutes after the state');
      assert.deepEqual(saidIn(waited), [], "A waits a run for B's record of the page: nothing to say");
      assert.equal(await a.read('guide.md').catch(() => undefined), undefined, 'not taken in yet');
      await clock.sync(b);
      assert.deepEqual(saidIn(await clock.sync(a)), [], "A takes in the page by B's record: nobody edited it");
      assert.equal(ledgerRows(a).find((row) => row.path === 'guide.md')?.inexact, false, 'no hidden edit recorded');
      assert.equal(await a.read('guide.md'), await b.read('guide.md'));
    });
  });
}

/**
 * The other side of that rule: a colleague's edit inside code, made after such a late first body and before its
 * writer's record came, reads as nothing and moves only the time. The machine that waited for that record finds the
 * edit by the record's minute, and keeps it (HIDDEN_EDIT), not overwritten.
 */
test("a colleague's code edit after a late first body, before its writer's record, is still found once the record comes", async () => {
  let step: 'idle' | 'writing' | 'written' | 'done' = 'idle';
  let meanwhile: () => Promise<unknown> = async () => undefined;
  const gate = {
    before: async (request: Passing) => {
      if (step === 'writing' && request.path.includes('/overwriteContent')) {
        step = 'written';
        for (let i = 0; i < 3; i++) tick();
      } else if (step === 'written' && request.path.includes('/appendText')) {
        // B's record of its write is on its way: first the colleague's edit, and A takes the page in.
        step = 'done';
        await meanwhile();
      }
    },
  };
  let tick = () => {};
  await withGatedPair(false, gate, async (em, a, b) => {
    const clock = minuteByMinute(em);
    tick = clock.tick;
    const { sync } = clock;
    await publishedOnBoth(em, a, b, { 'other.md': '# Other\n\nA page both have.\n' });
    await b.write('guide.md', '# Guide\n\nRun this:\n\n```sh\nnpm ci\n```\n');
    meanwhile = async () => {
      tick();
      const page = a.remoteDoc('Guide');
      em.admin.editDocument(page.dentryUuid, (page.markdown ?? '').replace('npm ci', 'npm ci --ignore-scripts'));
      assert.deepEqual(saidIn(await sync(a)), [], "A waits for B's record of the page, on its way");
    };
    step = 'writing';
    tick();
    await sync(b);
    assert.equal(step, 'done');
    await sync(a);
    assert.equal(ledgerRows(a).find((row) => row.path === 'guide.md')?.inexactHidden, true, "B's record bounds the page's time: the colleague's later edit is found");
    await a.write('guide.md', (await a.read('guide.md')).replace('Run this:', 'Run this first:'));
    const held = await sync(a);
    assert.deepEqual(saidIn(held), ['HIDDEN_EDIT'], "A's edit is held: it would overwrite the colleague's");
    assert.match(a.remoteDoc('Guide').markdown ?? '', /npm ci --ignore-scripts/, "the colleague's code edit stays");
  });
});
