import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { createSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import {
  convergenceProblems,
  duplicateProblems,
  isConflictCopy,
  localFiles,
  locallyPresent,
  readTree,
  remotelyPresent,
  steadyProblems,
} from '../../helpers/reliability.js';
import { startDaemon, waitUntil, firstSweepDone } from '../daemon/daemon-process.js';
import { gateProxy, type Passing } from '../../helpers/gate-proxy.js';
import type { SyncReport } from '../../../src/sync/views/report.js';

/**
 * Two workstations (two folders, two ledgers) syncing ONE workspace, edited concurrently and synced in
 * various interleavings, some truly at once. Where their edits clash a conflict copy keeps the other
 * version; nothing is lost, no document is duplicated, and both folders end equal to the service.
 */

type Pair = { readonly em: RunningEmulator; readonly a: SyncFixture; readonly b: SyncFixture };

async function withTwoWorkstations(fn: (pair: Pair) => Promise<void>, config?: Record<string, unknown>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const a = await createSyncFixture({ shared: em, ...(config ? { config } : {}) });
  const b = await createSyncFixture({ shared: em, ...(config ? { config } : {}) });
  try {
    await fn({ em, a, b });
  } finally {
    await a.close();
    await b.close();
    await em.close();
  }
}

async function syncOk(f: SyncFixture, what: string): Promise<void> {
  const run = await f.sync();
  assert.equal(run.code, 0, `${what}: exit ${String(run.code)} ${run.stderr} ${JSON.stringify(run.report?.results.filter((r) => !r.ok || r.result === 'held'))}`);
}

/** Both folders agree with the service, no duplicate, and one more sync on each changes nothing. */
async function assertConverged({ a, b }: Pair): Promise<void> {
  assert.deepEqual(await convergenceProblems(a), [], 'workstation A');
  assert.deepEqual(await convergenceProblems(b), [], 'workstation B');
  const bodies = async (f: SyncFixture): Promise<string[]> => [...(await localFiles(f.root))].filter(([path]) => !isConflictCopy(path)).map(([, text]) => text.trim()).sort();
  assert.deepEqual(await bodies(a), await bodies(b), 'both folders hold the same documents');
  assert.deepEqual(await steadyProblems(a), [], 'A steady');
  assert.deepEqual(await steadyProblems(b), [], 'B steady');
}

async function assertKept(pair: Pair, markers: { remote?: readonly string[]; somewhere?: readonly string[] }): Promise<void> {
  for (const marker of markers.remote ?? []) assert.ok(remotelyPresent(pair.a, marker), `lost remotely: ${marker}`);
  for (const marker of markers.somewhere ?? []) {
    assert.ok((await locallyPresent(pair.a, marker)) || (await locallyPresent(pair.b, marker)), `lost in both folders: ${marker}`);
  }
}

const replaceIn = async (f: SyncFixture, path: string, from: string, to: string): Promise<void> => {
  const text = await f.read(path);
  assert.ok(text.includes(from), `${path} holds "${from}"`);
  await f.write(path, text.replace(from, to));
};

/** Runs `fn` with a daemon on each workstation (both past their first cycle); both must stop cleanly on SIGTERM. */
async function withTwoDaemons({ a, b }: Pair, fn: () => Promise<void>): Promise<void> {
  const da = startDaemon(a);
  const db = startDaemon(b);
  try {
    await da.waitForLog(firstSweepDone, 'A first cycle');
    await db.waitForLog(firstSweepDone, 'B first cycle');
    await fn();
    da.kill('SIGTERM');
    db.kill('SIGTERM');
    assert.equal(await da.exited(), 0, da.stderr());
    assert.equal(await db.exited(), 0, db.stderr());
  } finally {
    await da.dispose();
    await db.dispose();
  }
}

/** A on the service, B cloned from it: both hold `shared.md`. */
async function sharedStart(pair: Pair): Promise<void> {
  await pair.a.write('shared.md', '# shared\n\nFirst of shared.\n\nMiddle of shared.\n\nLast of shared.\n');
  await pair.a.write('mine.md', '# mine\n\nA made this.\n');
  await syncOk(pair.a, 'A first sync');
  await syncOk(pair.b, 'B clone');
  assert.equal(await pair.b.read('shared.md'), '# shared\n\nFirst of shared.\n\nMiddle of shared.\n\nLast of shared.\n');
}

/** A step of one workstation's run in a title race, as the proxy in front of it sees it. */
type Step = 'aCreated' | 'aWrote' | 'aDone' | 'bRead' | 'bDone';

/**
 * One interleaving of a title created on both workstations at once, put in order by a proxy in front of each
 * (what "synced at the same moment" meets only now and then): A creates `idea` from idea.md, B from `bPath`
 * (idea.md too, or another file of the same title). Each gate holds one call (or B's start) until a step of
 * the other machine is done. `outcome`: B's result for its file in the race, where it matters.
 */
type TitleRace = {
  readonly name: string;
  readonly bPath: string;
  /** B's run starts once this step is done (else with A's). */
  readonly bStarts?: Step;
  /** B's create of the title is sent once this step is done. */
  readonly bCreates?: Step;
  /** A's first body is sent once this step is done. */
  readonly aWrites?: Step;
  /** B's write of the document is sent once this step is done. */
  readonly bWrites?: Step;
  /** A's shared-state record (its writes after its first body) goes once this step is done. */
  readonly aPublishes?: Step;
  /** Both creates are held until both are on their way, then sent together. */
  readonly createsTogether?: true;
  /** B's result for its file in the race, where it matters; B then wrote nothing over A's first body. */
  readonly outcome?: readonly unknown[];
};

const TITLE_RACES: readonly TitleRace[] = [
  { name: 'B syncing once A is done', bPath: 'idea.md', bStarts: 'aDone' },
  // B's create meets A's document, empty: B leaves it to its next run (it may be about to get A's first body).
  { name: "B's create meeting A's document before its first body", bPath: 'idea.md', bCreates: 'aCreated', aWrites: 'bRead', bWrites: 'aWrote', outcome: [false, 'REMOTE_CHANGED_DURING_WRITE'] },
  // B lists after A's create and adopts A's document by its title: empty and a minute old, it is held.
  { name: "B listing A's document before its first body", bPath: 'idea.md', bStarts: 'aCreated', aWrites: 'bRead', bWrites: 'aWrote', outcome: [true, 'held', 'JUST_CREATED'] },
  { name: "B listing A's document after its first body, before A's record", bPath: 'idea.md', bStarts: 'aWrote', aPublishes: 'bDone' },
  { name: "B's create meeting A's document after its first body, before A's record", bPath: 'idea.md', bCreates: 'aWrote', aPublishes: 'bDone' },
  { name: "B's create meeting A's document once A is done", bPath: 'idea.md', bCreates: 'aDone' },
  { name: 'both creates sent together', bPath: 'idea.md', createsTogether: true },
  { name: 'another file of the title, B syncing once A is done', bPath: 'thoughts.md', bStarts: 'aDone' },
  { name: "another file of the title, B's create meeting A's document before its first body", bPath: 'thoughts.md', bCreates: 'aCreated', aWrites: 'bRead', bWrites: 'aWrote' },
  { name: "another file of the title, B listing A's document after its first body, before A's record", bPath: 'thoughts.md', bStarts: 'aWrote', aPublishes: 'bDone' },
];

/**
 * Runs one title race, then both workstations sync until settled (a person resolving each conflict copy
 * keeping their file). Whatever the order: one document per file and no two documents of one body, each text
 * in a file or a conflict copy (one whenever the texts met in one document), no LEDGER_DUPLICATE, and nothing
 * held for an edit in the web editor that nobody made (FLATTEN, HIDDEN_EDIT).
 */
async function titleRace(race: TitleRace): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const aDone = latch();
  const bDone = latch();
  const steps: Record<Step, ReturnType<typeof latch>> = { aCreated: latch(aDone.passed), aWrote: latch(aDone.passed), aDone, bRead: latch(bDone.passed), bDone };
  const until = (step: Step | undefined): Promise<void> | undefined => (step ? steps[step].passed : undefined);
  let idea = '';
  const ideaCall = (request: Passing, what: string): boolean => idea !== '' && request.path.startsWith(`/v1.0/doc/suites/documents/${idea}/${what}`);
  const isCreate = (request: Passing): boolean => request.method === 'POST' && /\/docs(\?|$)/.test(request.path) && request.body.includes('"name":"idea"');
  const isWrite = (request: Passing): boolean => request.method === 'POST' && ideaCall(request, 'overwriteContent');
  const isRead = (request: Passing): boolean => request.method === 'GET' && ideaCall(request, 'blocks');
  const isOtherWrite = (request: Passing): boolean => request.method === 'POST' && request.path.startsWith('/v1.0/doc/suites/documents/') && !ideaCall(request, '');
  const together = latch(Promise.race([aDone.passed, bDone.passed]));
  let creates = 0;
  const createSent = (): Promise<void> | undefined => {
    if (!race.createsTogether) return undefined;
    if (++creates === 2) together.open();
    return together.passed;
  };
  let aWrote = false;
  const proxyA = await gateProxy(em.seed.baseUrl, {
    before: (request) => (isCreate(request) ? createSent() : isWrite(request) ? until(race.aWrites) : aWrote && isOtherWrite(request) ? until(race.aPublishes) : undefined),
    after(request, status, answer) {
      if (isCreate(request) && status === 200) {
        idea = (JSON.parse(answer) as { docKey: string }).docKey;
        steps.aCreated.open();
      }
      if (isWrite(request)) {
        aWrote = true;
        steps.aWrote.open();
      }
    },
  });
  const proxyB = await gateProxy(em.seed.baseUrl, {
    before: (request) => (isCreate(request) ? (createSent() ?? until(race.bCreates)) : isWrite(request) ? until(race.bWrites) : undefined),
    after(request, status, answer) {
      if (isCreate(request) && status === 200 && idea === '') idea = (JSON.parse(answer) as { docKey: string }).docKey;
      if (isRead(request)) steps.bRead.open();
    },
  });
  const through = (baseUrl: string) => ({ service: { baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } });
  const a = await createSyncFixture({ shared: em, config: through(proxyA.baseUrl) });
  const b = await createSyncFixture({ shared: em, config: through(proxyB.baseUrl) });
  const pair = { em, a, b };
  const reports: SyncReport[] = [];
  try {
    await sharedStart(pair);
    await a.write('idea.md', '# idea\n\nacreatemarker.\n');
    await b.write(race.bPath, '# idea\n\nbcreatemarker.\n');
    const runA = a.sync().finally(() => aDone.open());
    await until(race.bStarts);
    const runB = b.sync().finally(() => bDone.open());
    const [ra, rb] = await Promise.all([runA, runB]);
    for (const run of [ra, rb]) if (run.report) reports.push(run.report);
    if (race.outcome) {
      assert.deepEqual(ideaDocs(pair).map((doc) => doc.markdown), ['# idea\n\nacreatemarker.\n'], "B wrote nothing over A's first body");
      const saidOf = (r: NonNullable<typeof rb.report>['results'][number]) => (r.ok ? [r.ok, r.result, ...(r.result === 'held' ? [r.reason] : [])] : [r.ok, r.code]);
      assert.deepEqual(rb.report?.results.filter((r) => r.path === race.bPath).map(saidOf), [race.outcome]);
    }
    await syncBoth(pair, reports);
    // Before a person settles anything: each text is in a file or a conflict copy.
    for (const marker of ['acreatemarker', 'bcreatemarker']) assert.ok((await keptIn(a, marker)) || (await keptIn(b, marker)), `not in any file or conflict copy: ${marker}`);
    await resolveAll(pair, reports);
    const results = reports.flatMap((report) => report.results);
    assert.deepEqual(results.filter((r) => !r.ok && r.code === 'LEDGER_DUPLICATE'), [], 'no ledger duplicate');
    assert.deepEqual(results.filter((r) => r.ok && r.result === 'held' && ['FLATTEN', 'HIDDEN_EDIT'].includes(r.reason ?? '')), [], 'nothing held for an edit nobody made');
    const docs = ideaDocs(pair);
    assert.equal(new Set(docs.map((doc) => doc.markdown)).size, docs.length, `no two documents of one body: ${JSON.stringify(docs.map((doc) => doc.markdown))}`);
    if (docs.length === 1) assert.ok(results.some((r) => r.ok && r.conflictPath !== undefined), 'the texts met in one document: a conflict copy kept the other');
    for (const f of [a, b]) {
      const files = [...(await localFiles(f.root))].filter(([path, text]) => !isConflictCopy(path) && text.startsWith('# idea'));
      assert.equal(files.length, docs.length, `one file per document of the title: ${files.map(([path]) => path).join(', ')}`);
    }
    await assertConverged(pair);
  } finally {
    await a.close();
    await b.close();
    await proxyA.close();
    await proxyB.close();
    await em.close();
  }
}

