import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil } from './daemon-process.js';

const FILES = 10;
const body = (i: number, version: string) => `# Note ${i}\n\nFirst paragraph ${version}.\n\nSecond paragraph.\n`;

/** Synced notes, then every one edited while the service answers slowly: the daemon is mid-cycle with a full queue. */
async function busyDaemon(f: SyncFixture) {
  for (let i = 0; i < FILES; i++) await f.write(`n${i}.md`, body(i, 'v1'));
  const d = startDaemon(f);
  await d.waitForLog(firstSweepDone, 'the first full cycle');
  const reads = f.em.admin.calls().byEndpoint.readBlocks.calls;
  f.em.admin.setFaults({ latency: 300 });
  for (let i = 0; i < FILES; i++) await f.write(`n${i}.md`, body(i, 'v2'));
  await waitUntil(() => f.em.admin.calls().byEndpoint.readBlocks.calls > reads, 'the local cycle to start');
  return d;
}

async function assertEveryEditArrived(f: SyncFixture): Promise<void> {
  const docs = f.remoteDocs();
  assert.equal(docs.length, FILES, 'no document lost or duplicated');
  for (let i = 0; i < FILES; i++) assert.match(f.remoteDoc(`Note ${i}`).markdown ?? '', /First paragraph v2\./, `Note ${i}`);
}

const slowShutdown = { config: { watch: { pollBudgetPerHour: 0, shutdownDeadlineMs: 200 } } };

describe('kbsync watch: lifecycle', () => {
  test('SIGTERM with a full queue exits 0 and loses nothing: the next sync finishes the work', async () => {
    await withSyncFixture(async (f) => {
      const d = await busyDaemon(f);
      try {
        d.kill('SIGTERM');
        assert.equal(await d.exited(), 0, d.stderr());
        assert.ok(d.logs.some((line) => /^(stopped|stopped before)/.test(line.msg)));
      } finally {
        await d.dispose();
      }
      f.em.admin.setFaults({});
      const after = await f.sync();
      assert.equal(after.code, 0, after.stderr);
      await assertEveryEditArrived(f);
    }, slowShutdown);
  });

  for (const second of ['SIGTERM', 'SIGKILL'] as const) {
    test(`a second signal (${second}) during the drain exits at once, and the next start finishes the work`, async () => {
      await withSyncFixture(async (f) => {
        const d = await busyDaemon(f);
        try {
          d.kill('SIGTERM');
          await d.waitForLog((line) => line.msg.startsWith('SIGTERM: finishing'), 'the graceful stop to begin');
          d.kill(second);
          assert.equal(await d.exited(), second === 'SIGTERM' ? 130 : 'SIGKILL');
        } finally {
          await d.dispose();
        }
        f.em.admin.setFaults({});
        const next = startDaemon(f);
        try {
          await next.waitForLog(firstSweepDone, 'the next start’s first cycle');
          await assertEveryEditArrived(f);
          for (let i = 0; i < FILES; i++) assert.equal(await f.read(`n${i}.md`), body(i, 'v2'));
          next.kill('SIGTERM');
          assert.equal(await next.exited(), 0);
        } finally {
          await next.dispose();
        }
      }, slowShutdown);
    });
  }

  test('one daemon per folder: a second watch exits 3 naming the first one’s pid; sync is refused with a helpful message', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', '# A\n\nText.\n');
        const d = startDaemon(f);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          const again = await f.cli(['watch']);
          assert.equal(again.code, 3, again.stderr);
          assert.match(again.stderr, new RegExp(`kbsync watch is already running for ${f.root} as pid ${d.pid}`));
          const sync = await f.sync();
          assert.equal(sync.code, 3, sync.stderr);
          assert.match(sync.stderr, new RegExp(`kbsync watch is running for ${f.root} as pid ${d.pid}.*no need to sync by hand`));
          d.kill('SIGINT');
          assert.equal(await d.exited(), 0);
        } finally {
          await d.dispose();
        }
        const free = await f.sync();
        assert.equal(free.code, 0, `the lock is released after a graceful stop: ${free.stderr}`);
      },
      { config: { watch: { pollBudgetPerHour: 0 } } },
    );
  });

  test('SIGHUP with a broken config keeps running on the old one and says why; with a fixed config (new root) it restarts on it', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('a.md', '# A\n\nText.\n');
        const d = startDaemon(f);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          const good = await readFile(f.configPath, 'utf8');
          await writeFile(f.configPath, '{ "root": "./notes", ');
          d.kill('SIGHUP');
          const error = await d.waitForLog((line) => line.msg.startsWith('SIGHUP: the configuration was not reloaded'), 'the reload error');
          assert.equal(error.level, 50);
          assert.match(error.msg, /invalid JSON/);
          // Still running, on the old configuration.
          await f.write('a.md', '# A\n\nText, edited after the failed reload.\n');
          await waitUntil(() => /edited after the failed reload/.test(f.remoteDoc('A').markdown ?? ''), 'the edit to sync');

          await mkdir(join(f.dir, 'notes2'));
          await writeFile(join(f.dir, 'notes2', 'c.md'), '# C\n\nIn the new root.\n');
          await writeFile(f.configPath, JSON.stringify({ ...(JSON.parse(good) as object), root: './notes2' }));
          d.kill('SIGHUP');
          await d.waitForLog((line) => line.msg.startsWith('SIGHUP: root, stateDir changed'), 'the restart');
          await waitUntil(() => f.remoteDocs().some((doc) => doc.title === 'C'), 'the new root to sync');
          d.kill('SIGTERM');
          assert.equal(await d.exited(), 0);
        } finally {
          await d.dispose();
        }
      },
      { config: { watch: { pollBudgetPerHour: 0 } } },
    );
  });
});
