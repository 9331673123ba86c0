import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countsOf } from '../../helpers/counts-table.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

const WRITE_ENDPOINTS = ['createDocument', 'deleteDocument', 'overwriteContent', 'appendText', 'addMembers', 'updateMember', 'removeMember'] as const;

const writesTo = (f: SyncFixture): number => WRITE_ENDPOINTS.reduce((sum, name) => sum + f.em.admin.calls().byEndpoint[name].calls, 0);
const sha = async (file: string): Promise<string> => createHash('sha256').update(await readFile(file)).digest('hex');

test('diff shows a pending push and a pending pull as unified diffs, and changes nothing anywhere', async () => {
  await withSyncFixture(async (f) => {
    await f.write('local.md', '# Local\n\nFirst.\n');
    await f.write('remote.md', '# Remote\n\nFirst.\n');
    await f.write('fresh.md', '---\ntitle: Fresh\nsecret: never sent\n---\nA new file.\n');
    assert.equal((await f.sync(['--push'])).code, 0);
    await f.remove('fresh.md');
    await f.write('local.md', '# Local\n\nFirst.\n\nAdded here.\n');
    f.em.admin.editDocument(f.remoteDoc('Remote').dentryUuid, '# Remote\n\nFirst.\n\nAdded there.\n');
    await f.write('new.md', '---\nowner: me\n---\n# New\n\nBrand new.\n');

    const ledgerFile = join(f.root, '.kbsync', 'ledger.sqlite');
    const before = { ledger: await sha(ledgerFile), local: await f.read('local.md'), remote: await f.read('remote.md'), writes: writesTo(f), docs: f.remoteDocs().length };
    const result = await f.cli(['diff']);
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.match(out, /A two-way sync would do \d+ action\(s\):/);
    assert.match(out, /push\s+local\.md/);
    assert.match(out, /check\s+remote\.md|pull\s+remote\.md/);
    assert.match(out, /create\s+new\.md/);
    assert.match(out, /--- a\/local\.md \(knowledge base now\)\n\+\+\+ b\/local\.md \(what a push sends\)\n@@ [^\n]+ @@\n(?:[ +][^\n]*\n)*\+Added here\./);
    assert.match(out, /--- a\/remote\.md \(local file now\)\n\+\+\+ b\/remote\.md \(after the sync\)\n@@ [^\n]+ @@\n(?:[ +][^\n]*\n)*\+Added there\./);
    assert.match(out, /\+Brand new\./);
    assert.doesNotMatch(out, /owner: me/, 'front matter is never part of what a push sends');
    assert.match(out, /delete-remote\s+fresh\.md/);

    // One file only, by path.
    const one = await f.cli(['diff', join(f.root, 'local.md')]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /\+Added here\./);
    assert.doesNotMatch(one.stdout, /remote\.md/);

    // Pure observation: no write call, the same files, the same ledger bytes, the same documents.
    assert.equal(writesTo(f), before.writes);
    assert.equal(await f.read('local.md'), before.local);
    assert.equal(await f.read('remote.md'), before.remote);
    assert.equal(await sha(ledgerFile), before.ledger);
    assert.equal(f.remoteDocs().length, before.docs);
    assert.equal(await f.exists('new.md'), true);
  });
});

test('diff --push --format markdown: what merging would publish, as a pull-request comment, with a read-only token and no change', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nFirst paragraph.\n\nSecond paragraph.\n');
    await f.write('c.md', '# C\n\nKeep me.\n');
    await f.write('d.md', '# D\n');
    assert.equal((await f.sync(['--push'])).code, 0);
    await f.write('a.md', '# A\n\nFirst paragraph, edited.\n\nSecond paragraph, see [b](b) and [gone](/gone).\n');
    await f.write('b.md', '# B\n\nNew.\n');
    await f.write('c.md', '');
    await f.remove('d.md');
    const before = writesTo(f);

    const result = await f.cli(['diff', '--push', '--format', 'markdown'], { KBSYNC_TOKEN: f.em.seed.readOnlyToken });
    assert.equal(result.code, 0, result.stderr);
    const md = result.stdout;
    assert.match(md, /^## kbsync: what merging would publish/);
    assert.deepEqual(countsOf(md), { Created: 1, Updated: 1, Moved: 0, Renamed: 0, Deleted: 1, Held: 1, Failed: 0, Refused: 0, 'Broken links': 1 });
    assert.match(md, /- `b\.md`: a new document "B" would be created/);
    assert.match(md, /- `a\.md`: 2 blocks changed/);
    assert.match(md, /<details><summary>Diff of a\.md<\/summary>\n\n```diff\n[\s\S]*\+Second paragraph, see \[b\]\(b\) and \[gone\]\(\/gone\)\.[\s\S]*```\n\n<\/details>/);
    assert.match(md, /- `d\.md`: deleted here: its document will be deleted/);
    assert.match(md, /- `c\.md`: it is empty now but was not at the last sync/);
    assert.match(md, /\| `a\.md` \| 5:34 \| `\[gone\]\(\/gone\)` \| there is no file gone/, 'the link as written, where it is written');
    assert.equal(writesTo(f), before, 'nothing was written');

    const text = await f.cli(['diff', '--format', 'markdown']);
    assert.equal(text.code, 2);
    assert.match(text.stderr, /Add --push/);
  });
});
