import { readFile, writeFile } from 'node:fs/promises';
import assert from 'node:assert/strict';
import { closedPort, htmlBanPage, startOddServer } from '../../helpers/odd-servers.js';
import { configOf, synced, writeConfig, type BadInput } from './case.js';

const NEW_NOTE = { 'a.md': '# A\n\nNew.\n' };
const write = (files: Record<string, string>) => async (f: Parameters<NonNullable<BadInput['setup']>>[0]) => {
  for (const [rel, text] of Object.entries(files)) await f.write(rel, text);
};

/** A service that cannot be used is exit 4, says why and what to do, and leaves both sides alone. */
export const serviceCases: readonly BadInput[] = [
  {
    group: 'service',
    name: 'a token lacking the write scope (read-only token) on a push',
    setup: write(NEW_NOTE),
    run: (f) => f.sync(['--push'], { KBSYNC_TOKEN: f.em.seed.readOnlyToken }),
    exit: 4,
    says: [/lacks the permission scope\(s\) .*Document\.WorkspaceDocument\.Write|lacks the permission scope\(s\) .*Storage\.File\.Write/, /Grant .* to the app/],
  },
  {
    group: 'service',
    name: 'a token lacking the write scope, after a first sync (an edit to push)',
    setup: async (f) => {
      await synced(f, NEW_NOTE);
      await f.write('a.md', '# A\n\nEdited.\n');
    },
    run: (f) => f.sync(['--push'], { KBSYNC_TOKEN: f.em.seed.readOnlyToken }),
    exit: 4,
    says: [/lacks the permission scope/, /Grant .* to the app/],
  },
  {
    group: 'service',
    name: 'a token lacking only the sharing scope: bodies still sync, the file with members is reported',
    setup: async (f) => {
      const colleague = f.em.seed.otherUser.userId;
      await f.write('plain.md', '# Plain\n\nNo sharing.\n');
      await f.write('shared.md', `---\nmembers:\n  - userId: ${colleague}\n    role: editor\n---\n# Shared\n\nWith a colleague.\n`);
    },
    run: (f) => {
      const token = f.em.admin.addToken(['Wiki.Node.Read', 'Storage.File.Read', 'Storage.File.Write', 'Document.WorkspaceDocument.Read']);
      return f.sync([], { KBSYNC_TOKEN: token });
    },
    exit: 1,
    says: [/shared\.md/, /lacks the permission scope\(s\) Document\.WorkspaceDocument\.Write/, /Grant Document\.WorkspaceDocument\.Write to the app/],
    changes: 'remote',
    check: async (f) => {
      assert.equal(f.remoteDoc('Plain').markdown, '# Plain\n\nNo sharing.\n');
      assert.equal(f.remoteDocs().length, 2);
    },
  },
  {
    group: 'service',
    name: 'a userId given as operatorId',
    setup: async (f) => {
      await write(NEW_NOTE)(f);
      await writeConfig(f, configOf(f, (c) => (c.service['operatorId'] = f.em.seed.userId)));
    },
    run: (f) => f.sync(),
    exit: 4,
    says: [/operatorId/, /unionId, not the userId/],
  },
  {
    group: 'service',
    name: 'a token the service rejects (expired)',
    setup: write(NEW_NOTE),
    run: (f) => f.sync([], { KBSYNC_TOKEN: 'at-expired-0000000000000000000000000000' }),
    exit: 4,
    says: [/rejected the access token/, /get a new access token/],
  },
  {
    group: 'service',
    name: 'a wrong port (nothing listening)',
    setup: async (f) => {
      await write(NEW_NOTE)(f);
      const port = await closedPort();
      await writeConfig(f, configOf(f, (c) => (c.service['baseUrl'] = `http://127.0.0.1:${port}`)));
    },
    run: (f) => f.sync(),
    exit: 4,
    says: [/127\.0\.0\.1:\d+/, /(baseUrl|reach|running|network)/i],
  },
  {
    group: 'service',
    name: 'a wrong baseUrl path (/api/v1 appended)',
    setup: async (f) => {
      await write(NEW_NOTE)(f);
      await writeConfig(f, configOf(f, (c) => (c.service['baseUrl'] = `${f.em.seed.baseUrl}/api/v1`)));
    },
    run: (f) => f.sync(),
    exit: 4,
    says: [/no such API/, /Check baseUrl/],
  },
  {
    group: 'service',
    name: 'the service answers an HTML ban page instead of JSON',
    setup: write(NEW_NOTE),
    run: async (f) => {
      const ban = await startOddServer(htmlBanPage);
      const config = await readFile(f.configPath);
      try {
        await writeConfig(f, configOf(f, (c) => (c.service['baseUrl'] = ban.url)));
        return await f.sync();
      } finally {
        await writeFile(f.configPath, config);
        await ban.close();
      }
    },
    exit: 4,
    says: [/answered HTML instead of JSON/, /banned for a few minutes .* wait, then try again/],
  },
  {
    group: 'service',
    name: 'a workspaceId that does not exist',
    setup: async (f) => {
      await write(NEW_NOTE)(f);
      await writeConfig(f, configOf(f, (c) => (c['workspaceId'] = 'no-such-workspace-000')));
    },
    run: (f) => f.sync(),
    exit: 4,
    says: [/knowledge base \(workspace\) is gone or not visible/, /Check workspaceId in the configuration \(`kbsync workspaces` lists/],
    check: async (f) => assert.equal(f.remoteDocs().length, 0),
  },
];
