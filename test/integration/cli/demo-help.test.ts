import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../helpers/cli.js';

test('demo runs to completion without a terminal: both edits arrive, URLs printed, exit 0', async () => {
  const result = await runCli(['demo', '--no-open'], { timeoutMs: 60_000, env: { KBSYNC_TOKEN: 'a-real-token-must-not-matter', KBSYNC_WORKSPACE_ID: 'not-the-demo' } });
  assert.equal(result.signal, null, 'it ended by itself');
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /1\. First sync/);
  assert.match(result.stdout, /↑ guides\/release-checklist\.md/);
  assert.match(result.stdout, /3\. Second sync/);
  assert.match(result.stdout, /↓ guides\/release-checklist\.md/);
  assert.match(result.stdout, /↑ welcome\.md/);
  assert.match(result.stdout, /\+ - Write the release notes/);
  assert.match(result.stdout, /workspace\s+http:\/\/127\.0\.0\.1:\d+\/i\/spaces\/\w+/);
  assert.match(result.stdout, /welcome\.md\s+http:\/\/127\.0\.0\.1:\d+\/i\/nodes\/\w+/);
  assert.match(result.stdout, /Not at a terminal/);
  // The hint runs this very kbsync: `npx kbsync` elsewhere would fetch whatever package has that name.
  assert.doesNotMatch(result.stdout, /npx kbsync/);
  assert.match(result.stdout, /Next: `(kbsync|\S*node\S* \S*bin\/kbsync\.js) emulator`/);
});

test('every command has --help with Examples', async () => {
  const top = await runCli(['--help']);
  const names = [...top.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1] as string).filter((name) => name !== 'help');
  for (const expected of ['init', 'sync', 'status', 'diff', 'search', 'clone', 'workspaces', 'doctor', 'demo', 'emulator', 'state', 'resolve', 'watch']) assert.ok(names.includes(expected), `${expected} is listed`);
  const helps = await Promise.all(names.map((name) => runCli([name, '--help'])));
  helps.forEach((result, i) => {
    assert.equal(result.code, 0, `${names[i]} --help`);
    assert.match(result.stdout, /Examples:/, `${names[i]} --help has examples`);
  });
});