describe('two workstations on one workspace', { concurrency: 2 }, () => {
  test('different files, then different paragraphs of one file: every edit reaches both, in either order', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      await a.write('from-a.md', '# From A\n\nanewfilemarker.\n');
      await b.write('from-b.md', '# From B\n\nbnewfilemarker.\n');
      await replaceIn(a, 'mine.md', 'A made this.', 'A made this, aeditmarker.');
      await replaceIn(b, 'shared.md', 'Last of shared.', 'Last of shared, blastmarker.');
      // Both at once.
      const [ra, rb] = await Promise.all([a.sync(), b.sync()]);
      assert.equal(ra.code, 0, ra.stderr);
      assert.equal(rb.code, 0, rb.stderr);
      await syncOk(b, 'B again');
      await syncOk(a, 'A again');
      // Now the same file, different paragraphs, in sequence: B first, then A merges.
      await replaceIn(a, 'shared.md', 'First of shared.', 'First of shared, afirstmarker.');
      await replaceIn(b, 'shared.md', 'Middle of shared.', 'Middle of shared, bmiddlemarker.');
      await syncOk(b, 'B pushes');
      await syncOk(a, 'A merges');
      await syncOk(b, 'B pulls the merge');
      const markers = ['anewfilemarker', 'bnewfilemarker', 'aeditmarker', 'blastmarker', 'afirstmarker', 'bmiddlemarker'];
      await assertKept(pair, { remote: markers });
      for (const marker of markers) {
        assert.ok(await locallyPresent(a, marker), `A lacks ${marker}`);
        assert.ok(await locallyPresent(b, marker), `B lacks ${marker}`);
      }
      assert.deepEqual([...(await conflictCopies(a)), ...(await conflictCopies(b))], [], 'different paragraphs never clash');
      await assertConverged(pair);
    });
  });

  test('the same paragraph on both: the second to sync keeps its words and a conflict copy of the other, the knowledge base keeps the first until B resolves', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      await replaceIn(a, 'shared.md', 'Middle of shared.', 'Middle of shared, aclashmarker.');
      await replaceIn(b, 'shared.md', 'Middle of shared.', 'Middle of shared, bclashmarker.');
      await syncOk(a, 'A first');
      const second = await b.sync();
      assert.equal(second.code, 1, `an open conflict is held work: ${second.stderr}`);
      assert.equal(second.report?.conflicts.length, 1);
      assert.match(await b.read(second.report?.conflicts[0] ?? ''), /aclashmarker/);
      assert.match(await b.read('shared.md'), /bclashmarker/);
      // Nothing changes for A: its published edit stays in the knowledge base and in its file.
      await syncOk(a, 'A again');
      assert.match(await a.read('shared.md'), /aclashmarker/);
      assert.ok(remotelyPresent(a, 'aclashmarker') && !remotelyPresent(a, 'bclashmarker'));
      const frozen = await b.sync();
      assert.equal(frozen.code, 1);
      assert.ok(!remotelyPresent(a, 'bclashmarker'), "B's frozen push waits for a person");
      // B's person settles it: both sentences.
      await replaceIn(b, 'shared.md', 'Middle of shared, bclashmarker.', 'Middle of shared, aclashmarker and bclashmarker.');
      const resolved = await b.cli(['resolve', '--mine', 'shared.md']);
      assert.equal(resolved.code, 0, resolved.stderr);
      await syncOk(b, 'B publishes the resolution');
      await syncOk(a, 'A pulls it');
      assert.match(await a.read('shared.md'), /aclashmarker and bclashmarker/);
      await assertConverged(pair);
    });
  });

  test('one title created on both, A syncing first: one document, B keeps its file beside a conflict copy of A\'s, then resolves it', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      await a.write('idea.md', '# idea\n\nacreatemarker.\n');
      await b.write('idea.md', '# idea\n\nbcreatemarker.\n');
      await syncOk(a, 'A creates');
      const linked = await b.sync();
      assert.equal(linked.code, 1, linked.stderr);
      assert.equal(linked.report?.conflicts.length, 1, 'no shared history: a conflict');
      assert.match(await b.read(linked.report?.conflicts[0] ?? ''), /acreatemarker/);
      assert.match(await b.read('idea.md'), /bcreatemarker/);
      await syncOk(a, 'A again');
      assert.equal((await b.sync()).code, 1, 'the conflict stands until B resolves it');
      assert.deepEqual(ideaDocs(pair).map((doc) => doc.markdown), ['# idea\n\nacreatemarker.\n']);
      // B's user resolves it: both texts in the file, the copy deleted.
      await b.write('idea.md', '# idea\n\nacreatemarker.\n\nbcreatemarker.\n');
      await b.remove(linked.report?.conflicts[0] ?? '');
      await syncOk(b, 'B pushes the resolution');
      await syncOk(a, 'A pulls it');
      await assertKept(pair, { remote: ['acreatemarker', 'bcreatemarker'] });
      await assertConverged(pair);
    });
  });

  test('one title created on both, synced at the same moment: one document, no duplicate, neither text lost', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      await a.write('idea.md', '# idea\n\nacreatemarker.\n');
      await b.write('idea.md', '# idea\n\nbcreatemarker.\n');
      const runs = await Promise.all([a.sync(), b.sync()]);
      // A write that met the other's write mid-flight fails its run (exit 1); the next run merges.
      for (const run of runs) assert.ok(run.code === 0 || run.code === 1, run.stderr);
      await syncBoth(pair);
      assert.equal(ideaDocs(pair).length, 1, 'one document for the title');
      assert.deepEqual(duplicateProblems(a), []);
      assert.deepEqual(duplicateProblems(b), []);
      // Each text is in a file or a conflict copy (a person sees it), never only in a backup.
      for (const marker of ['acreatemarker', 'bcreatemarker']) {
        assert.ok((await keptIn(a, marker)) || (await keptIn(b, marker)), `not in any file or conflict copy: ${marker}`);
      }
      await resolveAll(pair);
      await assertConverged(pair);
    });
  });

  for (const race of TITLE_RACES) {
    test(`one title created on both, ${race.name}: one document per file, neither text lost, nothing held for an edit nobody made`, () => titleRace(race));
  }

  for (const order of ['deleter first', 'editor first'] as const) {
    test(`a delete on one and an edit on the other (${order}): the edit wins, on both`, async () => {
      await withTwoWorkstations(async (pair) => {
        const { a, b } = pair;
        await sharedStart(pair);
        await a.remove('mine.md'); // A created it, so A may delete its document
        await replaceIn(b, 'mine.md', 'A made this.', 'A made this, beditbeatsdeletemarker.');
        const [first, second] = order === 'deleter first' ? [a, b] : [b, a];
        await syncOk(first, 'first');
        await syncOk(second, 'second');
        await syncOk(first, 'first again');
        await assertKept(pair, { remote: ['beditbeatsdeletemarker'] });
        assert.ok(await locallyPresent(a, 'beditbeatsdeletemarker'), 'A gets the edited document back');
        await assertConverged(pair);
      });
    });
  }

  test('B deletes a document A created (the shared state gives B its creation id) while A edits it: the edit comes back', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      await b.remove('shared.md');
      const deleted = await b.sync();
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.ok(deleted.report?.results.some((r) => r.ok && r.action === 'delete-remote' && r.path === 'shared.md'), JSON.stringify(deleted.report?.results));
      await replaceIn(a, 'shared.md', 'Last of shared.', 'Last of shared, aeditaftermarker.');
      await syncOk(a, 'A: its edit beats the delete, the document is created again');
      await syncOk(b, 'B pulls it back');
      assert.match(await b.read('shared.md'), /aeditaftermarker/);
      await assertConverged(pair);
    });
  });

  test('both sides busy, syncing at once for several rounds: converge with nothing lost and nothing duplicated', async () => {
    await withTwoWorkstations(async (pair) => {
      const { a, b } = pair;
      await sharedStart(pair);
      const created: string[] = [];
      const edited: string[] = [];
      for (let round = 1; round <= 3; round++) {
        for (const [name, f] of [['a', a], ['b', b]] as const) {
          const marker = `${name}round${round}createmarker`;
          await f.write(`${name}-${round}.md`, `# ${name.toUpperCase()} ${round}\n\n${marker}.\n`);
          created.push(marker);
          const edit = `${name}round${round}editmarker`;
          const text = await f.read('shared.md');
          // Each side extends its own paragraph of the shared file: different blocks, so merges, not clashes.
          await f.write('shared.md', text.replace(name === 'a' ? /First of shared[^\n]*/ : /Last of shared[^\n]*/, (m) => `${m.replace(/\.$/, '')} ${edit}.`));
          edited.push(edit);
        }
        const runs = await Promise.all([a.sync(), b.sync()]);
        for (const run of runs) assert.ok(run.code === 0 || run.code === 1, run.stderr);
      }
      await syncBoth(pair);
      // New documents never collide: each is on the service and in both folders.
      await assertKept(pair, { remote: created });
      for (const marker of created) assert.ok(await locallyPresent(a, marker), `A lacks ${marker}`);
      // Edits of ONE document saved at the same moment: each survives in a file or a conflict copy, even
      // when one overwrite lands between the other side's re-read and its overwrite (the service has no
      // conditional write): the other side sees its published words reverted and keeps them as a conflict.
      // Never only in a backup, where nobody would look.
      for (const marker of edited) assert.ok((await keptIn(a, marker)) || (await keptIn(b, marker)), `not in any file or conflict copy: ${marker}`);
      await resolveAll(pair);
      await assertConverged(pair);
    });
  });

  test('two daemons and a colleague on the same paragraph: the first published stays until A resolves; then both folders and the knowledge base hold the resolution', async () => {
    await withTwoWorkstations(
      async (pair) => {
        const { a, b } = pair;
        await sharedStart(pair);
        await withTwoDaemons(pair, async () => {
          // The colleague saves first (a later minute, so every listing sees it); A edits the same paragraph.
          pair.em.admin.setClockOffset(2 * 60_000);
          const doc = a.remoteDoc('shared');
          pair.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Middle of shared.', 'Middle of shared, colleaguemarker.'));
          await replaceIn(a, 'shared.md', 'Middle of shared.', 'Middle of shared, daemonamarker.');
          await waitUntil(async () => (await conflictCopies(a)).length === 1, "A's conflict copy", 60_000);
          await waitUntil(async () => (await b.read('shared.md')).includes('colleaguemarker'), 'B to pull the published version', 60_000);
          assert.ok(remotelyPresent(a, 'colleaguemarker') && !remotelyPresent(a, 'daemonamarker'), "A's push waits for A");
          assert.match(await a.read('shared.md'), /daemonamarker/);
          assert.match(await a.read((await conflictCopies(a))[0] ?? ''), /colleaguemarker/);

          // A settles it with both sentences while its daemon runs.
          await replaceIn(a, 'shared.md', 'Middle of shared, daemonamarker.', 'Middle of shared, colleaguemarker and daemonamarker.');
          const resolved = await a.cli(['resolve', '--mine', 'shared.md']);
          assert.equal(resolved.code, 0, resolved.stderr);
          const settled = /colleaguemarker and daemonamarker/;
          await waitUntil(() => settled.test(a.remoteDoc('shared').markdown ?? ''), 'A to publish the resolution', 60_000);
          await waitUntil(async () => settled.test(await b.read('shared.md')), 'B to pull it', 60_000);
        });
        assert.deepEqual(await conflictCopies(a), []);
        assert.deepEqual(await conflictCopies(b), []);
        await assertConverged(pair);
      },
      { watch: { fullSweepMinutes: 0.02 } },
    );
  });

  test('two daemons (kbsync watch) on one workspace: edits on both reach both', async () => {
    await withTwoWorkstations(
      async (pair) => {
        const { a, b } = pair;
        await sharedStart(pair);
        await withTwoDaemons(pair, async () => {
          await a.write('da.md', '# Daemon A\n\ndaemonamarker.\n');
          await b.write('db.md', '# Daemon B\n\ndaemonbmarker.\n');
          await replaceIn(a, 'shared.md', 'First of shared.', 'First of shared, daemonaeditmarker.');
          await replaceIn(b, 'mine.md', 'A made this.', 'A made this, daemonbeditmarker.');
          const all = ['daemonamarker', 'daemonbmarker', 'daemonaeditmarker', 'daemonbeditmarker'];
          const holdsAll = async (f: SyncFixture): Promise<boolean> => {
            for (const marker of all) if (!(await locallyPresent(f, marker))) return false;
            return true;
          };
          await waitUntil(async () => (await holdsAll(a)) && (await holdsAll(b)), 'both folders to hold every edit', 60_000);
        });
        // Settle what the daemons left for their next cycle, then the usual checks.
        await syncOk(a, 'A after the daemons');
        await syncOk(b, 'B after the daemons');
        await assertKept(pair, { remote: ['daemonamarker', 'daemonbmarker', 'daemonaeditmarker', 'daemonbeditmarker'] });
        await assertConverged(pair);
      },
      { watch: { fullSweepMinutes: 0.02 } },
    );
  });
});

