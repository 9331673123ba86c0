import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '../../../src/emulator/index.js';
import { configOf, createCaseFixture, OutputLog, writeConfig, type CaseFixture } from '../../helpers/bad-input.js';

async function withFixture(fn: (f: CaseFixture) => Promise<void>): Promise<void> {
  const em = await startEmulator({ rateLimit: 0 });
  const f = await createCaseFixture(em, new OutputLog());
  try {
    await fn(f);
  } finally {
    await f.close();
    await em.close();
  }
}

/** Every folder and file below `dir` with its permission bits. */
async function modesBelow(dir: string): Promise<{ rel: string; dir: boolean; mode: number }[]> {
  const out: { rel: string; dir: boolean; mode: number }[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of await readdir(abs)) {
      const childRel = `${rel}/${name}`;
      const stat = await lstat(join(abs, name));
      out.push({ rel: childRel, dir: stat.isDirectory(), mode: stat.mode & 0o777 });
      if (stat.isDirectory()) await walk(join(abs, name), childRel);
    }
  };
  await walk(dir, '.kbsync');
  return out;
}

const octal = (mode: number): string => mode.toString(8).padStart(3, '0');

describe('state, backups and secrets are private to the owner', () => {
  test('the state folder, ledger, backups and trash: folders 0700, files 0600', async () => {
    // A lax umask, so only modes kbsync sets itself can pass.
    const umask = process.umask(0o000);
    try {
      await withFixture(async (f) => {
        await f.write('a.md', '# A\n\nOne.\n\nTwo.\n');
        await f.write('gone.md', '# Gone\n\nDeleted remotely.\n');
        const first = await f.sync();
        assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
        // A merge backs up both bodies; a remote delete moves the file to the trash.
        f.em.admin.editDocument(f.remoteDoc('A').dentryUuid, '# A\n\nOne, remote.\n\nTwo.\n');
        await f.write('a.md', '# A\n\nOne.\n\nTwo, local.\n');
        f.em.admin.deleteNode(f.remoteDoc('Gone').dentryUuid);
        // --force: the merge overwrites the colleague's plain-read edit rather than waiting for a word (FLATTEN).
        const run = await f.sync(['--force']);
        assert.equal(run.code, 0, run.stderr);

        const state = join(f.root, '.kbsync');
        assert.equal(octal((await lstat(state)).mode & 0o777), '700');
        const entries = await modesBelow(state);
        const kinds = (prefix: string) => entries.filter((e) => e.rel.startsWith(prefix));
        assert.ok(kinds('.kbsync/backups/').some((e) => !e.dir), 'a backup was written');
        assert.ok(kinds('.kbsync/trash/').some((e) => !e.dir), 'a file was trashed');
        assert.ok(entries.some((e) => e.rel === '.kbsync/ledger.sqlite'));
        // Trashed files keep the mode the user gave them (a restore puts them back as they were); the 0700 folders keep others out.
        const trashed = (e: { rel: string; dir: boolean }) => !e.dir && e.rel.startsWith('.kbsync/trash/');
        const wrong = entries.filter((e) => (e.dir ? e.mode !== 0o700 : e.mode !== 0o600 && !trashed(e))).map((e) => `${e.rel} ${octal(e.mode)}`);
        assert.deepEqual(wrong, [], 'these are readable by others');
      });
    } finally {
      process.umask(umask);
    }
  });

  test('a config file holding a literal token and readable by others is warned about; at 0600 it is not', async () => {
    await withFixture(async (f) => {
      await writeConfig(f, configOf(f, (c) => (c.service['token'] = { value: f.em.seed.token })));
      await f.write('a.md', '# A\n\nx\n');
      // (The log line is JSON, so the quotes around the key arrive escaped.)
      const warning = /holds the access token in \\?"service\.token\.value\\?" and other users can read it \(mode 6\d\d\)\. Run `chmod 600`/;
      for (const mode of [0o644, 0o640, 0o604]) {
        await chmod(f.configPath, mode);
        const run = await f.sync([], { KBSYNC_TOKEN: undefined } as unknown as Record<string, string>);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, warning, `mode ${octal(mode)}`);
        assert.ok(!run.stderr.includes(f.em.seed.token) && !run.stdout.includes(f.em.seed.token));
      }
      await chmod(f.configPath, 0o600);
      const quiet = await f.sync([], { KBSYNC_TOKEN: undefined } as unknown as Record<string, string>);
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.doesNotMatch(quiet.stderr, /other users can read it/);
    });
  });
});
