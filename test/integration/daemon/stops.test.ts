import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, type Daemon } from './daemon-process.js';
import { withInProcessDaemon } from './in-process-daemon.js';

const page = (n: number): string => `# Page ${n}\n\nWhat page ${n} says.\n`;

/**
 * A daemon with code of the test's loaded first (node --import): on SIGUSR2 it throws from a callback, or
 * leaves a promise rejected with no handler, as a kbsync bug would: the daemon meets a real uncaught error.
 */
async function daemonThatFails(f: SyncFixture, how: 'throw' | 'reject'): Promise<Daemon> {
  const preload = join(f.dir, 'fail-on-sigusr2.mjs');
  const failure = how === 'throw' ? "setImmediate(() => { throw new Error('boom from a callback'); })" : "Promise.reject(new Error('boom from a promise'))";
  await writeFile(preload, `process.on('SIGUSR2', () => { ${failure}; });\n`);
  return startDaemon(f, { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${pathToFileURL(preload).href}`.trim() });
}

const fatal = (d: Daemon) => d.logs.filter((line) => line.level >= 60);

describe('kbsync watch: every stop says its cause', () => {
  test('a ledger that cannot record a cycle\'s bookkeeping (a full disk) is said, and the daemon goes on', async () => {
    await withSyncFixture(async (f) => {
      await f.write('p1.md', page(1));
      await withInProcessDaemon(f, async (d) => {
        const set = d.ledger.meta.set.bind(d.ledger.meta);
        const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        d.ledger.meta.set = () => {
          throw full;
        };
        await f.write('p2.md', page(2));
        await d.changed();
        d.ledger.meta.set = set;
        const warned = d.logs.filter((line) => line.level === 40 && line.code === 'SQLITE_FULL');
        assert.ok(warned.length >= 1, d.said().join('\n'));
        await f.write('p3.md', page(3));
        await d.changed();
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['Page 1', 'Page 2', 'Page 3'], 'it goes on syncing');
      });
    });
  });

  for (const how of ['throw', 'reject'] as const) {
    test(`an uncaught error (${how === 'throw' ? 'thrown from a callback' : 'a rejected promise nobody handles'}) is logged with its cause, the daemon stops and exits 1, and the next start says why the last one stopped`, async () => {
      await withSyncFixture(async (f) => {
        await f.write('p1.md', page(1));
        const d = await daemonThatFails(f, how);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          d.kill('SIGUSR2');
          assert.equal(await d.exited(), 1, d.stderr());
          const [line] = fatal(d);
          assert.equal(line?.['code'], 'UNEXPECTED');
          assert.match(String(line?.msg), new RegExp(`^stopping on an unexpected error \\(a kbsync bug: please report it\\): boom from a ${how === 'throw' ? 'callback' : 'promise'}`));
          assert.match(String(d.logs.at(-1)?.msg), /^stopped: UNEXPECTED/);
        } finally {
          await d.dispose();
        }
        const next = startDaemon(f);
        try {
          const said = await next.waitForLog((entry) => entry.msg.startsWith('the last kbsync watch here'), 'the last stop to be said');
          assert.match(said.msg, new RegExp(`^the last kbsync watch here \\(pid ${d.pid}\\) stopped at \\d\\d:\\d\\d: UNEXPECTED: boom from a`));
          assert.equal(said.level, 40);
        } finally {
          await next.dispose();
        }
      });
    });
  }

  test('its log stream closed (a journald restart, the reader of its output gone): it stops with exit 1, not a silent 0, and the next start says why', async () => {
    await withSyncFixture(
      async (f) => {
        await f.write('p1.md', page(1));
        const d = startDaemon(f);
        try {
          await d.waitForLog(firstSweepDone, 'the first full cycle');
          d.child.stderr.destroy();
          assert.equal(await d.exited(), 1);
        } finally {
          await d.dispose();
        }
        const next = startDaemon(f);
        try {
          const said = await next.waitForLog((entry) => entry.msg.startsWith('the last kbsync watch here'), 'the last stop to be said');
          assert.match(said.msg, new RegExp(`^the last kbsync watch here \\(pid ${d.pid}\\) stopped at \\d\\d:\\d\\d: its log stream \\(stderr\\) closed`));
        } finally {
          await next.dispose();
        }
      },
      { config: { watch: { fullSweepMinutes: 0.02 } } },
    );
  });

  test('SIGTERM: the stop says the signal, and a clean stop is not news at the next start', async () => {
    await withSyncFixture(async (f) => {
      await f.write('p1.md', page(1));
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        d.kill('SIGTERM');
        assert.equal(await d.exited(), 0);
        assert.match(String(d.logs.at(-1)?.msg), /^stopped: SIGTERM/);
      } finally {
        await d.dispose();
      }
      const next = startDaemon(f);
      try {
        await next.waitForLog(firstSweepDone, 'the next start\'s first cycle');
        const last = next.logs.find((entry) => entry.msg.startsWith('the last kbsync watch here'));
        assert.equal(last?.level, 20, 'said at debug only');
      } finally {
        await next.dispose();
      }
    });
  });
});
