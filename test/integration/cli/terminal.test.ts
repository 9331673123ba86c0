import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../../helpers/cli.js';
import { gateProxy } from '../../helpers/gate-proxy.js';
import { ptyAvailable, runInPty, screen } from '../../helpers/pty.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

const FILES = 10;
const SGR = /\x1b\[[0-9;]*m/; // eslint-disable-line no-control-regex -- colour codes are what is looked for
const ESC = /\x1b/; // eslint-disable-line no-control-regex -- any escape sequence

async function writeNotes(f: SyncFixture, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await f.write(`n${String(i).padStart(2, '0')}.md`, `# Note ${i}\n\nBody ${i}.\n`);
}

/**
 * Documents whose body is written: new documents are all created first (their creation ids go to the shared
 * state in one append before any body is sent), so streaming shows in the bodies, not in the creates.
 */
const written = (f: SyncFixture): number => f.remoteDocs().filter((doc) => (doc.markdown ?? '') !== '').length;

/**
 * Waits until `ready` holds, polling: the tests look at the run while it works. Up to two minutes, a guard against
 * a hang only: at load 25 on 2 cores the first file line of a run came after the 30 s this once allowed.
 */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 4800 && !ready(); i += 1) await sleep(25);
  assert.ok(ready(), `timed out waiting for ${what}`);
}

/** A misspelt KBSYNC_ variable: a warning logged at the start of every command (deterministic, unlike a retry). */
const UNKNOWN_VARIABLE = { KBSYNC_COLOUR: 'yes' };

test('at a terminal: a line per file as it finishes, retry warnings in the middle overwrite nothing, and no status line is left behind', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(
    async (f) => {
      await writeNotes(f, FILES);
      const run = runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env: f.env });
      // Streaming: the first file's line is on screen while most documents are still to be written.
      await until(() => /↑ n\d\d\.md/.test(run.output()), 'the first file line');
      assert.ok(written(f) < FILES, `the first line came after ${written(f)} of ${FILES} documents were written`);
      assert.equal(await run.done, 0, run.output());

      assert.match(run.output(), /listing the knowledge base: \d+ of/, 'a phase line while the knowledge base is listed');
      assert.match(run.output(), new RegExp(`syncing \\[[█░]+\\] \\d+/${FILES} files`), 'a bar counting files');
      const { lines, unexpected } = screen(run.output());
      assert.deepEqual(unexpected, [], 'only carriage return and erase-line move the cursor');
      assert.deepEqual(lines.filter((line) => /^↑ /.test(line)).sort(), Array.from({ length: FILES }, (_, i) => `↑ n${String(i).padStart(2, '0')}.md`));
      const warnings = lines.filter((line) => line.includes('retrying it'));
      assert.equal(warnings.length, 1, 'the emulator made the service fail some writes: the first retry is said, the others at debug');
      assert.match(warnings[0] ?? '', /^\[\d\d:\d\d:\d\d\] WARN: the service failed a request \(.+\); retrying it \(further retries are logged at debug level\)$/, 'a whole line, not drawn over the bar');
      assert.ok(f.em.admin.calls().faultsByKind.error5xx > 1, 'more than one write failed');
      assert.ok(!lines.some((line) => /syncing \[|listing the knowledge base|scanning the folder/.test(line)), `no status line is left on screen:\n${lines.join('\n')}`);
      assert.match(lines.at(-1) ?? '', new RegExp(`^Synced: ${FILES} pushed; \\d+ API call\\(s\\) in [\\d.]+ s\\.$`));
    },
    // listNodes is slowed too, so the listing lasts longer than the status line's redraw interval and is shown.
    { emulator: { faults: '5xx=0.3,latency=60,only=overwriteContent|listNodes,seed=5' } },
  );
});

