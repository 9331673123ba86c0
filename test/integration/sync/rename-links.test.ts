import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkUses } from '../../../src/links/index.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { PAIR_EPOCH, publishedOnBoth, reported, withWorkstationPair } from '../../helpers/workstation-pair.js';
import { owedResend } from '../../helpers/owed-resend.js';

/**
 * Issue 44, soak seed 502: a renamed page (its document stays: the record follows the file) was sent again
 * "so its links point at documents created since", though no link anywhere changed: its link to a heading of
 * its own that is not there (`#nope`) counted as a link to itself, whose new path had no URL when the rename
 * was decided. A wasted overwrite, and a new modifiedTime the other machine, which had followed the rename,
 * had to explain. A body is sent again only when the text sent would differ now: a link in it named a file
 * whose document URL was not known when it was sent, and is known now.
 */

/** Links that name no file the rename or move makes: a neighbour, headings of the page (one not there), itself by its old name, another site, nothing. */
const LINKED: Record<string, string> = {
  'guide/a.md': '# A\n\n## Setup\n\nSee [b](b.md), [setup](#setup), [gone](#nope), [the top](a.md#a), [web](https://example.com/) and [missing](missing.md).\n',
  'guide/b.md': '# B\n\nBack to [a](a.md#setup).\n',
  'c.md': '# C\n\nRead [a](guide/a.md) and [b](guide/b.md).\n',
};

/** The same pages with each link replaced by its words: what the run would do were there no links. */
const unlinked = (pages: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(pages).map(([path, text]) => [path, text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')]));

type Calls = Readonly<Record<string, number>>;

/** `pages` published, then `from` renamed or moved to `to` and synced: that run's results and calls by endpoint, and the next run's calls. */
async function renamed(f: SyncFixture, pages: Record<string, string>, from: string, to: string): Promise<{ readonly results: string[]; readonly calls: Calls; readonly next: Calls }> {
  // One frozen minute for both twins: a minute that ends between two runs of one twin and not of the other changes
  // which times its next run re-checks (a fresh clone's npm test once counted 3 read-backs against 4).
  f.em.admin.freezeClock(PAIR_EPOCH);
  for (const [path, text] of Object.entries(pages)) await f.write(path, text);
  assert.equal((await f.sync()).code, 0);
  await rename(join(f.root, from), join(f.root, to));
  const run = await f.sync();
  assert.ok(run.report, run.stderr);
  assert.equal(run.code, 0, run.stderr);
  const next = await f.sync();
  assert.ok(next.report, next.stderr);
  return { results: run.report.results.map((r) => `${r.path} ${r.action} ${r.ok ? r.result : r.code}`).sort(), calls: run.report.callsByEndpoint, next: next.report.callsByEndpoint };
}

/**
 * The same rename made twice, on the pages as they are and on the pages without their links: the runs must do
 * and call the same (the links cost no call), and so must the run after (its read-backs: nothing owed).
 */
async function twinRuns(pages: Record<string, string>, from: string, to: string, check: (f: SyncFixture) => Promise<void>): Promise<Calls> {
  const plain = await withSyncFixture((f) => renamed(f, unlinked(pages), from, to));
  return withSyncFixture(async (f) => {
    const linked = await renamed(f, pages, from, to);
    assert.deepEqual(linked.results, plain.results);
    assert.deepEqual(linked.calls, plain.calls, 'exactly the calls of the same rename without links');
    assert.deepEqual(linked.next, plain.next, 'the next run: the same read-backs, nothing sent again');
    assert.equal(linked.next['overwriteContent'] ?? 0, 0);
    await check(f);
    return linked.calls;
  });
}

/** The links of a document in the knowledge base: `Title#anchor` for a link to a document of the workspace, else as written. */
function remoteLinks(f: SyncFixture, title: string): string[] {
  const docs = f.remoteDocs();
  return linkUses(f.remoteDoc(title).markdown ?? '', () => ({ kind: 'external' })).map(({ url }) => {
    if (!url.startsWith(f.em.seed.baseUrl)) return url;
    const target = docs.find((doc) => new URL(url).pathname.endsWith(`/${doc.dentryUuid}`));
    const hash = new URL(url).hash;
    return `${target?.title ?? `a document not there (${url})`}${hash}`;
  });
}

test('a renamed page whose links name no new document is not sent again: the calls of the same rename without links, no overwrite', async () => {
  const calls = await twinRuns(LINKED, 'guide/a.md', 'guide/r1-a.md', async (f) => {
    assert.deepEqual(f.em.admin.callsOn(f.remoteDoc('A').dentryUuid).overwriteContent, 1, 'A got its body once, when it was made');
    assert.deepEqual(remoteLinks(f, 'A'), ['B', '#setup', '#nope', 'A#a', 'https://example.com/', 'missing.md']);
  });
  assert.equal(calls['overwriteContent'] ?? 0, 0, 'the rename sends no body');
});

test('a page moved to another folder: its new document gets its body once, its links to itself and to its new neighbours with their URLs', async () => {
  const pages: Record<string, string> = {
    'x/a.md': '# A\n\n## Setup\n\nSee [me](a.md#setup), [b](b.md), [gone](#nope) and [up](../c.md).\n',
    'x/b.md': '# XB\n',
    'y/b.md': '# YB\n',
    'c.md': '# C\n',
  };
  const calls = await twinRuns(pages, 'x/a.md', 'y/a.md', async (f) => {
    assert.deepEqual(f.em.admin.callsOn(f.remoteDoc('A').dentryUuid).overwriteContent, 1, 'the new document got its body once');
    assert.deepEqual(remoteLinks(f, 'A'), ['A#setup', 'YB', '#nope', 'C']);
  });
  assert.deepEqual([calls['createDocument'], calls['overwriteContent'], calls['deleteDocument']], [1, 1, 1], 'a new document, its body, the old one deleted');
});

for (const [kind, from, to] of [
  ['renamed', 'a.md', 'r1-a.md'],
  ['moved', 'x/a.md', 'y/a.md'],
] as const) {
  test(`a page that links to the path a page is ${kind} to is sent again once, with that page's URL, and never again`, async () => {
    await withSyncFixture(async (f) => {
      await f.write(from, '# A\n\nText.\n');
      await f.write('y/keep.md', '# Keep\n');
      await f.write('c.md', `# C\n\nOn to [a](${to}).\n`);
      const first = await f.sync();
      assert.deepEqual(first.report?.links.map((l) => [l.path, l.target, l.reason]), [['c.md', to, 'missing']]);
      const c = f.remoteDoc('C').dentryUuid;
      const sentBefore = f.em.admin.callsOn(c).overwriteContent ?? 0;
      await rename(join(f.root, from), join(f.root, to));
      const run = await f.sync();
      assert.equal(run.code, 0, run.stderr);
      assert.equal((f.em.admin.callsOn(c).overwriteContent ?? 0) - sentBefore, 1, 'c.md sent again once');
      assert.deepEqual(remoteLinks(f, 'C'), ['A']);
      const next = await f.sync();
      assert.equal(next.report?.callsByEndpoint['overwriteContent'] ?? 0, 0, 'owed once, sent once');
    });
  });
}

test('a page renamed along with the links that name it (a refactoring commit): each edited page goes out once, with the URL', async () => {
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n\nText, and [the top](a.md).\n');
    await f.write('c.md', '# C\n\nOn to [a](a.md).\n');
    assert.equal((await f.sync()).code, 0);
    const sent = (title: string): number => f.em.admin.callsOn(f.remoteDoc(title).dentryUuid).overwriteContent ?? 0;
    const before = [sent('A'), sent('C')];
    await rename(join(f.root, 'a.md'), join(f.root, 'r1-a.md'));
    await f.write('r1-a.md', '# A\n\nText, and [the top](r1-a.md).\n');
    await f.write('c.md', '# C\n\nOn to [a](r1-a.md).\n');
    const run = await f.sync();
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.report?.results.map((r) => `${r.path} ${r.action} ${r.ok && r.result}`).sort(), ['c.md push pushed', 'r1-a.md rename pushed']);
    assert.deepEqual([sent('A') - (before[0] ?? 0), sent('C') - (before[1] ?? 0)], [1, 1], 'each sent once: the renamed page keeps its URL, known before its record follows it');
    assert.deepEqual([remoteLinks(f, 'A'), remoteLinks(f, 'C')], [['A'], ['A']]);
    assert.equal((await f.sync()).report?.callsByEndpoint['overwriteContent'] ?? 0, 0);
  });
});

