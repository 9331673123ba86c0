import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const unifiedDiffModule = fileURLToPath(new URL('../../../dist/cli/output/unified-diff.js', import.meta.url));

/**
 * The diff `kbsync diff` prints for a file rewritten line by line (48 KB of short lines: the worst case of an
 * edit script, every line changed) is made in bounded memory: measured as the peak resident size of a process
 * that does only that. The hand-written diff this replaced peaked at 790 MB here.
 */
test('the unified diff of a rewritten 48 KB file stays under 150 MB', async () => {
  const script = `
    const { unifiedDiff } = await import(${JSON.stringify(unifiedDiffModule)});
    const text = (tag) => Array.from({ length: 4800 }, (_, i) => tag + ' ' + i).join('\\n') + '\\n';
    const patch = unifiedDiff(text('old'), text('new'), { from: 'a', to: 'b' });
    process.stdout.write(JSON.stringify({ bytes: text('old').length, lines: patch.split('\\n').length, maxRssKb: process.resourceUsage().maxRSS }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  const measured = JSON.parse(stdout) as { bytes: number; lines: number; maxRssKb: number };
  assert.ok(measured.bytes > 40_000, `the file is ${measured.bytes} bytes`);
  assert.ok(measured.lines > 9_600, 'every line is in the diff, removed and added');
  assert.ok(measured.maxRssKb < 150 * 1024, `peak resident size ${Math.round(measured.maxRssKb / 1024)} MB`);
});