test('piped: file lines come out as each file finishes, with no escape sequence on either stream', async () => {
  await withSyncFixture(
    async (f) => {
      await writeNotes(f, FILES);
      let docsAtFirstLine: number | undefined;
      const run = await runCli(['sync', '--config', f.configPath], {
        cwd: f.dir,
        env: f.env,
        onSpawn: (child) =>
          child.stdout?.once('data', () => {
            docsAtFirstLine = written(f);
          }),
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(docsAtFirstLine !== undefined && docsAtFirstLine < FILES, `the first line came after ${docsAtFirstLine} of ${FILES} documents were written`);
      assert.doesNotMatch(run.stdout + run.stderr, ESC);
      assert.equal(run.stdout.split('\n').filter((line) => line.startsWith('↑ ')).length, FILES);
    },
    { emulator: { faults: 'latency=60,only=overwriteContent' } },
  );
});

test('colour: log lines at a terminal are coloured, and not with NO_COLOR=1 or --no-color', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(async (f) => {
    await f.write('a.md', '# A\n');
    const env = { ...f.env, ...UNKNOWN_VARIABLE };
    // One after the other: two syncs of one folder at once would find the ledger locked.
    const runs = {
      default: () => runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env }),
      NO_COLOR: () => runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env: { ...env, NO_COLOR: '1' } }),
      '--no-color': () => runInPty(['sync', '--no-color', '--config', f.configPath], { cwd: f.dir, env }),
    };
    for (const [name, start] of Object.entries(runs)) {
      const run = start();
      assert.equal(await run.done, 0, `${name}: ${run.output()}`);
      assert.match(run.output(), /WARN.*KBSYNC_COLOUR is not a kbsync option/, `${name}: the unknown variable is warned about`);
      if (name === 'default') assert.match(run.output(), SGR, 'colour by default at a terminal');
      else assert.doesNotMatch(run.output(), SGR, `${name}: no colour`);
    }
  });
});

test('Ctrl+C at a terminal: the lines of the files done so far, the stop, a summary, exit 130; a second Ctrl+C still says what was done', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(
    async (f) => {
      await writeNotes(f, 30);
      const once = runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env: f.env });
      await until(() => f.remoteDocs().length >= 3, 'a few documents');
      once.type('\x03');
      assert.equal(await once.done, 130, once.output());
      const first = screen(once.output());
      assert.deepEqual(first.unexpected, []);
      assert.ok(first.lines.some((line) => line.startsWith('kbsync: SIGINT: finishing the work under way')));
      const pushed = first.lines.filter((line) => line.startsWith('↑ ')).length;
      assert.equal(pushed, f.remoteDocs().length, 'a line for every document made, no more');
      assert.match(first.lines.at(-1) ?? '', new RegExp(`^Stopped by Ctrl\\+C \\(exit 130\\): ${pushed} pushed; the next sync does the rest;`));

      // Once the first stop is typed, the run's calls wait at a proxy until its process has gone: the work under way
      // cannot be finished (and the summary said) before the second Ctrl+C, however busy the machine. Without it,
      // a loaded machine finished first, and the second ^C's echo came after the summary (issue 48).
      let holding = false;
      let gone!: () => void;
      const exited = new Promise<void>((resolve) => (gone = resolve));
      const proxy = await gateProxy(f.em.seed.baseUrl, {
        before: async () => {
          if (!holding) return;
          await exited;
          return { status: 503, body: '{}' };
        },
      });
      const twice = runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, KBSYNC_SERVICE_BASE_URL: proxy.baseUrl } });
      try {
        const before = f.remoteDocs().length;
        await until(() => f.remoteDocs().length >= before + 2, 'a few more documents');
        holding = true;
        twice.type('\x03');
        await until(() => twice.output().includes('SIGINT: finishing'), 'the first stop to be said');
        twice.type('\x03');
        assert.equal(await twice.done, 130, twice.output());
      } finally {
        gone();
        await proxy.close();
      }
      const second = screen(twice.output());
      assert.ok(![...first.lines, ...second.lines].some((line) => /\^C\S/.test(line)), 'the terminal\'s ^C echo is not glued to a line');
      assert.match(second.lines.at(-1) ?? '', /^Stopped by Ctrl\+C \(exit 130\): .+; the next sync does the rest;/);

      const rest = await f.sync();
      assert.equal(rest.code, 0, rest.stderr);
      assert.equal(f.remoteDocs().length, 30, 'the next sync did the rest, without duplicates');
    },
    { emulator: { faults: 'latency=150,only=createDocument' } },
  );
});

test('a terminal with stdout sent to a file: the status line stays on the terminal, the file gets only the lines', async (t) => {
  if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
  await withSyncFixture(async (f) => {
    await writeNotes(f, 3);
    const file = join(f.dir, 'out.txt');
    const run = runInPty(['sync', '--config', f.configPath], { cwd: f.dir, env: f.env, stdoutFile: file });
    assert.equal(await run.done, 0, run.output());
    const out = await readFile(file, 'utf8');
    assert.doesNotMatch(out, ESC);
    assert.deepEqual(out.trim().split('\n').slice(0, 3).sort(), ['↑ n00.md', '↑ n01.md', '↑ n02.md']);
    assert.match(out, /^Synced: 3 pushed;/m);
  });
});
