import { test } from 'node:test';
import assert from 'node:assert/strict';
import { held, holdStands, type HeldCode, type HeldState } from '../../../src/sync/decide/held.js';

/** Which holds still stand for what a run observes, so it reads nothing of the document: one row per situation. */
const state = (code: HeldCode): HeldState => ({ ...held(code), localHash: 'h1', remoteModifiedTime: '2026-11-02T09:03:00Z' });

const ROWS: readonly (readonly [string, HeldState | null, string, string | undefined, boolean])[] = [
  ['nothing held', null, 'h1', undefined, false],
  ['a hold, nothing changed, nothing listed', state('FLATTEN'), 'h1', undefined, true],
  ['a hold, nothing changed, listed at its time', state('FLATTEN'), 'h1', '2026-11-02T09:03:00Z', true],
  ['a hold, the file saved since', state('FLATTEN'), 'h2', undefined, false],
  ['a hold, the document later', state('FLATTEN'), 'h1', '2026-11-02T09:04:00Z', false],
  ['an open conflict: its copy decides', state('CONFLICT_OPEN'), 'h1', undefined, false],
  ['a waiting delete: the daemon decides', state('DELETE_WAITING'), 'h1', undefined, false],
  // A wait for another machine's first body ends as its two minutes pass, with no change to see: a listing decides it.
  ['a body coming, nothing listed', state('BODY_COMING'), 'h1', undefined, true],
  ['a body coming, listed at its time', state('BODY_COMING'), 'h1', '2026-11-02T09:03:00Z', false],
  // A push alone held for a remote edit: the run that lists (two-way, pull) is the one it asks for, and merges.
  ['a push held for a remote edit, pushed again', state('REMOTE_EDITED'), 'h1', undefined, true],
  ['a push held for a remote edit, listed at its time', state('REMOTE_EDITED'), 'h1', '2026-11-02T09:03:00Z', false],
];

for (const [situation, standing, localHash, listed, stands] of ROWS) {
  test(`holdStands: ${situation}`, () => {
    assert.equal(holdStands(standing, localHash, listed), stands);
  });
}