async function conflictCopies(f: SyncFixture): Promise<string[]> {
  return [...(await localFiles(f.root)).keys()].filter(isConflictCopy);
}

const ideaDocs = ({ a }: Pair) => a.remoteDocs().filter((doc) => doc.title.startsWith('idea'));

/** A Markdown file of the folder, a conflict copy, a backup or the trash holds `marker`. */
/** A Markdown file of the folder or a conflict copy holds `marker` (kbsync's backups and trash do not count). */
async function keptIn(f: SyncFixture, marker: string): Promise<boolean> {
  const files = await readTree(f.root, { skip: (rel) => !rel.endsWith('.md') || rel.startsWith('.kbsync/') });
  for (const text of files.values()) if (text.includes(marker)) return true;
  return false;
}

/**
 * Both sides sync twice in turn; an open conflict (exit 1, held) stays open for a person, and so does a
 * merge held FLATTEN (the other side's text came in as the service's plain reading before its writer
 * published its Markdown): the person's `resolve --mine` settles both.
 */
async function syncBoth({ a, b }: Pair, reports?: SyncReport[]): Promise<void> {
  for (let i = 0; i < 2; i++) {
    for (const f of [a, b]) {
      const run = await f.sync();
      if (run.report) reports?.push(run.report);
      const failed = run.report?.results.filter((r) => !r.ok || (r.result === 'held' && r.reason !== 'CONFLICT_OPEN' && r.reason !== 'FLATTEN')) ?? [];
      assert.ok(run.code === 0 || (run.code === 1 && failed.length === 0), `${run.stderr} ${JSON.stringify(failed)}`);
    }
  }
}

