import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

type Verdict = { readonly ok: boolean; readonly exitCode: number; readonly failed?: number; readonly error?: { readonly code: string } };

test('--json agrees with the exit code: held and refused files count as failed, ok is false, and a stopped run still prints a verdict', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nText.\n');
    const first = await f.sync();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual([(first.report as unknown as Verdict).ok, (first.report as unknown as Verdict).exitCode, first.report?.failed], [true, 0, 0]);

    await f.write('a.md', ''); // emptied: held back
    await writeFile(join(f.root, 'latin1.md'), Buffer.from([0x23, 0x20, 0xe9, 0x0a])); // not UTF-8: refused
    const partial = await f.sync();
    assert.equal(partial.code, 1, partial.stderr);
    const verdict = partial.report as unknown as Verdict;
    assert.deepEqual([verdict.ok, verdict.exitCode, partial.report?.failed], [false, 1, 2]);
    assert.equal(partial.report?.counts['held'], 1);
    assert.equal(partial.report?.counts['refused'], 1);

    const stopped = await f.sync([], { KBSYNC_TOKEN: 'at-not-a-token' });
    assert.equal(stopped.code, 4, stopped.stderr);
    const error = JSON.parse(stopped.stdout.trim()) as Verdict;
    assert.deepEqual([error.ok, error.exitCode, error.error?.code], [false, 4, 'API_UNAUTHORIZED']);
  });
});
