import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import Database from 'better-sqlite3';
import { asSignedBefore, dataText, foldedState, unboundTokens } from '../../helpers/state-reader.js';
import { createSyncFixture, stateNodes, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * Two synced folders of one workspace, one team key: a colleague copies the records of one folder's shared
 * state into the other's (as the web editor lets them: text pasted into a state document). The records are
 * signed with the team's key, but for the other folder: they must be left out, never used (a false "deleted in
 * the knowledge base", a file moved to the trash, a "Common (2)" document).
 */

/** The state documents under a fixture's synced folder (its `.kbsync`), oldest first. */
function stateDocsOf(f: SyncFixture, folderId: string) {
  const nodes = f.em.admin.dump().nodes;
  const stateFolder = nodes.find((node) => node.docType === 'FOLDER' && node.title === '.kbsync' && node.parentId === folderId);
  assert.ok(stateFolder, 'the folder has a shared state');
  return stateNodes(nodes).filter((node) => node.parentId === stateFolder.dentryUuid).sort((a, b) => (a.title < b.title ? -1 : 1));
}

/** `kbsync state` counts the copied records as left out (not verified for this folder), and exits 1 for it. */
async function leftOut(f: SyncFixture): Promise<void> {
  const shown = await f.cli(['state', '--json']);
  assert.equal(shown.code, 1, `${shown.stdout}\n${shown.stderr}`);
  const report = JSON.parse(shown.stdout) as { readonly junk: { readonly unverifiedTokens: number } };
  assert.ok(report.junk.unverifiedTokens > 0, shown.stdout);
}

type Folders = { readonly em: RunningEmulator; readonly a: SyncFixture; readonly b: SyncFixture; readonly folderA: string; readonly folderB: string };

/** Two synced folders of one workspace, each with `common.md` (A's record the later), one team key. */
async function withTwoFolders(fn: (folders: Folders) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const folderA = em.admin.createDocument({ name: 'Team A', folder: true }).dentryUuid;
  const folderB = em.admin.createDocument({ name: 'Team B', folder: true }).dentryUuid;
  const a = await createSyncFixture({ shared: em, config: { remoteFolder: folderA } });
  const b = await createSyncFixture({ shared: em, config: { remoteFolder: folderB } });
  try {
    await b.write('common.md', "# Common\n\nB's words.\n");
    await b.write('other.md', '# Other\n\nOnly B.\n');
    assert.equal((await b.sync()).code, 0);
    // A's record of the same path is written later: copied into B's state, it would be the latest.
    await a.write('common.md', "# Common\n\nA's words.\n");
    assert.equal((await a.sync()).code, 0);
    await fn({ em, a, b, folderA, folderB });
  } finally {
    await a.close();
    await b.close();
    await em.close();
  }
}

/** The index tokens of a folder's state, as text a colleague can copy. */
const indexText = (f: SyncFixture, folderId: string): string =>
  stateDocsOf(f, folderId)
    .filter((node) => node.title.startsWith('kbsync-state-'))
    .map(dataText)
    .join(' ');

/**
 * `copied` pasted into B's newest index document, as the web editor lets anyone: B's workstation and a CI job
 * of B both leave it out: no trashed file, no false deletion, no "Common (2)".
 */
async function pastedAndLeftOut({ em, b, folderB }: Folders, copied: string): Promise<void> {
  const target = stateDocsOf(b, folderB)
    .filter((node) => node.title.startsWith('kbsync-state-'))
    .at(-1);
  assert.ok(target);
  em.admin.editDocument(target.dentryUuid, `${(target.markdown ?? '').trimEnd()}\n\n${copied}\n`);
  const run = await b.sync();
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.deepEqual(run.report?.results.filter((r) => !r.ok || r.result !== 'unchanged'), []);
  assert.equal(await b.read('common.md'), "# Common\n\nB's words.\n");
  assert.deepEqual(await readdir(join(b.root, '.kbsync', 'trash')).catch(() => []), [], 'nothing moved to the trash');
  await leftOut(b);
  // A CI job of B (no ledger) pairs its file with B's document.
  await rm(join(b.root, '.kbsync'), { recursive: true, force: true });
  await b.write('common.md', "# Common\n\nB's words, from CI.\n");
  const ci = await b.sync(['--push']);
  assert.equal(ci.code, 0, `${ci.stdout}\n${ci.stderr}`);
  const commons = em.admin.dump().nodes.filter((node) => node.docType === 'DOC' && node.parentId === folderB && /^Common/.test(node.title));
  assert.deepEqual(
    commons.map((node) => [node.title, node.markdown]),
    [['Common', "# Common\n\nB's words, from CI.\n"]],
  );
}

test("records copied from one synced folder's state into another's, in the same workspace, are left out: no false deletion, no trashed file, no duplicate", async () => {
  await withTwoFolders(async (folders) => pastedAndLeftOut(folders, indexText(folders.a, folders.folderA)));
});

test("a state signed before records were bound to their folder still verifies after the upgrade; the next run writes it anew bound, and copies of another folder's old records are then left out", async () => {
  await withTwoFolders(async (folders) => {
    const { a, b, folderA } = folders;
    // Both states as the kbsync before this one left them, and B's workstation as it was then (its ledger had not seen a bound state).
    asSignedBefore(a);
    asSignedBefore(b);
    const oldA = indexText(a, folderA);
    const db = new Database(join(b.root, '.kbsync', 'ledger.sqlite'));
    db.prepare("DELETE FROM meta WHERE key LIKE 'state.bound:%' OR key LIKE 'team:%'").run();
    db.close();
    assert.ok(unboundTokens(b) > 0);
    // The first run after the upgrade reads the old records (nothing refused, nothing left out) and writes them anew, bound.
    const upgraded = await b.sync();
    assert.equal(upgraded.code, 0, `${upgraded.stdout}\n${upgraded.stderr}`);
    assert.deepEqual(upgraded.report?.planned, []);
    assert.ok(!upgraded.report?.notices.some((n) => n.code === 'STATE_JUNK'), JSON.stringify(upgraded.report?.notices));
    assert.equal(foldedState(b).team?.b, 1, 'the state says it is bound to its folder');
    assert.deepEqual([...foldedState(b).entries.keys()].sort(), ['common.md', 'other.md'], 'every record was carried over');
    // Then A's old records, copied into B's state, are left out.
    await pastedAndLeftOut(folders, oldA);
  });
});
