import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import { clash, publishes } from '../../helpers/conflict.js';

describe('kbsync resolve', () => {
  test('lists open conflicts with the clashing lines (and as JSON); --theirs takes the knowledge base\'s blocks and keeps your other edits', async () => {
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const listed = await f.cli(['resolve']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`plan\\.md  \\(the knowledge base's version: ${copy.replace(/\./g, '\\.')}\\)`));
      assert.match(listed.stdout, /line 3: yours and theirs differ/);
      const status = await f.cli(['status', '--offline']);
      assert.match(status.stdout, new RegExp(`plan\\.md.*line 3 clashes; the knowledge base's version is in ${copy.replace(/\./g, '\\.')}; run \`kbsync resolve plan\\.md\``), status.stdout);
      const json = JSON.parse((await f.cli(['resolve', '--json'])).stdout) as ResolveReport;
      assert.deepEqual(json.conflicts[0]?.clashes[0], { line: 3, base: 'First paragraph.\n\nSecond paragraph.', mine: 'First, mine.\n\nSecond, mine.', theirs: 'First, theirs.\n\nSecond, theirs.' });

      const settled = await f.cli(['resolve', 'plan.md', '--theirs']);
      assert.equal(settled.code, 0, settled.stderr);
      assert.equal(await f.exists(copy), false, 'the copy is removed');
      await publishes(f, '# Plan\n\nFirst, theirs.\n\nSecond, theirs.\n\nThird paragraph, mine only.\n');
    });
  });

  test('--mine keeps your file and publishes it', async () => {
    await withSyncFixture(async (f) => {
      await clash(f);
      assert.equal((await f.cli(['resolve', 'plan.md', '--mine'])).code, 0);
      await publishes(f, '# Plan\n\nFirst, mine.\n\nSecond, mine.\n\nThird paragraph, mine only.\n');
    });
  });

  test('block by block, with the answers piped in', async () => {
    await withSyncFixture(async (f) => {
      await clash(f);
      const run = await runCli(['resolve', 'plan.md', '--config', f.configPath], { cwd: f.dir, env: f.env, input: 'x\nb\n' });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /--- yours\nFirst, mine\.\n\nSecond, mine\.\n--- theirs \(the knowledge base\)\nFirst, theirs\./);
      assert.match(run.stdout, /Keep \[m\]ine, \[t\]heirs or \[b\]oth\? Keep/, 'an unknown answer is asked again');
      await publishes(f, '# Plan\n\nFirst, mine.\n\nSecond, mine.\n\nFirst, theirs.\n\nSecond, theirs.\n\nThird paragraph, mine only.\n');
    });
  });

  test('with no answer nothing changes; a merge tool gets $BASE $LOCAL $REMOTE $MERGED', async () => {
    await withSyncFixture(async (f) => {
      const copy = await clash(f);
      const unanswered = await runCli(['resolve', 'plan.md', '--config', f.configPath], { cwd: f.dir, env: f.env, input: '' });
      assert.equal(unanswered.code, 2);
      assert.match(unanswered.stderr, /No answer for plan\.md, line 3: nothing was changed.*RESOLVE_NO_ANSWER/s);
      assert.equal(await f.exists(copy), true);

      const tool = join(f.dir, 'tool.sh');
      await writeFile(tool, '#!/bin/sh\ngrep -q "First paragraph" "$BASE" && sed "s/theirs/agreed/" "$REMOTE" > "$MERGED"\n', { mode: 0o755 });
      const merged = await f.cli(['resolve', 'plan.md', '--tool', `${tool} "$BASE" "$LOCAL" "$REMOTE" "$MERGED"`]);
      assert.equal(merged.code, 0, merged.stderr);
      await publishes(f, '# Plan\n\nFirst, agreed.\n\nSecond, agreed.\n\nThird paragraph, mine only.\n');

      const failing = await f.cli(['resolve', 'plan.md', '--tool', 'false']);
      assert.equal(failing.code, 2);
      assert.match(failing.stderr, /has no open conflict/);
    });
  });
});
