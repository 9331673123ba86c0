import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { backupsSize, pruneBackups } from '../../../src/local/index.js';
import { timestampFolderName } from '../../../src/local/trash.js';

const DAY = 86_400_000;

async function backup(stateDir: string, side: 'local' | 'remote', rel: string, at: number, text = 'x'): Promise<string> {
  const file = join(stateDir, 'backups', side, timestampFolderName(new Date(at)), rel);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  await utimes(file, at / 1000, at / 1000);
  return file;
}

test('backups are kept per file and side, by count and age, and the newest of each file always stays', async () => {
  const stateDir = await mkdtemp(join(tmpdir(), 'kbsync-backups-'));
  try {
    const now = Date.UTC(2026, 10, 24);
    for (let i = 0; i < 25; i += 1) await backup(stateDir, 'local', 'notes/a.md', now - i * 60_000, 'a'.repeat(10));
    await backup(stateDir, 'remote', 'notes/a.md', now - 40 * DAY, 'old');
    await backup(stateDir, 'remote', 'b.md', now - 40 * DAY, 'old');
    await backup(stateDir, 'remote', 'b.md', now - 35 * DAY, 'older newest');
    assert.deepEqual(await backupsSize(stateDir), { files: 28, bytes: 250 + 3 + 3 + 12 });

    const pruned = await pruneBackups(stateDir, { keepPerFile: 20, maxAgeDays: 30 }, now);
    // a.md (local): 25 → 20 newest. a.md (remote): its only backup stays, however old. b.md: the newest stays.
    assert.deepEqual(pruned, { files: 6, bytes: 5 * 10 + 3 });
    assert.deepEqual(await backupsSize(stateDir), { files: 22, bytes: 200 + 3 + 12 });
    const stamps = await readdir(join(stateDir, 'backups', 'local'));
    assert.equal(stamps.length, 20, 'emptied timestamp folders are removed');
    assert.deepEqual(await pruneBackups(stateDir, { keepPerFile: 20, maxAgeDays: 30 }, now), { files: 0, bytes: 0 }, 'a second prune finds nothing');
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});

test('no backups folder at all: nothing to prune, nothing to count', async () => {
  const stateDir = await mkdtemp(join(tmpdir(), 'kbsync-backups-'));
  try {
    assert.deepEqual(await pruneBackups(stateDir, { keepPerFile: 1, maxAgeDays: 1 }), { files: 0, bytes: 0 });
    assert.deepEqual(await backupsSize(stateDir), { files: 0, bytes: 0 });
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});
