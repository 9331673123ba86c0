import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configOf, synced, writeConfig, type BadInput } from './case.js';

const NOTE = { 'a.md': '# A\n\nKept.\n' };
const withNote = async (f: Parameters<NonNullable<BadInput['setup']>>[0]): Promise<void> => {
  for (const [rel, text] of Object.entries(NOTE)) await f.write(rel, text);
};

/** Every config mistake stops before anything is touched: exit 2, and the message names the key or source and the fix. */
export const configCases: readonly BadInput[] = [
  {
    group: 'config',
    name: 'invalid JSON (a trailing comma)',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, JSON.stringify(configOf(f), null, 2).replace(/\n}$/, ',\n}'));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/sync\.config\.json:\d+:\d+: invalid JSON/, /Fix the file at that line and column/, /CONFIG_INVALID_JSON/],
  },
  {
    group: 'config',
    name: 'half-written JSON (cut off in the middle)',
    setup: async (f) => {
      await withNote(f);
      const text = JSON.stringify(configOf(f), null, 2);
      await writeConfig(f, text.slice(0, Math.floor(text.length / 2)));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/invalid JSON/, /Fix the file/],
  },
  {
    group: 'config',
    name: 'an empty config file (0 bytes)',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, '');
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/sync\.config\.json is empty/, /half-written\? Restore it, or run `kbsync init`/],
  },
  {
    group: 'config',
    name: 'a JSON list instead of an object',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, '[]');
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/must hold a JSON object/, /not a list/, /sync\.config\.example\.json/],
  },
  {
    group: 'config',
    name: 'an unknown key (typo maxDelets)',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, configOf(f, (c) => (c['guards'] = { maxDelets: 3 })));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/maxDelets/, /maxDeletes/, /CONFIG_INVALID/],
  },
  {
    group: 'config',
    name: 'wrong types (rateLimit "fast", links "yes")',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(
        f,
        configOf(f, (c) => {
          c.service['rateLimit'] = 'fast';
          c['links'] = 'yes';
        }),
      );
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/service\.rateLimit/, /"fast"/, /expected a positive number/, /links/, /expected true or false/],
  },
  {
    group: 'config',
    name: 'workspaceId missing',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, configOf(f, (c) => delete c['workspaceId']));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/workspaceId/, /Fix the keys above/],
  },
  {
    group: 'config',
    name: 'baseUrl without http:// (127.0.0.1:port)',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, configOf(f, (c) => (c.service['baseUrl'] = f.em.seed.baseUrl.replace('http://', ''))));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/service\.baseUrl/, /expected an http:\/\/ or https:\/\/ URL/],
  },
  {
    group: 'config',
    name: '--config names a file that does not exist',
    setup: withNote,
    run: (f) => f.raw(['sync', '--json', '--config', join(f.dir, 'nope.json')]),
    exit: 2,
    says: [/No configuration file at .*nope\.json/, /kbsync init/],
  },
  {
    group: 'config',
    name: 'the token variable is not set',
    setup: withNote,
    run: (f) => f.sync([], { KBSYNC_TOKEN: undefined } as unknown as Record<string, string>),
    exit: 2,
    says: [/access token is missing: the environment variable KBSYNC_TOKEN gave none/, /export KBSYNC_TOKEN=/],
  },
  {
    group: 'config',
    name: 'the token file is empty',
    setup: async (f) => {
      await withNote(f);
      await writeFile(join(f.dir, 'token'), '\n', { mode: 0o600 });
      await writeConfig(f, configOf(f, (c) => (c.service['token'] = { file: './token' })));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/access token is missing: the file .*token gave none/, /Write the token as its only content/],
  },
  {
    group: 'config',
    name: 'the token command fails',
    setup: async (f) => {
      await withNote(f);
      await writeConfig(f, configOf(f, (c) => (c.service['token'] = { command: 'echo "vault is sealed" >&2; exit 3' })));
    },
    run: (f) => f.sync(),
    exit: 2,
    says: [/token command .* failed \(exit code 3\): vault is sealed/, /Run it by hand/],
  },
  {
    group: 'config',
    name: 'an environment override with a bad value (KBSYNC_GUARDS_MAX_DELETES=lots)',
    setup: withNote,
    run: (f) => f.sync([], { KBSYNC_GUARDS_MAX_DELETES: 'lots' }),
    exit: 2,
    says: [/KBSYNC_GUARDS_MAX_DELETES="lots" is not a number/, /Set it to a number .* or unset it/],
  },
  {
    group: 'config',
    name: 'a synced folder newly excluded (exclude: drafts/**): its documents are left alone, not deleted',
    setup: async (f) => {
      await synced(f, { 'a.md': '# A\n\nx\n', 'b.md': '# B\n\nx\n', 'c.md': '# C\n\nx\n', 'drafts/d.md': '# D\n\nx\n' });
      await writeConfig(f, configOf(f, (c) => (c['exclude'] = ['drafts/**'])));
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
  },
  {
    group: 'config',
    name: 'a synced file newly ignored by a .kbsyncignore: its document is left alone, not deleted',
    setup: async (f) => {
      await synced(f, { 'a.md': '# A\n\nx\n', 'b.md': '# B\n\nx\n', 'c.md': '# C\n\nx\n', 'private.md': '# Private\n\nx\n' });
      await writeFile(join(f.root, '.kbsyncignore'), 'private.md\n');
    },
    run: (f) => f.sync(),
    exit: 0,
    says: [],
  },
];