test('a body owed its links when its file is renamed is owed at the new path: sent there once, with the URL', async () => {
  await withSyncFixture(async (f) => {
    await owedResend(f);
    const sent = f.em.admin.callsOn(f.remoteDoc('A').dentryUuid).overwriteContent ?? 0;
    await rename(join(f.root, 'a.md'), join(f.root, 'r1-a.md'));
    const run = await f.sync(['--push']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((f.em.admin.callsOn(f.remoteDoc('A').dentryUuid).overwriteContent ?? 0) - sent, 1);
    assert.deepEqual(remoteLinks(f, 'A'), ['b']);
    assert.equal((await f.sync(['--push'])).report?.callsByEndpoint['overwriteContent'] ?? 0, 0, 'owed once, sent once');
  });
});

test('a page renamed on one machine is followed by the other, and nothing is sent again: neither machine has anything to do after', async () => {
  await withWorkstationPair(false, async (em, a, b) => {
    await publishedOnBoth(em, a, b, Object.fromEntries(Object.entries(LINKED).map(([path, text]) => [`notes/${path}`, text])));
    em.admin.setClockOffset(4 * 60_000);
    const doc = a.remoteDoc('A');
    await rename(join(a.root, 'notes/guide/a.md'), join(a.root, 'notes/guide/r1-a.md'));
    const moved = await reported(a);
    assert.deepEqual(moved.results.map((r) => [r.path, r.action, r.ok && r.result]), [['notes/guide/r1-a.md', 'rename', 'unchanged']]);
    assert.equal(moved.callsByEndpoint['overwriteContent'] ?? 0, 0, 'no body sent');
    assert.equal(a.remoteDoc('A').modifiedTime, doc.modifiedTime, 'the document was not written: no new time for the other machine to explain');
    const followed = await reported(b);
    assert.deepEqual(followed.results.map((r) => [r.path, r.action, r.ok && r.result]), [['notes/guide/r1-a.md', 'move-local', 'pulled']]);
    assert.equal(await b.read('notes/guide/r1-a.md'), LINKED['guide/a.md']);
    em.admin.setClockOffset(6 * 60_000);
    for (const machine of [a, b]) {
      const after = await reported(machine);
      assert.deepEqual(after.results, [], 'nothing to do, nothing to say');
      assert.equal(after.callsByEndpoint['overwriteContent'] ?? 0, 0);
    }
  });
});
