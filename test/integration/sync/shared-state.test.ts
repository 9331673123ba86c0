import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { toPushMarkdown } from '../../../src/markdown/index.js';
import type { DumpedNode } from '../../../src/emulator/index.js';
import { splitText } from '../../../src/sync/content/document-text.js';
import { runCli } from '../../helpers/cli.js';
import { stateNodes, userNodes, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** Every Markdown file under the root (kbsync's state folder aside), relative paths. */
async function filesOf(root: string, dir = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(join(root, dir))).sort()) {
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (name === '.kbsync') continue;
    if ((await stat(join(root, rel))).isDirectory()) out.push(...(await filesOf(root, rel)));
    else if (name.endsWith('.md')) out.push(rel);
  }
  return out;
}

/**
 * Exactly one document per publishable file, in the file's folder, holding that file's body; nothing
 * else but the colleague's documents.
 */
async function assertMirrored(f: SyncFixture, colleague: readonly string[]): Promise<void> {
  const nodes = userNodes(f.em.admin.dump().nodes.filter((n) => n.workspaceId === f.em.seed.workspaceId));
  const docs = nodes.filter((n) => n.docType === 'DOC' && !colleague.includes(n.dentryUuid));
  const folderTitle = (doc: DumpedNode): string => {
    const parent = nodes.find((n) => n.dentryUuid === doc.parentId);
    return parent?.docType === 'FOLDER' ? parent.title : '';
  };
  const files = await filesOf(f.root);
  assert.equal(docs.length, files.length, `documents ${JSON.stringify(docs.map((d) => `${folderTitle(d)}/${d.title}`))} for files ${JSON.stringify(files)}`);
  for (const file of files) {
    const body = toPushMarkdown(splitText(await readFile(join(f.root, file), 'utf8')).body);
    const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
    const matches = docs.filter((d) => d.markdown === body && folderTitle(d) === dir);
    assert.equal(matches.length, 1, `${file}: ${matches.length} documents hold its body in its folder`);
  }
  for (const id of colleague) assert.ok(nodes.some((n) => n.dentryUuid === id), "the colleague's document is untouched");
}

/** A CI run: a fresh checkout has no ledger, so kbsync starts from the shared state alone. */
async function ciRun(f: SyncFixture, args: readonly string[] = []) {
  await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  const run = await f.sync(['--push', ...args]);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  return run;
}

const WRITES = ['createDocument', 'overwriteContent', 'deleteDocument', 'appendText'];
const writes = (run: Awaited<ReturnType<typeof ciRun>>): number => WRITES.reduce((sum, endpoint) => sum + (run.report?.callsByEndpoint[endpoint] ?? 0), 0);

describe('the shared state: stateless runs do what a run with a ledger does', () => {
  test('docs as code, every run a fresh checkout: publish, rerun, retitle, delete, move, same-titled notes', async () => {
    await withSyncFixture(async (f) => {
      const colleague = f.em.admin.createDocument({ name: 'Colleague notes', markdown: '# Colleague notes\n\nTheirs.\n' }).dentryUuid;
      for (const name of ['intro', 'setup', 'usage', 'faq', 'api', 'glossary']) {
        await f.write(`guide/${name}.md`, `---\ntitle: ${name} guide\n---\n# ${name}\n\nAbout ${name}.\n`);
      }
      await f.write('index.md', '# Docs\n\nStart here.\n');
      await f.write('changelog.md', '# Changelog\n\nv1.\n');
      await ciRun(f);
      await assertMirrored(f, [colleague]);

      const rerun = await ciRun(f);
      assert.equal(writes(rerun), 0, `an unchanged rerun writes nothing: ${JSON.stringify(rerun.report?.callsByEndpoint)}`);
      assert.deepEqual(rerun.report?.planned, []);
      await assertMirrored(f, [colleague]);

      for (const name of ['intro', 'setup', 'usage']) await f.write(`guide/${name}.md`, `---\ntitle: The ${name} chapter\n---\n# ${name}\n\nAbout ${name}.\n`);
      const before = JSON.stringify(f.remoteDocs());
      await ciRun(f);
      assert.equal(JSON.stringify(f.remoteDocs()), before, 'a new title alone changes no document (the service cannot rename)');
      await assertMirrored(f, [colleague]);
      assert.ok(f.remoteDocs().some((d) => d.title === 'intro guide'), 'the document keeps its title');

      await rm(join(f.root, 'guide/faq.md'));
      await rm(join(f.root, 'changelog.md'));
      await ciRun(f);
      await assertMirrored(f, [colleague]);

      await mkdir(join(f.root, 'reference'));
      await rename(join(f.root, 'guide/api.md'), join(f.root, 'reference/api.md'));
      await rename(join(f.root, 'guide/glossary.md'), join(f.root, 'reference/glossary.md'));
      await ciRun(f);
      await assertMirrored(f, [colleague]);

      for (const day of ['2026-11-23', '2026-11-24', '2026-11-25']) await f.write(`daily/${day}.md`, `# Standup\n\nNotes of ${day}.\n`);
      await ciRun(f);
      await assertMirrored(f, [colleague]);
      await rm(join(f.root, 'daily/2026-11-24.md'));
      const afterMiddle = await ciRun(f);
      await assertMirrored(f, [colleague]);
      assert.deepEqual(
        afterMiddle.report?.planned.map((p) => [p.path, p.kind]),
        [['daily/2026-11-24.md', 'delete-remote']],
        'only the deleted note is touched: no body moves between same-titled pages',
      );
      assert.ok(stateNodes(f.em.admin.dump().nodes).length >= 2, 'the state lives in the knowledge base');
    });
  });
});

