import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { Passing } from '../../helpers/gate-proxy.js';
import { localFiles, remotelyPresent } from '../../helpers/reliability.js';
import { stateNodes, type SyncFixture } from '../../helpers/sync-fixture.js';
import { staleWriteOverPulledSave, type Clock } from '../../helpers/stale-write.js';

/**
 * Model seed 6011 (issue 44): a colleague saved between machine A's read of a page and A's write of it (the window
 * the contract leaves: no conditional write), and machine B pulled that save before A's write replaced it. The save
 * is then gone from the document, but B's file and record hold it: kbsync can tell, and nothing may lose it.
 *
 * It used to be dropped everywhere: each machine took the other's version, agreed in the same moment, for the page's
 * latest, and the save's absence (A's write's doing) for its removal. Both versions now say what they were made from
 * (DocRecord `b`): the very version before the save, read exactly. So whichever machine syncs next merges the two
 * branches against it, keeping every side's words: B, whose version A's write replaced (the puller syncs next); A,
 * stopped before its record, whose version B's record does not build on (seed 6011's path); and A, whose own record
 * is the page's latest, from the branch the shared state keeps beside it (the writer syncs next).
 */
const SAVED = 'saved in the web editor';
const EDITED = 'edited on A';
const NEW = 'A new paragraph from the web';

/** While `sourcesDown` is set, A's reads of the shared state's kept sources answer 500: the service failing them. */
type Faults = { sourcesDown: boolean };

/**
 * The race (staleWriteOverPulledSave), A's edit and the colleague's save in different paragraphs; `stopped`: A's run is
 * killed right after its write. `then` runs the machines on; after it, the save, A's edit and `also` are in the
 * document and both files.
 */
async function savePulledBeforeStaleWrite(
  stopped: boolean,
  then: (em: RunningEmulator, a: SyncFixture, b: SyncFixture, clock: Clock, faults: Faults) => Promise<void>,
  also: readonly string[] = [],
): Promise<void> {
  const faults: Faults = { sourcesDown: false };
  let sourcesKeys = (): string[] => [];
  const failed = { status: 500, body: JSON.stringify({ code: 'InternalError', message: 'The test failed this read of the kept sources.' }) };
  const sourcesRead = (path: string): boolean => faults.sourcesDown && path.includes('/blocks') && sourcesKeys().some((key) => path.includes(key));
  const race = {
    keyless: false,
    stopped,
    edit: (text: string) => text.replace('Second paragraph.', `Second paragraph, ${EDITED}.`),
    save: (markdown: string) => markdown.replace('First paragraph.', `First paragraph, ${SAVED}.`),
    fault: (request: Passing) => (sourcesRead(request.path) ? failed : undefined),
  };
  await staleWriteOverPulledSave(race, async (em, a, b, clock) => {
    sourcesKeys = () => stateNodes(em.admin.dump().nodes).filter((node) => node.title.startsWith('kbsync-sources-')).map((node) => node.dentryUuid);
    await then(em, a, b, clock, faults);
    // Merged against the version both were made from, every side's words are everywhere: no person needed.
    for (const words of [SAVED, EDITED, ...also]) {
      assert.ok(remotelyPresent(a, words), `the document holds "${words}"`);
      assert.match(await a.read('guide.md'), new RegExp(words), `A's file holds "${words}"`);
      assert.match(await b.read('guide.md'), new RegExp(words), `B's file holds "${words}"`);
    }
    for (const f of [a, b]) assert.deepEqual([...(await localFiles(f.root)).keys()].filter((path) => path.includes('.conflict-')), [], 'no conflict copy');
  });
}

test("a colleague's save one machine pulled before another's stale write: the puller syncs next", async () => {
  await savePulledBeforeStaleWrite(false, async (_em, a, b, { sync }) => {
    for (const f of [b, a, b, a]) await sync(f);
  });
});

/** Another save of the colleague's (a new paragraph), then the writer syncs first. */
const writerFirst = async (em: RunningEmulator, a: SyncFixture, b: SyncFixture, { sync }: Clock): Promise<void> => {
  anotherSave(em, a);
  for (const f of [a, b, a, b]) await sync(f);
};

function anotherSave(em: RunningEmulator, a: SyncFixture): void {
  const page = a.remoteDoc('Guide');
  em.admin.editDocument(page.dentryUuid, `${page.markdown ?? ''}\n${NEW}.\n`);
}

test("…the writer, stopped before its record, syncs next, after another save of the colleague's (seed 6011)", async () => {
  await savePulledBeforeStaleWrite(true, writerFirst, [NEW]);
});

test("…the writer syncs next, after another save of the colleague's", async () => {
  await savePulledBeforeStaleWrite(false, writerFirst, [NEW]);
});

// The branch lives only in the kept sources: a run that cannot read them must not merge without it (the ordinary
// merge takes the save's absence for its removal), but leave the file for a run that can, and say why.
test("…the writer syncs next, its read of the kept sources failing: the guide waits for the next run, the save kept", async () => {
  await savePulledBeforeStaleWrite(false, async (em, a, b, { sync }, faults) => {
    anotherSave(em, a);
    faults.sourcesDown = true;
    const failing = await sync(a);
    faults.sourcesDown = false;
    const guide = failing.results.find((r) => r.path === 'guide.md');
    assert.ok(guide && !guide.ok, 'the guide failed for this run');
    assert.match(guide.error, /server error|failed|retry/i, "the failure says the service's");
    for (const f of [a, b, a, b]) await sync(f);
  }, [NEW]);
});
