import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { withReadGate, type ReadGateWorld } from '../../helpers/held-read.js';

/**
 * Model seeds 6018 and 6030 (races): a colleague's code line saved between a run's listing and its read of a document
 * the run then overwrites or deletes. The read cannot show an edit inside code, and the listing's time is from before
 * the save, so the write replaced the line (a push of the file's edit) or deleted it (a file deleted here). A write
 * that destroys what the document holds now asks the document's time again after the read (move-just-edited.test.ts
 * has the move's case).
 */
const TEXT = '# Runbook\n\nBefore you start, read this.\n\n```sh\nrestart --all\n```\n\nAfter that, check the dashboard.\n';
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);

/** TEXT published and read again in a later minute; then `change` to the file, and a run whose read of the document waits for the colleague's code line. */
async function savedBetweenListingAndRead(world: ReadGateWorld, change: () => Promise<void>) {
  const { em, f, tick, holdNextRead } = world;
  await f.write('runbook.md', TEXT);
  // Another file, so a delete leaves the folder not empty (EMPTY_LOCAL would refuse the run).
  await f.write('other.md', '# Other\n\nElsewhere.\n');
  assert.equal((await f.sync()).code, 0);
  tick();
  tick();
  assert.equal((await f.sync()).code, 0);
  tick();
  const doc = f.remoteDoc('Runbook');
  await change();
  const read = holdNextRead(doc.dentryUuid);
  const running = f.sync();
  await Promise.race([read.reached, running.then((run) => assert.fail(`the run never read the document: ${run.stderr}`))]);
  em.admin.editDocument(doc.dentryUuid, (f.remoteDoc('Runbook').markdown ?? '').replace('restart --all', 'restart --all --graceful'));
  read.release();
  return running;
}

test("a code line saved between a run's listing and its read of a document the file's edit would overwrite: not overwritten, said", async () => {
  await withReadGate(EPOCH, async (world) => {
    const { f, tick } = world;
    const run = await savedBetweenListingAndRead(world, () => f.write('runbook.md', TEXT.replace('Before you start', 'Before anything')));
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code line stands");
    // A kbsync writer's record of that time may still come: the edit waits, and says so (convergence soak 762).
    assert.match(JSON.stringify(run.report?.results), /JUST_EDITED/, run.stderr);
    tick();
    tick();
    const judged = await f.sync();
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the colleague's code line stands");
    assert.match(JSON.stringify(judged.report?.results), /HIDDEN_EDIT/, judged.stderr);
  });
});

test("a code line saved between a run's listing and its read of a document whose file was deleted here: not deleted, the file comes back", async () => {
  await withReadGate(EPOCH, async (world) => {
    const { f } = world;
    const run = await savedBetweenListingAndRead(world, () => unlink(join(f.root, 'runbook.md')));
    assert.equal(run.code, 0, run.stderr);
    assert.match(f.remoteDoc('Runbook').markdown ?? '', /--graceful/, "the document and the colleague's code line stand");
    assert.equal(await f.read('runbook.md'), TEXT, 'the file is restored (reads cannot show the line)');
  });
});
