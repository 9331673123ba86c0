import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { kbsyncBin, runCli } from '../../helpers/cli.js';
import type { EmulatorSeed } from '../../../src/emulator/index.js';

// Runs the built CLI (npm test builds first; locally: npx tsc -p tsconfig.build.json).
test('kbsync emulator --port 0 --json prints exactly one JSON line, serves, and stops cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, [kbsyncBin, 'emulator', '--port', '0', '--json', '--seed', '3'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  reader.on('line', (line) => lines.push(line));
  try {
    while (lines.length === 0) {
      await Promise.race([once(reader, 'line'), once(child, 'exit').then(() => assert.fail(`emulator exited early: ${stderr}`))]);
    }
    const seed = JSON.parse(lines[0] ?? '') as EmulatorSeed;
    assert.match(seed.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(seed.token && seed.readOnlyToken && seed.operatorId && seed.userId && seed.workspaceId && seed.rootNodeId);
    const r = await fetch(`${seed.baseUrl}/v2.0/wiki/workspaces?operatorId=${seed.operatorId}`, { headers: { [seed.tokenHeader]: seed.token } });
    assert.equal(r.status, 200);
    assert.ok(((await r.json()) as { workspaces: unknown[] }).workspaces.length >= 2);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, stderr);
    assert.equal(lines.length, 1, `only one line on stdout: ${lines.join('\n')}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('kbsync emulator with a bad option or fault spec exits 2 with a message naming it', async () => {
  const port = await runCli(['emulator', '--port', 'abc']);
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--port/);
  const faults = await runCli(['emulator', '--faults', 'bogus=1']);
  assert.equal(faults.code, 2);
  assert.match(faults.stderr, /bogus/);
});
