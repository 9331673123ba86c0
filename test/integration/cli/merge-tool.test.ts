import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clash, publishes } from '../../helpers/conflict.js';
import { ptyAvailable, runInPty } from '../../helpers/pty.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** The knowledge base's side (the conflict copy: their clashing blocks, your edit elsewhere), "theirs" made "agreed". */
const THEIRS_AGREED = '# Plan\n\nFirst, agreed.\n\nSecond, agreed.\n\nThird paragraph, mine only.\n';

/** A folder on PATH holding fake tools, and the environment that finds them first. */
async function fakeTools(f: SyncFixture, tools: Record<string, string>): Promise<Record<string, string>> {
  const bin = join(f.dir, 'bin');
  await mkdir(bin, { recursive: true });
  for (const [name, script] of Object.entries(tools)) await writeFile(join(bin, name), script, { mode: 0o755 });
  return { PATH: `${bin}:${process.env['PATH'] ?? ''}` };
}

/**
 * A fake meld: records each argument (and, for files, what they hold) into args.json, then writes the merge
 * (the knowledge base's side, "theirs" made "agreed") into the --output file, as meld does on save.
 */
const FAKE_MELD = `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const out = args.find((a) => a.startsWith('--output='))?.slice('--output='.length);
const files = args.map((a) => a.replace(/^--output=/, ''));
fs.writeFileSync(process.env.RECORD, JSON.stringify({ args, texts: files.map((file) => fs.readFileSync(file, 'utf8')), tty: Boolean(process.stdin.isTTY) }));
fs.writeFileSync(out, fs.readFileSync(files[3], 'utf8').replaceAll('theirs', 'agreed'));
`;

/** What resolve left in the state folder besides its own files: a leftover work folder would show here. */
const leftovers = async (f: SyncFixture): Promise<string[]> => (await readdir(join(f.root, '.kbsync'))).filter((name) => name.startsWith('resolve-'));

