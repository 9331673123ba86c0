import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainLocked, isDaemon } from '../../../src/setup/index.js';
import { KbsyncError, SafetyError } from '../../../src/errors.js';

describe('explainLocked: a held ledger explained', () => {
  test('isDaemon reads the command line the lock recorded', () => {
    assert.equal(isDaemon({ command: 'kbsync.js watch --config a.json' }), true);
    assert.equal(isDaemon({ command: 'kbsync.js sync --config watch' }), true); // conservative: any "watch" word
    assert.equal(isDaemon({ command: 'kbsync.js sync --push' }), false);
  });

  test('a daemon holding the lock: watch says it already runs, other commands say there is no need to sync by hand', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kbsync-lock-'));
    try {
      const ledgerPath = join(dir, 'ledger.sqlite');
      // Our own pid: certainly alive.
      await writeFile(`${ledgerPath}.lock`, JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: Date.now(), command: 'kbsync.js watch', token: 't' }));
      const locked = new SafetyError('LEDGER_LOCKED', 'locked');
      const forWatch = explainLocked(locked, { root: '/notes', ledgerPath, command: 'watch' });
      assert.ok(forWatch instanceof SafetyError);
      assert.equal(forWatch.code, 'DAEMON_RUNNING');
      assert.match(forWatch.message, new RegExp(`kbsync watch is already running for /notes as pid ${process.pid}`));
      const forSync = explainLocked(locked, { root: '/notes', ledgerPath, command: 'other' }) as KbsyncError;
      assert.match(forSync.message, /no need to sync by hand/);
      const other = new KbsyncError('LEDGER_CORRUPT', 'x');
      assert.equal(explainLocked(other, { root: '/notes', ledgerPath, command: 'watch' }), other);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