describe('the shared state: a file a fresh checkout cannot use', () => {
  test('invalid front matter in a CI checkout: the file is refused and said, its document left as it is, not deleted', async () => {
    await withSyncFixture(async (f) => {
      for (const name of ['a', 'b', 'c']) await f.write(`${name}.md`, `# ${name}\n\nText of ${name}.\n`);
      await ciRun(f);
      await f.write('a.md', '---\ntitle: [unclosed\n---\n# a\n\nText of a, edited.\n');
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      const refused = await f.sync(['--push']);
      assert.equal(refused.code, 1, 'a refused file is a file not synced');
      assert.deepEqual(refused.report?.problems.map((p) => [p.path, p.code]), [['a.md', 'FRONT_MATTER_YAML']]);
      assert.deepEqual(refused.report?.planned, [], 'nothing planned for it: neither pushed nor deleted');
      assert.equal(f.remoteDoc('a').markdown, '# a\n\nText of a.\n');
    });
  });
});

describe('the shared state across several documents', () => {
  test('sources filling several state documents: each new one is written whole and only the newest read back; a fresh checkout sends nothing; the next source is appended to the newest', async () => {
    await withSyncFixture(async (f) => {
      // Text that does not compress (the sources are deflated): each note's own digits, as words.
      const paragraph = (n: number, i: number): string => `Paragraph ${i} of note ${n}: ${createHash('sha256').update(`${n}/${i}`).digest('base64').repeat(4).match(/.{1,9}/g)?.join(' ')}`;
      for (let n = 0; n < 100; n += 1) await f.write(`notes/n${n}.md`, `# Note ${n}\n\n${Array.from({ length: 8 }, (_, i) => paragraph(n, i)).join('\n\n')}\n`);
      await ciRun(f);
      await assertMirrored(f, []);
      const sourcesDocs = (): DumpedNode[] => stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-sources-')).sort((a, b) => a.title.localeCompare(b.title));
      const made = sourcesDocs();
      assert.ok(made.length >= 3, `the sources fill ${made.length} documents`);
      for (const doc of made.slice(0, -1)) assert.deepEqual(f.em.admin.callsOn(doc.dentryUuid), { overwriteContent: 1 }, `${doc.title}: one overwrite, nothing else`);
      assert.deepEqual(f.em.admin.callsOn(made.at(-1)?.dentryUuid ?? ''), { overwriteContent: 1, readBlocks: 1 }, 'the newest is read back for the next append');

      const rerun = await ciRun(f);
      assert.equal(writes(rerun), 0, `an unchanged fresh checkout writes nothing: ${JSON.stringify(rerun.report?.callsByEndpoint)}`);

      await f.write('notes/n7.md', '# Note 7\n\nRewritten, short.\n');
      f.em.admin.resetCalls();
      await ciRun(f);
      await assertMirrored(f, []);
      assert.equal(sourcesDocs().length, made.length, 'no new sources document for one small source');
      assert.equal(f.em.admin.callsOn(made.at(-1)?.dentryUuid ?? '').appendText, 1, 'appended to the newest');
    });
  });
});

