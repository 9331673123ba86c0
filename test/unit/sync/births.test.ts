import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Births } from '../../../src/sync/run/births.js';

const settled = async (promise: Promise<void> | undefined): Promise<boolean> => {
  if (!promise) return true;
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('a body waits only for the documents this run creates, and only until they are born', async () => {
  const births = new Births(['a.md', 'b.md']);
  assert.equal(births.awaited(['old.md', 'elsewhere.md']), undefined, 'nothing of this run: no wait');
  const both = births.awaited(['a.md', 'b.md', 'old.md']);
  assert.ok(both);
  births.born('a.md');
  assert.equal(await settled(both), false, 'b.md is not born yet');
  births.born('b.md');
  births.born('b.md');
  assert.equal(await settled(both), true);
  // Born already (a link to itself, made a moment ago): decided again at once, so there is still a promise.
  const self = births.awaited(['a.md']);
  assert.ok(self);
  assert.equal(await settled(self), true);
});
