import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { toPushMarkdown } from '../../../src/markdown/index.js';
import type { DumpedNode } from '../../../src/emulator/index.js';
import { splitText } from '../../../src/sync/document-text.js';
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
