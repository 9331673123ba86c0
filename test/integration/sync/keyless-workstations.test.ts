import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { withWorkstationPair } from '../../helpers/workstation-pair.js';

/** Two workstations of a team without a state key on one workspace; `fn` gets both and the service. */
const withKeylessPair = (fn: (em: RunningEmulator, a: SyncFixture, b: SyncFixture) => Promise<void>): Promise<void> => withWorkstationPair(true, fn);

/**
 * Found by the model test (seed 5): a file moved on one workstation while the other changed a link's address
 * in it. The service reads the link back as its text, so only the Markdown the other machine published (the
 * shared state's source) shows that edit; a move that merged from the service's reading alone re-made the
 * document without it. Keyless (no state key), so the old document cannot be deleted: it stays and is renamed.
 */
test("a move on B while A changed a link's address: the document keeps A's address, and B's file has it too", async () => {
  await withKeylessPair(async (em, a, b) => {
    await a.write('semver.md', '# Semver\n\nRead [the spec](https://example.com/spec) first.\n\nMore text.\n');
    assert.equal((await a.sync()).code, 0);
    assert.equal((await b.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);

    await mkdir(join(b.root, 'ref'));
    await rename(join(b.root, 'semver.md'), join(b.root, 'ref', 'semver.md'));
    await a.write('semver.md', (await a.read('semver.md')).replace('https://example.com/spec', 'https://example.com/spec-2'));
    const pushed = await a.sync();
    assert.equal(pushed.code, 0, pushed.stderr);
    em.admin.setClockOffset(4 * 60_000);

    const moved = await b.sync();
    assert.equal(moved.code, 0, `${moved.stderr} ${JSON.stringify(moved.report?.results)}`);
    const result = moved.report?.results.find((r) => r.path === 'ref/semver.md');
    assert.ok(result?.ok && result.result !== 'held', `the move is carried out, not held: ${JSON.stringify(result)}`);
    assert.match(await b.read('ref/semver.md'), /spec-2/, "A's address comes into B's file");
    assert.equal(a.remoteDocs().length, 1, 'one document');
    assert.match(a.remoteDoc('Semver').markdown ?? '', /spec-2/, "the document keeps A's address");

    // A CI job of B's folder (no ledger): the state pairs ref/semver.md with the document left in the root,
    // and the file is byte for byte the one recorded there, so it is paired, not created again (seed 34).
    await rm(join(b.root, '.kbsync'), { recursive: true, force: true });
    const ci = await b.sync(['--push']);
    assert.equal(ci.code, 0, `${ci.stderr} ${JSON.stringify(ci.report?.results)}`);
    const writes = ['createDocument', 'overwriteContent', 'deleteDocument'].filter((endpoint) => ci.report?.callsByEndpoint[endpoint]);
    assert.deepEqual(writes, [], 'nothing written to documents');
    assert.equal(a.remoteDocs().length, 1, 'still one document');
  });
});

/** `text` published from A and pulled by B; two minutes later A renames the file and syncs; two more pass. */
async function renamedOnA(em: RunningEmulator, a: SyncFixture, b: SyncFixture, from: string, to: string, text: string): Promise<void> {
  await a.write(from, text);
  assert.equal((await a.sync()).code, 0);
  assert.equal((await b.sync()).code, 0);
  em.admin.setClockOffset(2 * 60_000);
  await rename(join(a.root, from), join(a.root, to));
  assert.equal((await a.sync()).code, 0);
  em.admin.setClockOffset(4 * 60_000);
}

// Found by the model test (seed 6): without the key, B kept its old name for good, and nothing said so.
test('a file renamed on A (same folder, so the document stays) is renamed on B, where it is unchanged', async () => {
  await withKeylessPair(async (em, a, b) => {
    await renamedOnA(em, a, b, 'guides/picomatch.md', 'guides/moved-picomatch.md', '# Why picomatch?\n\nBecause.\n');

    const followed = await b.sync();
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(await b.exists('guides/picomatch.md'), false);
    assert.equal(await b.read('guides/moved-picomatch.md'), await a.read('guides/moved-picomatch.md'));
    assert.equal(a.remoteDocs().length, 1, 'one document');
  });
});

// Found by the model test (seed 23): the file moved, and the colleague's edit came a run later, unsaid.
test("a rename on A and a colleague's edit of the document: B takes both in one run, and says so", async () => {
  await withKeylessPair(async (em, a, b) => {
    await renamedOnA(em, a, b, 'lev.md', 'moved-lev.md', '# Levenshtein\n\nFast distance.\n');
    const doc = a.remoteDoc('Levenshtein');
    em.admin.editDocument(doc.dentryUuid, '# Levenshtein\n\nFast edit distance.\n');

    const followed = await b.sync();
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(await b.read('moved-lev.md'), /Fast edit distance\./, 'the edit is in the moved file');
    const result = followed.report?.results.find((r) => r.path === 'moved-lev.md');
    assert.ok(result?.ok && result.result === 'pulled', JSON.stringify(result));
    assert.match(result.detail ?? '', /another machine renamed it/);
    const again = await b.sync();
    assert.deepEqual(again.report?.results.filter((r) => !r.ok || r.result !== 'unchanged'), [], 'nothing left for the next run');
  });
});

// Model seed 1002: a document made in the web editor, whose heading (badges, read back with their alt text)
// is not its title. Pulled to a file named for its title, then edited and published: a keyless CI job of that
// folder could not pair the file with it by its heading, and made a second document.
test('a keyless CI job pairs a file pulled from a web-editor document whose heading is not its title: no second document', async () => {
  await withKeylessPair(async (em, a, b) => {
    em.admin.createDocument({ name: 'word-wrap', markdown: '# word-wrap [![NPM version](https://example.com/badge.svg)](https://example.com)\n\nWrap words.\n\nLast words.\n' });
    assert.equal((await a.sync()).code, 0);
    assert.equal(await a.exists('word-wrap.md'), true);
    em.admin.setClockOffset(2 * 60_000);
    await a.write('word-wrap.md', (await a.read('word-wrap.md')).replace('Last words.', 'Last words. And more.'));
    const pushed = await a.sync();
    assert.equal(pushed.code, 0, `${pushed.stderr} ${JSON.stringify(pushed.report?.results)}`);

    // B stands in for the CI checkout: A's files, no ledger, push only.
    await b.write('word-wrap.md', await a.read('word-wrap.md'));
    const ci = await b.sync(['--push']);
    assert.equal(ci.code, 0, `${ci.stderr} ${JSON.stringify(ci.report?.results)}`);
    assert.equal(ci.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created');
    assert.deepEqual(a.remoteDocs().map((doc) => doc.title), ['word-wrap']);
  });
});

// Model seed 10003: a keyless CI job made a second document of every document a colleague had renamed.
test('a keyless CI job pairs a file whose document a colleague renamed, by its blocks: no second document, and a later edit reaches it', async () => {
  await withKeylessPair(async (em, a, b) => {
    const text = '# Runbook\n\nBefore you start, read this.\n\nAfter that, check the dashboard.\n';
    await a.write('runbook.md', text);
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    em.admin.renameNode(a.remoteDoc('Runbook').dentryUuid, 'Runbook (ops)');

    // B stands in for the CI checkout: A's files, no ledger, push only.
    await b.write('runbook.md', text);
    const ci = await b.sync(['--push']);
    assert.equal(ci.code, 0, `${ci.stderr} ${JSON.stringify(ci.report?.results)}`);
    assert.equal(ci.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created');

    const edited = text.replace('check the dashboard', 'check the dashboard and the logs');
    await b.write('runbook.md', edited);
    const next = await b.sync(['--push']);
    assert.equal(next.code, 0, `${next.stderr} ${JSON.stringify(next.report?.results)}`);
    assert.equal(next.report?.callsByEndpoint['createDocument'] ?? 0, 0, 'nothing created');
    assert.deepEqual(a.remoteDocs().map((doc) => doc.title), ['Runbook (ops)']);
    assert.match(a.remoteDoc('Runbook (ops)').markdown ?? '', /and the logs/, 'the edit reached the renamed document');
  });
});

test('a keyless state entry naming a document of another title whose blocks it does not hold pairs nothing', async () => {
  await withKeylessPair(async (em, a, b) => {
    const text = '# Runbook\n\nBefore you start, read this.\n';
    await a.write('runbook.md', text);
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    const doc = a.remoteDoc('Runbook');
    em.admin.renameNode(doc.dentryUuid, 'Somebody else');
    em.admin.editDocument(doc.dentryUuid, '# Somebody else\n\nTheir own page.\n');

    await b.write('runbook.md', text);
    const ci = await b.sync(['--push']);
    assert.equal(ci.code, 0, `${ci.stderr} ${JSON.stringify(ci.report?.results)}`);
    assert.equal(a.remoteDoc('Somebody else').markdown, '# Somebody else\n\nTheir own page.\n', 'the other document is untouched');
  });
});

// Model seed 31005: a file moved to another folder while its document, made in the web editor (so kbsync
// cannot delete it to move it), stayed where it was under the title a colleague gave it.
test('a keyless CI job pairs a moved file whose web-editor document stayed in its folder under a new title: no second document', async () => {
  await withKeylessPair(async (em, a, b) => {
    const made = em.admin.createDocument({ name: 'devlop', markdown: '# devlop\n\nSome tools to make developing easier.\n\nMIT.\n' });
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    em.admin.renameNode(made.dentryUuid, 'devlop (tools)');
    assert.equal((await a.sync()).code, 0);
    await mkdir(join(a.root, 'guides'));
    await rename(join(a.root, 'devlop.md'), join(a.root, 'guides', 'devlop.md'));
    const moved = await a.sync();
    assert.equal(moved.code, 0, `${moved.stderr} ${JSON.stringify(moved.report?.results)}`);

    // B stands in for the CI checkout: A's files, no ledger, push only.
    await b.write('guides/devlop.md', await a.read('guides/devlop.md'));
    const ci = await b.sync(['--push']);
    assert.equal(ci.code, 0, `${ci.stderr} ${JSON.stringify(ci.report?.results)}`);
    assert.equal(ci.report?.callsByEndpoint['createDocument'] ?? 0, 0, `nothing created ${JSON.stringify(moved.report?.results)} ${JSON.stringify(ci.report?.results)}`);
    assert.deepEqual(a.remoteDocs().map((doc) => doc.title), ['devlop (tools)']);
  });
});

/**
 * Model seed 130062: a keyless machine recorded another's move (the document stayed in its old folder); the
 * machine that made the document, which may move it, held the move (MOVE_LOSSY: a colleague's formatting);
 * then the colleague moved the document to where the file is. The record still named the old folder, so the
 * move was planned on every run, and forced, refused (API_CONFLICT) for good.
 */
test('a move held for a colleague\'s formatting, whose document the colleague then moves to the file\'s folder: the record follows, nothing is made', async () => {
  await withKeylessPair(async (em, a, b) => {
    await b.write('deep/chalk.md', '# Chalk\n\nTerminal string styling.\n\nDone right.\n');
    assert.equal((await b.sync()).code, 0);
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(2 * 60_000);
    const doc = a.remoteDoc('Chalk');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Done right.', 'Done **right**.'));
    for (const machine of [a, b]) assert.equal((await machine.sync()).code, 0);
    em.admin.setClockOffset(4 * 60_000);

    await rename(join(a.root, 'deep', 'chalk.md'), join(a.root, 'chalk.md'));
    assert.equal((await a.sync()).code, 0);
    em.admin.setClockOffset(6 * 60_000);
    for (let round = 0; round < 2; round += 1) await b.sync();
    assert.equal(await b.exists('chalk.md'), true, 'B follows the rename');

    em.admin.moveNode(doc.dentryUuid, em.seed.rootNodeId);
    em.admin.setClockOffset(8 * 60_000);
    const followed = await b.sync(['--force']);
    assert.equal(followed.code, 0, `${followed.stderr} ${JSON.stringify(followed.report?.results)}`);
    assert.equal(followed.report?.callsByEndpoint['createDocument'] ?? 0, 0, `nothing made: ${JSON.stringify(followed.report?.results)}`);
    const again = await b.sync();
    assert.deepEqual(again.report?.planned, [], 'nothing left to do');
    assert.deepEqual(a.remoteDocs().filter((n) => n.docType === 'DOC').map((n) => n.title), ['Chalk']);
    assert.match(a.remoteDoc('Chalk').markdown ?? '', /\*\*right\*\*/, 'the colleague\'s formatting stays');
  });
});
