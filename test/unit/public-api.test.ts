import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as kbsync from '../../src/index.js';
import * as emulator from '../../src/emulator/index.js';

test('the package entry exposes the engine pieces, and keeps the emulator out of it', () => {
  for (const name of ['runSync', 'plan', 'resolveLink', 'createLinker', 'KbClient', 'RequestQueue', 'openLedger', 'loadConfig', 'merge3', 'scanLocal', 'runDaemon', 'KbsyncError']) {
    assert.equal(typeof (kbsync as Record<string, unknown>)[name], 'function', name);
  }
  assert.equal((kbsync as Record<string, unknown>)['startEmulator'], undefined);
  assert.equal(typeof emulator.startEmulator, 'function');
});
