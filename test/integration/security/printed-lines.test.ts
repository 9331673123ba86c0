import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventOf, Notifier } from '../../../src/daemon/notify.js';
import { silentLogger } from '../../../src/log.js';
import type { ActionResult } from '../../../src/sync/run/executor.js';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { waitUntil } from '../daemon/daemon-process.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A file name, a title, a URL or the service's words are text someone else chose, and kbsync prints them
 * inside its own lines. A line break in one would print a line of its own that reads as kbsync's (a forged
 * "everything synced"); any other control character could steer the terminal. Every printer (the terminal's
 * lines, errors, log lines, GitHub annotations, the Markdown preview and job summary) shows each escaped, on
 * the line it belongs to. JSON output keeps the text exact (JSON escapes it by itself).
 */

const FORGED = '✓ FAKE: everything synced, 0 problems';
/** A file name anyone sharing the folder (a repository, a drive) may choose. */
const NAME = `a\n${FORGED}\r\x1b[2K.md`;
const SHOWN = 'a\\u000a✓ FAKE: everything synced, 0 problems\\u000d\\u001b[2K.md';

// eslint-disable-next-line no-control-regex -- raw control characters are what must not be printed
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What a run printed (and wrote for GitHub): never a line that starts with the forged text, nor a raw control character. */
function assertNoForgedLine(what: string, text: string): void {
  for (const line of text.split('\n')) {
    assert.ok(!line.trimStart().startsWith('✓ FAKE'), `${what} printed a forged line: ${JSON.stringify(text)}`);
    assert.doesNotMatch(line, RAW_CONTROL, `${what}: ${JSON.stringify(line)}`);
  }
}

const printed = (run: CliResult): string => `${run.stdout}\n${run.stderr}`;

describe('a file name with a line break prints no line of its own', () => {
  test('sync, status, diff, a dry run, resolve, GitHub annotations, the job summary and the Markdown preview', async () => {
    await withSyncFixture(async (f: SyncFixture) => {
      await f.write(NAME, '# Forged\n\nOne paragraph.\n');
      const runs: [string, CliResult][] = [];
      const run = async (what: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> => {
        const result = await f.cli(args, env);
        runs.push([what, result]);
        return result;
      };
      await run('diff', ['diff']);
      await run('sync --dry-run', ['sync', '--dry-run']);
      await run('diff --push --format markdown', ['diff', '--push', '--format', 'markdown']);
      const synced = await run('sync', ['sync']);
      assert.equal(synced.code, 0, printed(synced));
      assert.ok(synced.stdout.includes(`↑ ${SHOWN}`), `the name, escaped, on its own result line: ${synced.stdout}`);
      await run('status', ['status', '--all']);

      // A conflict on that file: both sides change the paragraph.
      const doc = f.remoteDoc('Forged');
      f.em.admin.editDocument(doc.dentryUuid, '# Forged\n\nTheirs \x1b]0;pwned\x07 changed it.\n');
      await f.write(NAME, '# Forged\n\nMine changed it, with a [broken link](missing.md).\n');
      const summary = join(f.dir, 'summary.md');
      await writeFile(summary, '');
      const conflicted = await run('sync --output-format github', ['sync', '--output-format', 'github'], { GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: f.dir });
      assert.equal(conflicted.code, 1, printed(conflicted));
      assert.match(conflicted.stdout, /^::warning file=notes\/a%0A✓ FAKE%3A everything synced%2C 0 problems%0D\\u001b\[2K\.md,line=3,col=25,title=LINK_BROKEN::/m, 'the annotation names the file in GitHub\'s own escapes');
      runs.push(['the job summary', { code: 0, signal: null, stdout: await readFile(summary, 'utf8'), stderr: '' }]);
      await run('status', ['status']);
      await run('resolve (the list)', ['resolve']);
      await run('resolve (a path no conflict has)', ['resolve', `b\n${FORGED}.md`, '--mine']);
      // Block by block, the answer piped in: the clash is shown with both versions' lines.
      const chosen = await runCli(['resolve', NAME, '--config', f.configPath], { cwd: f.dir, env: f.env, input: 'm\n' });
      runs.push(['resolve (block by block)', chosen]);
      assert.equal(chosen.code, 0, printed(chosen));
      assert.match(chosen.stdout, /Theirs \\u001b\\?\]0;pwned\\u0007 changed it\./, 'their words shown, the escape visible');

      for (const [what, result] of runs) assertNoForgedLine(what, printed(result));
      // JSON keeps the name exact.
      const json = await f.cli(['status', '--json']);
      assert.ok(json.stdout.includes(JSON.stringify(NAME).slice(1, -1)), json.stdout);
    });
  });
});

test("the notify command's KBSYNC_MESSAGE is one line; KBSYNC_PATH is the path exactly", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-notify-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'notified');
  const notifier = new Notifier({ command: `printf '%s' "$KBSYNC_MESSAGE" > "${out}.message"; printf '%s' "$KBSYNC_PATH" > "${out}.path"`, timeoutMs: 10_000 }, silentLogger, process.env);
  const event = eventOf({ ok: true, action: 'merge', path: NAME, result: 'conflict', detail: `both sides changed line 3 of ${NAME}`, conflictPath: 'x.conflict.md' } as ActionResult);
  assert.ok(event);
  notifier.notify(event);
  await waitUntil(async () => (await readFile(`${out}.path`, 'utf8').catch(() => '')) !== '', 'the notify command to run');
  const message = await readFile(`${out}.message`, 'utf8');
  assert.ok(!message.includes('\n') && message.includes(SHOWN), JSON.stringify(message));
  assert.equal(await readFile(`${out}.path`, 'utf8'), NAME);
});
