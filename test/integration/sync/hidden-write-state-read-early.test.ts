import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { onceAt, type GateHooks } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withBothGated, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 738 (keyless, issue 44): B changed a code line of a page (reads show code as `unknown`, so the
 * page read the same) and wrote it. A's sweep listed the page with B's new time and read the shared state before B's
 * record of that write came; the service's clock then went past the two minutes in which a writer's record may still
 * come (colleagues' saves moved it on) before A read the page's blocks. Judged on the clock as it was then, not as it
 * was when A read the state, the record's window was over: A said HIDDEN_EDIT ("merge your change in the web editor")
 * of B's own write, which its next sweep took in from B's record. A record that may have come since this run read the
 * state is waited for; a colleague's edit inside code, which no record explains, is said on the run after.
 */
const PAGE = '# Remark parse\n\nParses Markdown into a syntax tree.\n\n```js\nconst tree = parse(doc);\n```\n\nThen walk the tree.\n';
const CODED = PAGE.replace('parse(doc)', 'parse(doc, { gfm: true })');
const OTHER = '# Other\n\nA page both have.\n';

type Window = {
  readonly em: RunningEmulator;
  readonly a: SyncFixture;
  readonly b: SyncFixture;
  readonly sync: (f: SyncFixture) => Promise<SyncReport>;
  readonly tick: () => void;
  /** Arms A's gate: A's next read of the page's blocks waits until the service's clock is two minutes on (or `step` ends). */
  readonly lateRead: (step?: () => Promise<unknown>) => void;
  /** Whether A's read waited so. */
  readonly readLate: () => boolean;
};

/**
 * PAGE and OTHER on both machines, each reaching the service through a gate; B then publishes an edit of OTHER (so
 * the state's index moved, and A's next run reads the state with its listing), in a minute now over.
 */
async function withWindow(keyless: boolean, bGate: GateHooks, fn: (w: Window) => Promise<void>): Promise<void> {
  let pageKey = '';
  let armed: (() => Promise<unknown>) | undefined;
  let fired = false;
  const aGate: GateHooks = {
    before: async (request) => {
      const step = armed;
      if (!step || !request.path.includes(`/documents/${pageKey}/blocks`)) return;
      armed = undefined;
      fired = true;
      await step();
    },
  };
  const twoMinutesOn = async (): Promise<void> => {
    tick();
    tick();
  };
  let tick: () => void = () => undefined;
  await withBothGated(keyless, [aGate, bGate], async (em, a, b) => {
    const clock = minuteByMinute(em);
    tick = clock.tick;
    await publishedOnBoth(em, a, b, { 'page.md': PAGE, 'other.md': OTHER });
    pageKey = a.remoteDoc('Remark parse').dentryUuid;
    await b.write('other.md', OTHER.replace('both have', 'both machines have'));
    await clock.sync(b);
    await fn({ em, a, b, ...clock, lateRead: (step = twoMinutesOn) => (armed = step), readLate: () => fired });
  });
}

const heldOn = async (f: SyncFixture): Promise<string> => (await f.cli(['resolve'])).stdout;

/** What each machine says over two rounds each. */
async function rounds(w: Window): Promise<string[]> {
  const said: string[] = [];
  for (const [name, f] of [['A', w.a], ['B', w.b], ['A', w.a], ['B', w.b]] as const) said.push(...saidIn(await w.sync(f)).map((code) => `${name} ${code}`));
  return said;
}

/**
 * Convergence soak 752's order: B writes CODED (A its own `aEdit` of the page, if any); B's record of that write waits
 * until A, its state read two minutes on, reaches the page, and A's read of the page waits for B's whole run. `fn`
 * gets the window and what A's run said.
 */
async function recordAfterLateStateRead(keyless: boolean, aEdit: string | undefined, fn: (w: Window, between: SyncReport) => Promise<void>): Promise<void> {
  const record = onceAt((request) => request.path.includes('appendText'));
  await withWindow(keyless, record.hooks, async (w) => {
    let between: Promise<SyncReport> | undefined;
    let reached = (): void => undefined;
    const atPage = new Promise<void>((resolve) => (reached = resolve));
    await w.b.write('page.md', CODED);
    if (aEdit !== undefined) await w.a.write('page.md', aEdit);
    record.arm(async () => {
      w.tick();
      w.tick();
      w.lateRead(async () => {
        reached();
        await bRun;
      });
      between = reported(w.a);
      await atPage;
    });
    const bRun = w.sync(w.b);
    await bRun;
    assert.ok(record.fired && w.readLate() && between, "A read the state past the window, and the page after B's record came");
    await fn(w, await between);
  });
}

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';

  test(`another machine's code write, the state read before its record and the page read past the record's window: no HIDDEN_EDIT, and its version taken (${team})`, async () => {
    // B's record of its write waits for A's whole run.
    const record = onceAt((request) => request.path.includes('appendText'));
    await withWindow(keyless, record.hooks, async (w) => {
      let between: SyncReport | undefined;
      await w.b.write('page.md', CODED);
      record.arm(async () => {
        w.lateRead();
        between = await reported(w.a);
      });
      await w.sync(w.b);
      assert.ok(record.fired && w.readLate() && between, "A read the state before B's record came, and the page past its window");
      assert.match(w.a.remoteDoc('Remark parse').markdown ?? '', /gfm: true/, "B's write landed before A's run");
      assert.deepEqual(saidIn(between), [], "A says nothing of a time B's record may explain, which came after A read the state");
      assert.equal(await w.a.read('page.md'), PAGE);
      assert.equal(await w.a.read('other.md'), await w.b.read('other.md'), "A's run took B's other edit in as ever");

      assert.deepEqual(await rounds(w), [], "nothing is said once B's record is there");
      assert.equal(await w.a.read('page.md'), CODED, "A takes B's code line from its record");
      assert.doesNotMatch(await heldOn(w.a), /HIDDEN_EDIT/, 'A holds no hidden edit');
      await w.a.write('page.md', CODED.replace('Then walk', 'Then visit'));
      const pushed = await w.sync(w.a);
      assert.deepEqual(
        pushed.results.filter((r) => r.path === 'page.md').map((r) => (r.ok ? r.result : r.code)),
        ['pushed'],
        `A's next edit is published: ${JSON.stringify(pushed.results)}`,
      );
    });
  });

  /**
   * Convergence soak 752: the other order. The clock passed the two minutes of B's write before A read the state (B's
   * read-back waited on a throttled service while colleagues' saves moved it on), and B's record, published as its run
   * ended, came after that read and before A read the page. A sees the state changed since its read, and waits.
   */
  test(`another machine's code write whose record comes after a state read past its window, before the page's read: no HIDDEN_EDIT (${team})`, async () => {
    await recordAfterLateStateRead(keyless, undefined, async (w, between) => {
      assert.deepEqual(saidIn(between), [], "A says nothing of a time B's record, appended since A read the state, may explain");
      assert.equal(await w.a.read('page.md'), PAGE);

      assert.deepEqual(await rounds(w), [], "nothing is said once A read B's record");
      assert.equal(await w.a.read('page.md'), CODED, "A takes B's code line from its record");
      assert.doesNotMatch(await heldOn(w.a), /HIDDEN_EDIT/, 'A holds no hidden edit');
    });
  });

  /**
   * Convergence soak 762 in soak 752's order: A, with words added to the page's last paragraph to send, waits the same
   * (JUST_EDITED): decided at once, its append went out over B's write and it said HIDDEN_EDIT of it.
   */
  test(`…with an edit of A's own to send: it waits for that record too, then goes out merged with B's write; no HIDDEN_EDIT (${team})`, async () => {
    const MINE = PAGE.replace('walk the tree.', 'walk the tree. Node by node.');
    await recordAfterLateStateRead(keyless, MINE, async (w, between) => {
      assert.deepEqual(saidIn(between), ['JUST_EDITED'], "A's edit waits for the record appended since A read the state, and says so");
      assert.equal(w.a.remoteDoc('Remark parse').markdown, CODED, "nothing of A's went over B's write");
      assert.equal(await w.a.read('page.md'), MINE, "A's file keeps its edit");

      assert.deepEqual(await rounds(w), [], "nothing is said once A read B's record");
      const both = CODED.replace('walk the tree.', 'walk the tree. Node by node.');
      assert.equal(await w.a.read('page.md'), both, "A takes B's code line and sends its words");
      assert.equal(await w.b.read('page.md'), both);
      assert.equal(w.a.remoteDoc('Remark parse').markdown, both);
      for (const f of [w.a, w.b]) assert.doesNotMatch(await heldOn(f), /HIDDEN_EDIT/, 'no machine holds a hidden edit');
    });
  });

  test(`a colleague's code edit past its window, another writer's record appended after A read the state: said HIDDEN_EDIT a run later, the code kept (${team})`, async () => {
    await withWindow(keyless, {}, async (w) => {
      w.tick();
      const doc = w.a.remoteDoc('Remark parse');
      w.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('parse(doc)', 'parse(doc, { gfm: false })'));
      w.tick();
      w.tick();
      await w.b.write('other.md', OTHER.replace('A page', 'One page'));
      // B publishes its other edit after A read the state, before A reads the page.
      w.lateRead(() => w.sync(w.b));
      const between = await reported(w.a);
      assert.ok(w.readLate());
      assert.deepEqual(saidIn(between), [], 'the state changed since A read it: not judged yet');

      const found = await w.sync(w.a);
      assert.deepEqual(saidIn(found), ['HIDDEN_EDIT'], "no record explains the colleague's edit: said once");
      await w.a.write('page.md', PAGE.replace('Then walk', 'Then visit'));
      const held = await w.sync(w.a);
      assert.deepEqual(saidIn(held), ['HIDDEN_EDIT'], "A's edit is held");
      assert.match(w.a.remoteDoc('Remark parse').markdown ?? '', /gfm: false/, "the colleague's code stands");
      assert.match(w.a.remoteDoc('Remark parse').markdown ?? '', /Then walk/, "A's edit was not published over it");
    });
  });

  test(`a colleague's code edit read so (the state read early, the page past the window): said HIDDEN_EDIT on the next run, the next edit held, the code kept (${team})`, async () => {
    await withWindow(keyless, {}, async (w) => {
      w.tick();
      const doc = w.a.remoteDoc('Remark parse');
      w.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('parse(doc)', 'parse(doc, { gfm: false })'));
      w.lateRead();
      const between = await reported(w.a);
      assert.ok(w.readLate());
      assert.deepEqual(saidIn(between), [], 'a record of the edit could have come since A read the state: not judged yet');

      const found = await w.sync(w.a);
      assert.deepEqual(saidIn(found), ['HIDDEN_EDIT'], 'no record came in its window: an edit where reads cannot see, said once');
      assert.match(await heldOn(w.a), /HIDDEN_EDIT/);
      await w.a.write('page.md', PAGE.replace('Then walk', 'Then visit'));
      const held = await w.sync(w.a);
      assert.deepEqual(saidIn(held), ['HIDDEN_EDIT'], "A's edit is held");
      assert.ok(held.results.some((r) => r.path === 'page.md' && r.ok && r.result === 'held'), JSON.stringify(held.results));
      assert.match(w.a.remoteDoc('Remark parse').markdown ?? '', /gfm: false/, "the colleague's code stands");
      assert.match(w.a.remoteDoc('Remark parse').markdown ?? '', /Then walk/, "A's edit was not published over it");
    });
  });
}
