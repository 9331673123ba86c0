import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { visit } from 'unist-util-visit';
import { linkUses } from '../../../src/links/index.js';
import { parseMarkdown } from '../../../src/markdown/parse.js';
import { createSyncFixture, withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** A small vault written the way the editor writes one: links by name, an alias, an attachments folder, a callout, a template. */
const VAULT: Record<string, string> = {
  'Home.md': '# Home\n\nStart at [[Projects/Plan|the plan]] or [[ideas]].\nSee [[Ideas#Big ones]] and [[Missing note]].\n\n![[diagram.png|300]]\n\n> [!tip] Keep going\n> Write every day, see [[Ideas]].\n\nType `[[Ideas]]` to link.\n',
  'Projects/Plan.md': '---\naliases: [Roadmap]\n---\n# Plan\n\nSteps. The ideas: ![[Ideas]]. The picture: ![](diagram.png).\n\n!!! note "Later"\n    Ship **it** soon.\n\n    - then rest\n',
  'Ideas.md': '# Ideas\n\n## Big ones\n\nSee the [[Roadmap]].\n\n:::warning Careful\nThink **twice** about [[Home]].\n:::\n',
  'Templates/Daily.md': '# {{date}}\n\n[[Home]]\n',
  '.obsidian/app.json': '{ "attachmentFolderPath": "Attachments", "newLinkFormat": "shortest" }',
  '.obsidian/templates.json': '{ "folder": "Templates" }',
};
const NOTES = ['Home.md', 'Ideas.md', 'Projects/Plan.md'];
/** PNG bytes as far as anyone can tell from the first of them. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from('-diagram')]);

const uploaderLogging = (log: string): string => `echo "$1" >> "${log}" && echo "http://127.0.0.1:9/img/$KBSYNC_IMAGE_KEY"`;

/** Wiki syntax the knowledge base holds as words: `[[` or `[!` in a text, outside code. */
function literalWikiSyntax(f: SyncFixture): string[] {
  return f.remoteDocs().flatMap((doc) => {
    const found: string[] = [];
    visit(parseMarkdown(doc.markdown ?? ''), 'text', (node: { value: string }) => {
      if (/\[\[|\[!/.test(node.value)) found.push(`${doc.title}: ${node.value}`);
    });
    return found;
  });
}

test('a vault publishes as the editor shows it: links to documents, images uploaded once, callouts labelled, the broken link reported; a clone gives it back byte for byte', async () => {
  await withSyncFixture(async (f) => {
    for (const [path, text] of Object.entries(VAULT)) await f.write(path, text);
    await mkdir(join(f.root, 'Attachments'), { recursive: true });
    await writeFile(join(f.root, 'Attachments/diagram.png'), PNG);
    const uploads = join(f.dir, 'uploads.log');
    const config = { images: { upload: uploaderLogging(uploads) } };
    await f.write('../sync.config.json', JSON.stringify({ ...JSON.parse(await readFile(f.configPath, 'utf8')), ...config }));

    // A pull request's link check, from the files alone: the wiki link that reaches nothing gates it.
    const gate = await f.sync(['--push', '--check-links', '--dry-run']);
    assert.equal(gate.code, 5, gate.stderr);
    assert.deepEqual(gate.report?.links.map((l) => [l.path, l.line, l.target]), [['Home.md', 4, '[[Missing note]]']]);
    const fork = await f.sync(['--push', '--check-links', '--dry-run'], { KBSYNC_TOKEN: '' });
    assert.equal(fork.code, 5, fork.stderr);
    assert.deepEqual(fork.report?.links, gate.report?.links, 'a fork without a token checks the same links from the files alone');

    const preview = await f.cli(['sync', '--push', '--dry-run']);
    assert.equal(preview.code, 0, preview.stderr);
    const said = `${preview.stdout}${preview.stderr}`.match(/1 embedded note\(s\) \(!\[\[Note\]\]\) in 1 file\(s\) are sent as links/g) ?? [];
    assert.equal(said.length, 1, `a note embed is said once: ${preview.stdout}${preview.stderr}`);

    const run = await f.sync(['--push']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.report?.links.map((l) => [l.path, l.line, l.target, l.reason]), [['Home.md', 4, '[[Missing note]]', 'missing']]);
    assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['Home', 'Ideas', 'Plan'], 'the template is not published');
    assert.deepEqual(literalWikiSyntax(f), [], 'no wiki syntax reaches the knowledge base as words');
    assert.equal((await readFile(uploads, 'utf8')).trim().split('\n').length, 1, 'the image, shown twice, is uploaded once');

    const home = f.remoteDoc('Home').markdown ?? '';
    assert.match(home, /> \*\*Tip:\*\* Keep going\n> Write every day/);
    assert.match(home, /Missing note/);
    assert.match(home, /`\[\[Ideas\]\]`/, 'code keeps its brackets');
    // A document's page is at /i/nodes/<its node id> on the service's host.
    const url = (title: string): string => `${f.em.seed.baseUrl}/i/nodes/${f.remoteDoc(title).dentryUuid}`;
    assert.deepEqual(
      linkUses(home, () => ({ kind: 'external' })).map((use) => use.url),
      [url('Plan'), url('Ideas'), `${url('Ideas')}#big-ones`, url('Ideas')],
    );
    assert.deepEqual(linkUses(f.remoteDoc('Ideas').markdown ?? '', () => ({ kind: 'external' })).map((use) => use.url), [url('Plan'), url('Home')], 'an alias reaches its note; an admonition\'s link too');
    assert.deepEqual(linkUses(f.remoteDoc('Plan').markdown ?? '', () => ({ kind: 'external' })).map((use) => use.url), [url('Ideas')], 'a note embed is a link to the note');

    const again = await f.sync(['--push']);
    assert.equal(again.report?.calls, 0, 'a vault at rest costs no call');

    // A second workstation clones the vault into an empty folder (no settings folder: the config says the dialect).
    const clone = await createSyncFixture({ shared: f.em, config: { markdown: { dialect: 'obsidian' }, ...config } });
    try {
      const cloned = await clone.sync([]);
      assert.equal(cloned.code, 0, cloned.stderr);
      for (const note of NOTES) assert.equal(await clone.read(note), VAULT[note], `${note} comes back byte for byte`);
    } finally {
      await clone.close();
    }

    // A colleague edits the callout in the web editor, beside its wiki link.
    f.em.admin.editDocument(f.remoteDoc('Home').dentryUuid, home.replace('Write every day', 'Write every single day'));
    // And the admonition, beside its bold words and its link.
    const ideas = f.remoteDoc('Ideas').markdown ?? '';
    assert.match(ideas, /> \*\*Warning:\*\* Careful\n> Think \*\*twice\*\* about \[Home\]\(/);
    f.em.admin.editDocument(f.remoteDoc('Ideas').dentryUuid, ideas.replace('Think', 'Always think'));
    // And an MkDocs admonition's indented body.
    const plan = f.remoteDoc('Plan').markdown ?? '';
    assert.match(plan, /> \*\*Note:\*\* Later\n> Ship \*\*it\*\* soon\.\n>\n> - then rest/);
    f.em.admin.editDocument(f.remoteDoc('Plan').dentryUuid, plan.replace('soon', 'today'));
    const pulled = await f.sync([]);
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.equal(await f.read('Home.md'), (VAULT['Home.md'] ?? '').replace('Write every day', 'Write every single day'), 'the edit lands; the wiki syntax around it stays as written');
    assert.equal(await f.read('Ideas.md'), (VAULT['Ideas.md'] ?? '').replace('Think', 'Always think'), 'the admonition keeps its markers');
    assert.equal(await f.read('Projects/Plan.md'), (VAULT['Projects/Plan.md'] ?? '').replace('soon', 'today'), 'the MkDocs admonition keeps its marker and indent');
  });
});

test('a vault synced before it was read as one is sent again once its dialect is: the bracket soup is replaced, then nothing is owed', async () => {
  await withSyncFixture(
    async (f) => {
      for (const note of NOTES) await f.write(note, VAULT[note] ?? '');
      await f.write('Plain.md', '# Plain\n\nNo wiki syntax here.\n');
      const before = await f.sync(['--push']);
      assert.equal(before.code, 0, before.stderr);
      assert.notDeepEqual(literalWikiSyntax(f), [], 'read as CommonMark, the brackets went as words');

      const config = JSON.parse(await readFile(f.configPath, 'utf8')) as Record<string, unknown>;
      await writeFile(f.configPath, JSON.stringify({ ...config, markdown: { dialect: 'obsidian' } }));
      const status = await f.cli(['status', '--json']);
      assert.equal(status.code, 0, status.stderr);
      const states = (JSON.parse(status.stdout) as { files: { path: string; state: string }[] }).files.filter((file) => file.state !== 'clean').map((file) => [file.path, file.state]).sort();
      assert.deepEqual(states, [['Home.md', 'local-changed'], ['Ideas.md', 'local-changed'], ['Projects/Plan.md', 'local-changed']], 'status says so; Plain.md reads the same in both, and is clean');
      const switched = await f.sync(['--push']);
      assert.equal(switched.code, 0, switched.stderr);
      assert.deepEqual(literalWikiSyntax(f), []);
      assert.equal(switched.report?.callsByEndpoint['overwriteContent'], NOTES.length, 'the notes with wiki syntax, not Plain.md');
      const after = await f.sync(['--push']);
      assert.equal(after.report?.calls, 0, 'sent once: nothing is owed after');
    },
    { config: { markdown: { dialect: 'commonmark' } } },
  );
});

test('comments are read as the editor reads them: not sent, no link in one reported, kept in the file whatever a colleague does around them', async () => {
  await withSyncFixture(
    async (f) => {
      const plugin = '# Statblocks\n\nRender statblocks. Developed by [[ben]].\n\n%% Does the author have sponsoring links? %%\n%% ![[ben#Sponsor this author]] %%\n\nLast words %%why [[Missing]]%% here.\n\n<!--\n## Sponsor this author\n- [[GitHub sponsors]]\n-->\n';
      await f.write('Plugin.md', plugin);
      await f.write('ben.md', '# ben\n\n<!--\n## Sponsor this author\n-->\n');
      const gate = await f.sync(['--push', '--check-links', '--dry-run']);
      assert.equal(gate.code, 0, `${gate.stdout}${gate.stderr}`);
      assert.deepEqual(gate.report?.links, [], 'nothing a reader never sees is reported');
      const run = await f.sync(['--push']);
      assert.equal(run.code, 0, run.stderr);
      const sent = f.remoteDoc('Statblocks').markdown ?? '';
      assert.doesNotMatch(sent, /%%|<!--|Sponsor|Missing|why/, `no comment reaches the knowledge base: ${sent}`);
      assert.match(sent, /Last words here\./);

      // A later edit of the file is published (a colleague's delete of a block the first write made would read
      // as another writer putting back the empty document: a lost update).
      await f.write('Plugin.md', `${plugin}\nMore.\n`);
      assert.equal((await f.sync(['--push'])).code, 0);
      // A colleague deletes the paragraph before the comments, then edits the one that holds one.
      f.em.admin.editDocument(f.remoteDoc('Statblocks').dentryUuid, (f.remoteDoc('Statblocks').markdown ?? '').replace(/Render statblocks\.[^\n]*\n\n/, ''));
      const deleted = await f.sync([]);
      assert.equal(deleted.code, 0, `${deleted.stdout}${deleted.stderr}`);
      f.em.admin.editDocument(f.remoteDoc('Statblocks').dentryUuid, (f.remoteDoc('Statblocks').markdown ?? '').replace('Last words here.', 'Last words written here.'));
      const pulled = await f.sync([]);
      assert.equal(pulled.code, 0, `${pulled.stdout}${pulled.stderr}`);
      assert.equal(
        await f.read('Plugin.md'),
        '# Statblocks\n\n%% Does the author have sponsoring links? %%\n%% ![[ben#Sponsor this author]] %%\n\nLast words written %%why [[Missing]]%% here.\n\n<!--\n## Sponsor this author\n- [[GitHub sponsors]]\n-->\n\nMore.\n',
      );
      // Another machine gets the comments back, byte for byte.
      const clone = await createSyncFixture({ shared: f.em, config: { markdown: { dialect: 'obsidian' } } });
      try {
        assert.equal((await clone.sync([])).code, 0);
        assert.equal(await clone.read('Plugin.md'), await f.read('Plugin.md'));
      } finally {
        await clone.close();
      }
    },
    { config: { markdown: { dialect: 'obsidian' } } },
  );
});

test('a warning about many files names a few and says how many; the JSON report lists them all', async () => {
  await withSyncFixture(
    async (f) => {
      await f.write('Home.md', '# Home\n');
      const notes = Array.from({ length: 14 }, (_, i) => `notes/n${String(i).padStart(2, '0')}.md`);
      for (const note of notes) await f.write(note, '# N\n\n![[Home]]\n');
      const run = await f.cli(['sync', '--push', '--dry-run']);
      assert.equal(run.code, 0, run.stderr);
      const warning = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('embedded note'));
      assert.equal(warning.length, 1, warning.join('\n'));
      assert.match(warning[0] ?? '', /14 embedded note\(s\) .* in 14 file\(s\) .*\(4 more files: --json lists them\)/);
      assert.deepEqual(notes.filter((note) => (warning[0] ?? '').includes(note)), notes.slice(0, 10), 'the first ten, in order');
      const json = await f.sync(['--push', '--dry-run']);
      assert.deepEqual(json.report?.noteEmbeds, notes.map((path) => ({ path, count: 1 })));
    },
    { config: { markdown: { dialect: 'obsidian' } } },
  );
});