describe('kbsync resolve with a merge tool, the way git mergetool runs one', () => {
  test('--tool meld: a known name gets its four files in meld\'s order (--output MERGED, LOCAL, BASE, REMOTE); the merge is published; no work folder is left', async () => {
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const record = join(f.dir, 'args.json');
      const env = { ...(await fakeTools(f, { meld: FAKE_MELD })), RECORD: record };
      const run = await f.cli(['resolve', 'plan.md', '--tool', 'meld'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /plan\.md: settled \(tool\)/);
      const seen = JSON.parse(await readFile(record, 'utf8')) as { args: string[]; texts: string[] };
      assert.equal(seen.args.length, 4, 'four files');
      assert.match(seen.args[0] ?? '', /^--output=.*\/plan\.md$/);
      assert.deepEqual(seen.args.slice(1).map((arg) => arg.replace(/.*\//, '')), ['plan.LOCAL.md', 'plan.BASE.md', 'plan.REMOTE.md']);
      assert.deepEqual(seen.texts.slice(1), [
        '# Plan\n\nFirst, mine.\n\nSecond, mine.\n\nThird paragraph, mine only.\n',
        '# Plan\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n',
        '# Plan\n\nFirst, theirs.\n\nSecond, theirs.\n\nThird paragraph, mine only.\n',
      ]);
      assert.match(seen.texts[0] ?? '', /^<<<<<<< yours\nFirst, mine\.\n\nSecond, mine\.\n=======\nFirst, theirs\.\n\nSecond, theirs\.\n>>>>>>> theirs \(the knowledge base\)$/m, 'MERGED starts with each clash between markers, as git writes it');
      assert.equal(await f.exists(copy), false);
      assert.deepEqual(await leftovers(f), []);
      await publishes(f, THEIRS_AGREED);
    });
  });

  test('merge.tool (here KBSYNC_MERGE_TOOL) makes `kbsync resolve FILE` use it; the hint that lost the files ("meld $LOCAL…" in double quotes) still works', async () => {
    await withSyncFixture(async (f) => {
      await clash(f);
      const env = { ...(await fakeTools(f, { meld: FAKE_MELD })), RECORD: join(f.dir, 'args.json') };
      // --no-tool chooses block by block all the same (here: no answer, so nothing changes).
      const blockwise = await f.cli(['resolve', 'plan.md', '--no-tool'], { ...env, KBSYNC_MERGE_TOOL: 'meld' });
      assert.equal(blockwise.code, 2);
      assert.match(blockwise.stderr, /No answer for plan\.md, line 3.*\[RESOLVE_NO_ANSWER\]/s);
      // What a shell makes of --tool "meld $LOCAL $REMOTE $MERGED": the variables expanded to nothing.
      const run = await f.cli(['resolve', 'plan.md'], { ...env, KBSYNC_MERGE_TOOL: 'meld   ' });
      assert.equal(run.code, 0, run.stderr);
      await publishes(f, THEIRS_AGREED);
    });
  });

  test('a tool that leaves MERGED as it was settles nothing (not at a terminal: refused, with what to do); an unknown name is refused too', async () => {
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const untouched = await f.cli(['resolve', 'plan.md', '--tool', 'true "$MERGED"']);
      assert.equal(untouched.code, 2, untouched.stdout);
      assert.match(untouched.stderr, /plan\.md is not settled: the merge tool left the merged file as it was\. Nothing was changed\..*--mine or --theirs.*\[MERGE_TOOL_UNSETTLED\]/s);
      const markers = await f.cli(['resolve', 'plan.md', '--tool', 'touch "$MERGED"']);
      assert.equal(markers.code, 2);
      assert.match(markers.stderr, /the merged file still holds conflict markers \(line 3\).*\[MERGE_TOOL_UNSETTLED\]/s);
      const unknown = await f.cli(['resolve', 'plan.md', '--tool', 'nosuchmergetool']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /"nosuchmergetool" is not a tool kbsync knows, and the command names none of \$BASE, \$LOCAL, \$REMOTE, \$MERGED.*meld, vimdiff.*--tool 'mytool "\$LOCAL" "\$REMOTE" "\$MERGED"'.*\[MERGE_TOOL_FAILED\]/s);
      assert.equal(await f.exists(copy), true, 'the conflict is still open');
      assert.equal(await f.read('plan.md'), '# Plan\n\nFirst, mine.\n\nSecond, mine.\n\nThird paragraph, mine only.\n');
      assert.deepEqual(await leftovers(f), []);
    });
  });

  test('at a terminal: the tool gets the terminal itself (stdin and stdout are a TTY), and the access token is not in its environment', async (t) => {
    if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
    await withSyncFixture(async (f) => {
      await clash(f);
      const record = join(f.dir, 'args.json');
      const env = { ...(await fakeTools(f, { meld: FAKE_MELD.replace("tty: Boolean(process.stdin.isTTY)", 'tty: Boolean(process.stdin.isTTY && process.stdout.isTTY), token: process.env.KBSYNC_TOKEN ?? null') })), RECORD: record };
      const run = runInPty(['resolve', 'plan.md', '--tool', 'meld', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, ...env } });
      assert.equal(await run.done, 0, run.output());
      const seen = JSON.parse(await readFile(record, 'utf8')) as { tty: boolean; token: string | null };
      assert.deepEqual([seen.tty, seen.token], [true, null]);
    });
  });

  test('at a terminal, a tool that left MERGED as it was is asked about, as git asks; "n" settles nothing', async (t) => {
    if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const run = runInPty(['resolve', 'plan.md', '--tool', 'true "$MERGED"', '--config', f.configPath], { cwd: f.dir, env: f.env });
      for (let i = 0; i < 400 && !run.output().includes('Was the merge successful? [y/N]'); i += 1) await sleep(25);
      assert.match(run.output(), /plan\.md: the merge tool left the merged file as it was\. Was the merge successful\? \[y\/N\]/);
      run.type('n\r');
      assert.equal(await run.done, 2, run.output());
      assert.match(run.output(), /plan\.md is not settled: the merge tool left the merged file as it was/);
      assert.equal(await f.exists(copy), true);
      assert.deepEqual(await leftovers(f), []);
    });
  });

  test('Ctrl+C while the tool runs: the tool ends, nothing is settled, no work folder is left, exit 130', async (t) => {
    if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const started = join(f.dir, 'started');
      const run = runInPty(['resolve', 'plan.md', '--tool', `touch ${started}; sleep 60; echo merged > "$MERGED"`, '--config', f.configPath], { cwd: f.dir, env: f.env });
      for (let i = 0; i < 400 && !(await f.exists('../started')); i += 1) await sleep(25);
      assert.equal((await leftovers(f)).length, 1, 'the work folder exists while the tool runs');
      run.type('\x03');
      assert.equal(await run.done, 130, run.output());
      assert.match(run.output(), /plan\.md: not settled: the merge was stopped \(SIGINT\); nothing was changed\./);
      assert.deepEqual(await leftovers(f), []);
      assert.equal(await f.exists(copy), true);
    });
  });

  test('--tool vimdiff under a pseudo-terminal, vim driven by keys: vim gets the four files in git\'s layout, and the merge saved in MERGED settles the conflict', async (t) => {
    if (!ptyAvailable()) return t.skip('util-linux `script` is not installed');
    if (spawnSync('vim', ['--version'], { stdio: 'ignore' }).status !== 0) return t.skip('vim is not installed (the terminal attachment is tested with a fake tool above)');
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      // A home with no vimrc: vim as it starts for anyone.
      const home = join(f.dir, 'home');
      await mkdir(home);
      const run = runInPty(['resolve', 'plan.md', '--tool', 'vimdiff', '--config', f.configPath], { cwd: f.dir, env: { ...f.env, HOME: home, TERM: 'xterm' } });
      for (let i = 0; i < 400 && !run.output().includes('plan.REMOTE.md'); i += 1) await sleep(25);
      // The cursor is in MERGED (buffer 4, the bottom window): replace it with REMOTE (buffer 3), made "agreed".
      for (const keys of [':silent %d _\r', ':silent 0read #3\r', ':silent $d _\r', ':silent! %s/theirs/agreed/g\r', ':wqa\r']) {
        run.type(keys);
        await sleep(150);
      }
      assert.equal(await run.done, 0, run.output());
      assert.match(run.output(), /plan\.md: settled \(tool\)/);
      assert.equal(await f.exists(copy), false);
      assert.deepEqual(await leftovers(f), []);
      await publishes(f, THEIRS_AGREED);
    });
  });
});