/** Each side's person settles every open conflict and held merge keeping their file (`resolve --mine`); both sync again. */
async function resolveAll(pair: Pair, reports?: SyncReport[]): Promise<void> {
  for (let round = 0; round < 3; round++) {
    let open = 0;
    for (const f of [pair.a, pair.b]) {
      const waiting = JSON.parse((await f.cli(['resolve', '--json'])).stdout) as { conflicts: unknown[]; held: unknown[] };
      if ((await conflictCopies(f)).length === 0 && waiting.held.length === 0) continue;
      open++;
      const resolved = await f.cli(['resolve', '--mine']);
      assert.equal(resolved.code, 0, resolved.stderr);
    }
    if (open === 0) return;
    await syncBoth(pair, reports);
  }
  assert.fail('conflicts kept reopening after three rounds of resolving');
}

/**
 * A step of a scripted interleaving: `passed` settles once the step is done, or once `ended` settles (the run
 * that would do it has ended without it: some races never do a step another waits for, and a script that no
 * longer matches fails on its assertions, not by hanging). It waited 10 s instead, and on a loaded machine a
 * step that was on its way could take longer: the gated call went first, and the race was another.
 */
function latch(ended?: Promise<void>): { readonly passed: Promise<void>; open(): void } {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { passed: ended ? Promise.race([done, ended]) : done, open: () => open() };
}