describe('the shared state: a workstation that lost its ledger, a second workstation, several writers', () => {
  const TITLED = {
    'plans/q3.md': '---\ntitle: Q3/Q4 plan\n---\n# Plan\n\nGoals.\n\n```sh\nmake plan\n```\n',
    'plans/q3-review.md': '---\ntitle: "Review: Q3/Q4 plan"\n---\nReview *notes* and [a link](q3.md).\n',
    'daily/mon.md': '# Standup\n\nMonday.\n',
    'daily/tue.md': '# Standup\n\nTuesday.\n',
    'daily/wed.md': '# Standup\n\nWednesday.\n',
  } as const;

  test('a ledger moved aside or deleted between runs, titles not derivable from file names: no new document, no (2) file', async () => {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(TITLED)) await f.write(path, text);
      assert.equal((await f.sync()).code, 0);
      const documents = JSON.stringify(f.remoteDocs().map((d) => d.dentryUuid).sort());
      for (const how of ['deleted', 'moved aside'] as const) {
        if (how === 'deleted') await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
        else await rename(join(f.root, '.kbsync'), join(f.dir, `ledger-aside-${Date.now()}`));
        const run = await f.sync();
        assert.equal(run.code, 0, `${how}: ${run.stdout}\n${run.stderr}`);
        assert.equal(JSON.stringify(f.remoteDocs().map((d) => d.dentryUuid).sort()), documents, `${how}: no document made or lost`);
        assert.deepEqual(await filesOf(f.root), Object.keys(TITLED).sort(), `${how}: no (2) file`);
      }
      // And the machine can still delete what it created: the creation ids came back from the shared state.
      await rm(join(f.root, 'daily/tue.md'));
      const deleted = await f.sync();
      assert.equal(deleted.code, 0, deleted.stdout);
      assert.deepEqual(deleted.report?.planned, [{ path: 'daily/tue.md', kind: 'delete-remote' }]);
      assert.deepEqual(f.remoteDocs().filter((d) => d.title.startsWith('Standup')).length, 2);
    });
  });

  test('a crash loop with the ledger moved aside before every run: no duplicate, nothing pulled twice', async () => {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(TITLED)) await f.write(path, text);
      const points = ['after-create', 'after-overwrite', 'before-ledger-commit', 'after-intent', 'after-local-write'];
      for (const [i, point] of points.entries()) {
        await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
        await f.write(`extra/n${i}.md`, `---\ntitle: Extra ${i}/x\n---\nBody ${i}.\n`);
        await f.sync([], { KBSYNC_CRASH_AT: point });
      }
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      // A document a kill left empty right after its create answered (neither its id nor its body in the state) is
      // another writer's new document as far as anyone can tell: held for a minute after it was made (JUST_CREATED).
      const soon = await f.sync();
      const held = soon.report?.results.filter((r) => !r.ok || r.result === 'held') ?? [];
      for (const r of held) assert.ok(r.ok && r.reason === 'JUST_CREATED', JSON.stringify(r));
      f.em.admin.setClockOffset(2 * 60_000);
      const settle = await f.sync();
      assert.equal(settle.code, 0, `${settle.stdout}\n${settle.stderr}`);
      const files = await filesOf(f.root);
      assert.ok(!files.some((p) => /\(\d+\)\.md$/.test(p)), `no (2) file: ${files.join(', ')}`);
      const titles = f.remoteDocs().map((d) => d.title).sort();
      assert.equal(titles.length, files.length, `one document per file: ${titles.join(', ')}`);
      assert.equal(new Set(titles).size, titles.length, 'no title twice');
    });
  });

  test("a second workstation's clone is byte for byte the first's folder; then both edit different paragraphs of one file and converge", async () => {
    await withSyncFixture(async (a) => {
      for (const [path, text] of Object.entries(TITLED)) await a.write(path, text);
      await a.write('readme.md', '---\ntags: [x, y]\n---\n# Readme\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![logo](img/logo.png)\n\n<div>html</div>\n\nFirst paragraph.\n\nLast paragraph.\n');
      assert.equal((await a.sync()).code, 0);
      const clone = join(a.dir, 'second');
      const cloned = await a.cli(['clone', a.em.seed.workspaceUrl, clone]);
      assert.equal(cloned.code, 0, `${cloned.stdout}\n${cloned.stderr}`);
      for (const path of await filesOf(a.root)) assert.equal(await readFile(join(clone, path), 'utf8'), await readFile(join(a.root, path), 'utf8'), `${path} is byte-identical`);

      const bConfig = join(clone, 'sync.config.json');
      const b = (args: string[]) => runCli([...args, '--config', bConfig], { cwd: clone, env: a.env });
      await a.write('readme.md', (await a.read('readme.md')).replace('First paragraph.', 'First paragraph, edited on A.'));
      const bText = await readFile(join(clone, 'readme.md'), 'utf8');
      await writeFile(join(clone, 'readme.md'), bText.replace('Last paragraph.', 'Last paragraph, edited on B.'));
      for (const run of [() => a.sync(), () => b(['sync', '--json']), () => a.sync(), () => b(['sync', '--json'])]) assert.equal((await run()).code, 0);
      const final = await a.read('readme.md');
      assert.match(final, /First paragraph, edited on A\./);
      assert.match(final, /Last paragraph, edited on B\./);
      assert.match(final, /\| a \| b \|/, 'the table stays');
      assert.equal(await readFile(join(clone, 'readme.md'), 'utf8'), final, 'both machines hold the same text');
    });
  });

  test('two stateless runs at the same moment on the same checkout state: one document per file, a complete state', async () => {
    await withSyncFixture(async (first) => {
      const second = join(first.dir, 'checkout-2');
      const files: Record<string, string> = {};
      for (let i = 0; i < 12; i += 1) files[`docs/page-${i}.md`] = `# Page ${i}\n\nText ${i}.\n`;
      for (const [path, text] of Object.entries(files)) {
        await first.write(path, text);
        await mkdir(join(second, 'docs'), { recursive: true });
        await writeFile(join(second, path), text);
      }
      const secondConfig = join(first.dir, 'second.config.json');
      await writeFile(secondConfig, JSON.stringify({ ...JSON.parse(await readFile(first.configPath, 'utf8')), root: './checkout-2' }));
      const runs = await Promise.all([
        first.sync(['--push']),
        runCli(['sync', '--json', '--push', '--config', secondConfig], { cwd: first.dir, env: first.env }),
      ]);
      for (const run of runs) assert.ok(run.code === 0 || run.code === 1, `${run.stdout}\n${run.stderr}`);
      // The runs that lost a race finish on the next run; then both agree.
      await rm(join(first.root, '.kbsync'), { recursive: true, force: true });
      assert.equal((await first.sync(['--push'])).code, 0);
      const titles = first.remoteDocs().map((d) => d.title).sort();
      assert.deepEqual(titles, Object.keys(files).map((_, i) => `Page ${i}`).sort(), 'one document per file');
      const state = await first.cli(['state', '--json']);
      assert.equal(state.code, 0, state.stderr);
      assert.equal((JSON.parse(state.stdout) as { entries: number }).entries, 12, 'every file is in the shared state');
    });
  });

  test("a state document changed by hand: the changed piece is left out and said once, the run goes on with the rest; kbsync state shows it; kbsync state rewrite writes the state anew", async () => {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(TITLED)) await f.write(path, text);
      assert.equal((await f.sync()).code, 0);
      const [index] = stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-state-'));
      assert.ok(index);
      // One character of the first token (the document's own ids) changed: that token no longer reads. (Changed to
      // another character whatever it was: the token is random, and a 'Q' put over a 'Q' changed nothing, 1 run in 64.)
      const changed = (rest: string): string => `${rest.slice(0, -1)}${rest.endsWith('Q') ? 'R' : 'Q'}`;
      f.em.admin.editDocument(index.dentryUuid, (index.markdown ?? '').replace(/\n\nk([A-Za-z0-9+/]{20})/, (_all, rest: string) => `\n\nk${changed(rest)}`));
      await rm(join(f.root, 'daily/mon.md'));
      await f.write('new.md', '# New\n\nA new file: the run reads the shared state to place it.\n');
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      const run = await f.sync(['--push']);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.deepEqual(run.report?.notices.map((n) => n.code), ['STATE_JUNK']);
      assert.match(run.report?.notices[0]?.message ?? '', /1 piece that are not kbsync's or were changed by hand .*left out, and syncing goes on/);
      assert.deepEqual(run.report?.planned.map((p) => `${p.kind} ${p.path}`).sort(), ['create new.md', 'delete-remote daily/mon.md'], 'the rest of the state still pairs every file');
      assert.equal(f.remoteDocs().length, Object.keys(TITLED).length, 'mon.md deleted (its id was in an untouched piece), new.md created');
      const shown = await f.cli(['state']);
      assert.equal(shown.code, 1);
      assert.match(shown.stdout, /1 piece that are not kbsync's or were changed by hand \(in kbsync-state-000001-/);
      assert.match(shown.stdout, /kbsync-state-000001\S* {2}index, [1-9]\d* characters/);
      assert.match(shown.stdout, /kbsync-sources-000001\S* {2}sources \(not read here/, 'a document it did not read is not said to be empty');
      assert.doesNotMatch(shown.stdout, / 0 characters/);

      const rewritten = await f.cli(['state', 'rewrite']);
      assert.equal(rewritten.code, 0, rewritten.stderr);
      assert.match(rewritten.stdout, /old state documents are retired/);
      const after = await f.cli(['state', '--json']);
      assert.equal(after.code, 0, after.stdout);
      assert.equal((JSON.parse(after.stdout) as { entries: number }).entries, Object.keys(TITLED).length);
      // A fresh checkout trusts the rewritten state: nothing to do, nothing said.
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      const fresh = await f.sync(['--push']);
      assert.deepEqual(fresh.report?.planned, []);
      assert.deepEqual(fresh.report?.notices, []);
    });
  });
});
