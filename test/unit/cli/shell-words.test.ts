import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { findProgram } from '../../../src/shell/find-program.js';
import { shellLine, shellQuote } from '../../../src/shell/quote.js';
import { kbsyncEntry, selfCommand } from '../../../src/shell/self-command.js';

test('shellQuote: the shell reads back exactly the word, whatever it holds', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 12 }).filter((s) => !s.includes('\0')), { minLength: 1, maxLength: 4 }), (words) => {
      const out = execFileSync('/bin/sh', ['-c', `for w in ${shellLine(words)}; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
      assert.deepEqual(out.split('\0').slice(0, -1), words);
    }),
    { numRuns: 40 },
  );
  assert.equal(shellQuote('notes/plan.md'), 'notes/plan.md');
  assert.equal(shellQuote('meld "$LOCAL"'), `'meld "$LOCAL"'`);
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
});

test('findProgram finds an executable on PATH like command -v, and skips what is not executable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-path-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'tool'), '#!/bin/sh\n');
  await writeFile(join(dir, 'plain'), 'not a program');
  await chmod(join(dir, 'tool'), 0o755);
  assert.equal(findProgram('tool', { PATH: `/nonexistent:${dir}` }), join(dir, 'tool'));
  assert.equal(findProgram('plain', { PATH: dir }), undefined);
  assert.equal(findProgram('tool', { PATH: '' }), undefined);
});

test('selfCommand: plain kbsync only when that name on PATH is this copy, else node and this entry point (never npx)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-self-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(selfCommand({ PATH: dir }), shellLine([process.execPath, kbsyncEntry()]));
  await symlink(kbsyncEntry(), join(dir, 'kbsync'));
  assert.equal(selfCommand({ PATH: dir }), 'kbsync');
  const other = await mkdtemp(join(tmpdir(), 'kbsync-other-'));
  t.after(() => rm(other, { recursive: true, force: true }));
  await writeFile(join(other, 'kbsync'), '#!/bin/sh\necho an unrelated kbsync\n', { mode: 0o755 });
  assert.equal(selfCommand({ PATH: other }), shellLine([process.execPath, kbsyncEntry()]));
});
