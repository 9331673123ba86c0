import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { lockPathOf, openLedger, readLockHolder } from '../../../src/ledger/index.js';
import { codeOf, exited, sampleDocument, spawnUntil, tempDir } from './helpers.js';

const holdLedger = fileURLToPath(new URL('./fixtures/hold-ledger.ts', import.meta.url));

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A pino logger whose lines land in `lines`. */
function capturingLogger(lines: string[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'warn' }, stream);
}

describe('ledger lock', () => {
  test('a ledger held by a live process is refused with LEDGER_LOCKED naming its pid', async (t) => {
    const path = join(tempDir(t), '.kbsync', 'ledger.db');
    const { child } = await spawnUntil(t, holdLedger, [path], 'holding');
    assert.throws(
      () => openLedger(path),
      (error: Error & { code?: string }) =>
        error.code === 'LEDGER_LOCKED' && error.message.includes(`pid ${child.pid}`) && /kill \d+|stop/i.test(error.message),
    );
    const holder = readLockHolder(path);
    assert.equal(holder?.pid, child.pid);
    assert.equal(holder?.alive, true);
    assert.equal(holder?.hostname, hostname());
    assert.match(holder?.command ?? '', /hold-ledger\.ts/);
    assert.equal(statSync(lockPathOf(path)).mode & 0o777, 0o600);
    // Readers (kbsync status) need no lock.
    const reader = openLedger(path, { readonly: true });
    reader.close();
    // Once the holder closes cleanly, the ledger is free and the lock file is gone.
    child.stdin.end();
    await exited(child);
    assert.equal(existsSync(lockPathOf(path)), false);
    assert.equal(readLockHolder(path), null);
    openLedger(path).close();
  });

  test('the lock of a SIGKILLed process is taken over with a warning', async (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const { child } = await spawnUntil(t, holdLedger, [path], 'holding');
    child.kill('SIGKILL');
    await exited(child);
    assert.equal(readLockHolder(path)?.alive, false, 'the lock file is still there, its holder is gone');
    const lines: string[] = [];
    const ledger = openLedger(path, { logger: capturingLogger(lines) });
    t.after(() => ledger.close());
    assert.equal(readLockHolder(path)?.pid, process.pid);
    assert.ok(lines.some((line) => line.includes(`pid ${child.pid}`) && line.includes('taking it over')), lines.join(''));
    ledger.documents.upsert(sampleDocument(1));
    assert.equal(ledger.documents.count(), 1);
  });

  test('a lock naming an exited pid, or unreadable, is stale; one from another host is respected', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const stale = { pid: deadPid(), hostname: hostname(), startedAt: Date.now() - 1000, command: 'kbsync watch', token: 'x' };
    writeFileSync(lockPathOf(path), JSON.stringify(stale));
    assert.deepEqual(readLockHolder(path), { pid: stale.pid, hostname: stale.hostname, startedAt: stale.startedAt, command: stale.command, alive: false });
    openLedger(path).close();
    assert.equal(existsSync(lockPathOf(path)), false);

    writeFileSync(lockPathOf(path), 'not json');
    assert.equal(readLockHolder(path), null);
    openLedger(path).close();

    const remote = { ...stale, hostname: `${hostname()}-elsewhere` };
    writeFileSync(lockPathOf(path), JSON.stringify(remote));
    assert.throws(
      () => openLedger(path),
      (error: Error & { code?: string }) => error.code === 'LEDGER_LOCKED' && error.message.includes(remote.hostname) && error.message.includes(lockPathOf(path)),
    );
    assert.equal(readFileSync(lockPathOf(path), 'utf8'), JSON.stringify(remote), "another host's lock is never removed");
  });

  test('a live pid that started long after the lock was written is a reused pid, not the holder', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    // Our own process is alive but started long after this (made-up) lock time.
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: 1_000_000_000_000, command: 'old', token: 'x' }));
    const expected = process.platform === 'linux' ? 'no error' : 'LEDGER_LOCKED';
    assert.equal(codeOf(() => openLedger(path).close()), expected);
  });

  test('opening twice in one process is refused; close releases the lock for the next open', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    const first = openLedger(path);
    assert.throws(() => openLedger(path), (error: Error & { code?: string }) => error.code === 'LEDGER_LOCKED' && error.message.includes(`pid ${process.pid}`));
    first.close();
    const second = openLedger(path);
    second.close();
    assert.equal(existsSync(lockPathOf(path)), false);
  });

  test('a refused open (corrupt file) does not leave its lock behind', (t) => {
    const path = join(tempDir(t), 'ledger.db');
    writeFileSync(path, 'definitely not sqlite, long enough to have a header: '.repeat(4));
    assert.equal(codeOf(() => openLedger(path)), 'LEDGER_CORRUPT');
    assert.equal(existsSync(lockPathOf(path)), false);
  });
});
