import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiffReport } from '../../../src/cli/commands/diff.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

const ALPHA = [
  '# Alpha',
  '',
  'Alpha is the first part of the guide. It says what the tool is for and who should read it.',
  '',
  '## Install',
  '',
  'Run the installer, then check the version it prints.',
  '',
  '```sh',
  'npm install --global alpha',
  'alpha --version',
  '```',
  '',
  '## Use',
  '',
  '- Start it in the folder you want to keep.',
  '- Stop it with Ctrl+C.',
  '',
  'That is all there is to it.',
  '',
].join('\n');

/** The rename's edit: one paragraph reworded and one added, as a refactoring commit does. */
const edited = (text: string): string => text.replace('That is all there is to it.', 'That is all there is to it, mostly.\n\nSee the next chapter for more.');

/** A fresh checkout: no ledger, the shared state alone. */
async function ciRun(f: SyncFixture, args: readonly string[] = []) {
  await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  return f.sync(['--push', ...args]);
}

/** A rename with an edit as a `git pull` or checkout lays it down: a new file (a new inode), the old one removed. */
async function checkout(f: SyncFixture, from: string, to: string, text: string): Promise<void> {
  await f.write(to, text);
  await f.remove(from);
}

/** What `kbsync diff` and `kbsync status` say a sync would do, file by file (the preview the run must match). */
async function previews(f: SyncFixture, who: string) {
  const flags = who.startsWith('a CI') ? ['--push'] : [];
  if (who.startsWith('a CI')) await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  const diff = await f.cli(['diff', '--json', ...flags]);
  assert.equal(diff.code, 0, diff.stderr);
  const status = await f.cli(['status', '--json', ...flags]);
  assert.equal(status.code, 0, status.stderr);
  return {
    diff: (JSON.parse(diff.stdout) as DiffReport).files.map((file) => [file.kind, file.path]),
    status: (JSON.parse(status.stdout) as StatusReport).files.filter((file) => file.action).map((file) => [file.action, file.path]),
  };
}

type Runner = (f: SyncFixture) => ReturnType<SyncFixture['sync']>;
const RUNNERS: readonly [string, Runner][] = [
  ['a workstation (ledger)', (f) => f.sync()],
  ['a CI checkout (no ledger)', (f) => ciRun(f)],
];

describe('a rename and an edit in one commit keep the document', () => {
  for (const [who, run] of RUNNERS) {
    const cases = [
      { where: 'same folder', to: 'docs/first.md', kind: 'rename', said: 'renamed, the body sent, the URL kept' },
      { where: 'to another folder', to: 'guide/alpha.md', kind: 'move', said: 'moved, the old document deleted' },
    ] as const;
    for (const { where, to, kind, said } of cases) {
      test(`${where}, ${who}: ${said}, no "(2)"`, async () => {
        await withSyncFixture(async (f) => {
          await f.write('docs/alpha.md', ALPHA);
          await f.write('docs/other.md', '# Other\n\nSomething else entirely, to be left alone.\n');
          assert.equal((await run(f)).code, 0);
          const before = f.remoteDoc('Alpha');
          await checkout(f, 'docs/alpha.md', to, edited(ALPHA));
          assert.deepEqual(await previews(f, who), { diff: [[kind, to]], status: [[kind, to]] });
          const synced = await run(f);
          assert.equal(synced.code, 0, `${synced.stdout}\n${synced.stderr}`);
          assert.deepEqual(synced.report?.planned.map((p) => [p.kind, p.path]), [[kind, to]]);
          const after = f.remoteDocs().filter((d) => d.title.startsWith('Alpha'));
          assert.deepEqual(after.map((d) => d.title), ['Alpha'], 'one document, its title kept');
          // The service cannot move a document: a move makes a new one (a new URL); a rename keeps it.
          assert.equal(after[0]?.dentryUuid === before.dentryUuid, kind === 'rename');
          assert.match(after[0]?.markdown ?? '', /See the next chapter/);
          assert.deepEqual((await run(f)).report?.planned, [], 'steady');
        });
      });
    }

    test(`same folder, rewritten past recognition, ${who}: a new document, titled as the old one was once it is deleted (no "(2)")`, async () => {
      await withSyncFixture(async (f) => {
        await f.write('docs/alpha.md', ALPHA);
        await f.write('docs/other.md', '# Other\n\nSomething else entirely, to be left alone.\n');
        await f.write('docs/third.md', '# Third\n\nA third file, so one delete stays under the guard.\n');
        assert.equal((await run(f)).code, 0);
        const before = f.remoteDoc('Alpha');
        await checkout(f, 'docs/alpha.md', 'docs/first.md', '# Alpha\n\nWritten anew: nothing of the old text is left.\n');
        const synced = await run(f);
        assert.equal(synced.code, 0, `${synced.stdout}\n${synced.stderr}`);
        assert.deepEqual(synced.report?.planned.map((p) => [p.kind, p.path]), [['delete-remote', 'docs/alpha.md'], ['create', 'docs/first.md']]);
        const after = f.remoteDocs().filter((d) => d.title.startsWith('Alpha'));
        assert.deepEqual(after.map((d) => d.title), ['Alpha'], 'the title the old document freed');
        assert.notEqual(after[0]?.dentryUuid, before.dentryUuid);
        assert.deepEqual((await run(f)).report?.planned, [], 'steady');
      });
    });
  }
});
