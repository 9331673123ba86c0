import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A body whose blocks read alike (code, comments, link definitions: every one `unknown`) is read back right
 * after its write, for the ids the service gave its blocks (act/apply-body.ts readAlike), and again once the
 * write's minute is over, as every write is: four calls on a new page, not three (issue 48). The ids cannot
 * come from that later read instead. A colleague's deletion of one such block, made in the write's own minute,
 * bears the write's minute and leaves blocks that read exactly as the other ones: only the ids say which block
 * went. Taken from the later read, the pairing is by what blocks say: with the read turned off, this pull keeps
 * the block the colleague deleted in the file and deletes the one they kept, saying nothing; the file's next edit
 * is then held (FLATTEN), and `kbsync resolve --mine`, which that hold offers, would publish the wrong block over
 * theirs. The same edit after the minute is hidden-and-flat.test.ts's "a colleague deletes the first of several
 * blocks that read alike".
 */
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 10);
const FIRST = '```sh\nrestart --all\n```';
const SECOND = '```sh\ncheck --dashboard\n```';
const TEXT = `# Runbook\n\nRun these.\n\n${FIRST}\n\n${SECOND}\n\nThat is all.\n`;

test("a colleague deletes the first of two code blocks in the minute of kbsync's first write: the next run deletes that one from the file", async () => {
  await withSyncFixture(async (f) => {
    f.em.admin.freezeClock(EPOCH);
    await f.write('runbook.md', TEXT);
    const push = await f.sync(['--push']);
    assert.equal(push.code, 0, push.stderr);
    const doc = f.remoteDoc('Runbook');
    assert.deepEqual(f.em.admin.callsOn(doc.dentryUuid), { overwriteContent: 1, readBlocks: 1 }, 'its body, read back at once for the ids of its two code blocks');

    const theirs = TEXT.replace(`${FIRST}\n\n`, '');
    f.em.admin.editDocument(doc.dentryUuid, theirs);
    assert.equal(f.remoteDoc('Runbook').modifiedTime, doc.modifiedTime, "the colleague's edit bears the write's own minute");
    f.em.admin.setClockOffset(2 * 60_000);

    const run = await f.sync();
    assert.equal(run.code, 0, JSON.stringify(run.report?.results));
    assert.deepEqual(
      run.report?.results.map((r) => r.ok && r.result),
      ['pulled'],
      JSON.stringify(run.report?.results),
    );
    assert.equal(await f.read('runbook.md'), theirs, 'the block the colleague deleted is gone from the file, the other kept');
    assert.equal(f.remoteDoc('Runbook').markdown, theirs, 'and the knowledge base keeps their version');
  });
});
