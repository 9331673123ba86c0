import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { aliasesIn, aliasIndex, vaultNames } from '../../../src/vault/names.js';
import { vaultOf, type VaultSettings } from '../../../src/vault/settings.js';

async function withVault(files: Record<string, string>, fn: (root: string) => void | Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'kbsync-vault-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    await fn(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const SETTINGS: VaultSettings = { attachmentFolder: 'Attachments', linkFormat: 'shortest', templatesFolder: undefined };
const FILES = {
  'Home.md': '',
  'guides/Setup.md': '',
  'archive/Setup.md': '',
  'archive/deep/Setup.md': '',
  'Attachments/diagram.png': '',
  'notes/diagram.png': '',
  'Readme.v2.md': '',
  '.obsidian/app.json': '{}',
  '.trash/Home.md': '',
  '.kbsync/x.md': '',
};

describe('how the editor finds the file a wiki link names', () => {
  test('by name anywhere, case and .md aside; an ambiguous name goes to the linking note\'s folder, then the attachments folder, then the shortest path', async () => {
    await withVault(FILES, (root) => {
      const names = vaultNames({ root, settings: SETTINGS, skip: (folder) => folder === '.kbsync', aliases: () => new Map() });
      assert.equal(names.resolve('home', 'a/b.md'), 'Home.md');
      assert.equal(names.resolve('Home.md', 'a/b.md'), 'Home.md');
      assert.equal(names.resolve('Setup', 'archive/x.md'), 'archive/Setup.md', 'beside the linking note');
      assert.equal(names.resolve('Setup', 'Home.md'), 'archive/Setup.md', 'the shortest path, then by name');
      assert.equal(names.resolve('guides/Setup', 'Home.md'), 'guides/Setup.md', 'a path from the top');
      assert.equal(names.resolve('deep/Setup', 'Home.md'), 'archive/deep/Setup.md', 'a path\'s end');
      assert.equal(names.resolve('../Home', 'guides/Setup.md'), 'Home.md', 'relative');
      assert.equal(names.resolve('./Setup', 'guides/x.md'), 'guides/Setup.md');
      assert.equal(names.resolve('diagram.png', 'x.md'), 'Attachments/diagram.png', 'the attachments folder before another');
      assert.equal(names.resolve('diagram.png', 'notes/n.md'), 'notes/diagram.png');
      assert.equal(names.resolve('Readme.v2', 'x.md'), 'Readme.v2.md', 'a dot in a note\'s name');
      assert.equal(names.resolve('app.json', 'x.md'), undefined, 'the settings folder is not the vault\'s');
      assert.equal(names.resolve('x', 'Home.md'), undefined, 'kbsync\'s state folder is skipped');
      assert.equal(names.exists('guides/Setup.md'), true);
      assert.equal(names.exists('guides/setup.md'), false);
    });
  });

  test('a name no file has may be a note\'s alias (front matter aliases: a list or one name)', async () => {
    await withVault(FILES, (root) => {
      const aliases = aliasIndex([
        ['guides/Setup.md', aliasesIn({ aliases: ['Install guide', ' ', 3] })],
        ['Home.md', aliasesIn({ alias: 'Start' })],
      ]);
      const names = vaultNames({ root, settings: SETTINGS, skip: () => false, aliases: () => aliases });
      assert.equal(names.resolve('install GUIDE', 'x.md'), 'guides/Setup.md');
      assert.equal(names.resolve('Start', 'x.md'), 'Home.md');
      assert.equal(names.resolve('Nobody', 'x.md'), undefined);
    });
  });
});

describe('a vault\'s settings', () => {
  test('read from its settings folder: attachments, link format, templates; auto needs the folder, obsidian does not; a bad file is said and defaulted', async () => {
    await withVault({ '.obsidian/app.json': '{"attachmentFolderPath":"./assets","newLinkFormat":"relative"}', '.obsidian/templates.json': '{"folder":"/Templates/"}' }, (root) => {
      const warnings: string[] = [];
      assert.deepEqual(vaultOf(root, 'auto', warnings), { attachmentFolder: './assets', linkFormat: 'relative', templatesFolder: 'Templates' });
      assert.equal(vaultOf(root, 'commonmark', warnings), undefined);
      assert.deepEqual(warnings, []);
    });
    await withVault({ 'a.md': '' }, (root) => {
      const warnings: string[] = [];
      assert.equal(vaultOf(root, 'auto', warnings), undefined);
      assert.deepEqual(vaultOf(root, 'obsidian', warnings), { attachmentFolder: '', linkFormat: 'shortest', templatesFolder: undefined });
    });
    await withVault({ '.obsidian/app.json': '{"attachmentFolderPath": ' }, (root) => {
      const warnings: string[] = [];
      assert.deepEqual(vaultOf(root, 'auto', warnings), { attachmentFolder: '', linkFormat: 'shortest', templatesFolder: undefined });
      assert.match(warnings[0] ?? '', /app\.json is not a JSON object; its settings are taken as the editor's defaults/);
    });
  });
});
