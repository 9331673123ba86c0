import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../helpers/cli.js';

test('kbsync --help describes the program and exits 0', async () => {
  const result = await runCli(['--help']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Usage: kbsync/);
  assert.match(result.stdout, /knowledge base/);
});

test('an unknown command is a usage error (exit 2), not a crash', async () => {
  const result = await runCli(['no-such-command']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--help/);
});
