import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { eventWords } from '../../../src/daemon/event-words.js';
import { resultLine } from '../../../src/cli/output/sync-output.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { convergenceProblems, isConflictCopy, localFiles } from '../../helpers/reliability.js';

/**
 * What kbsync says of work a killed run left half done (issue 44, "notices that are true"). Each row makes one
 * change to a synced folder, runs `kbsync sync` killed at a crash point (SIGKILL there), makes the row's later
 * edits, and runs again. Across the two runs, each file is said at most once, as what happened to it: no "merged"
 * without an edit on each side, no "sent" of nothing, no conflict where there is none, nothing said by the killed
 * run and again by the one that finishes its work. The one-shot run's lines (the killed run's as printed, the
 * rerun's from its report) and the daemon's words for the rerun's results (event-words.ts) are both checked.
 */

type Row = {
  readonly name: string;
  readonly point: string;
  readonly args?: readonly string[];
  /** The change the killed run is to carry out (the folder holds p.md and five notes under keep/, synced). */
  readonly change: (f: SyncFixture) => Promise<void>;
  /** Edits made after the kill, before the rerun. */
  readonly then?: (f: SyncFixture) => Promise<void>;
  /** Every file line printed by both runs, symbol and path (the detail after them is not compared). */
  readonly said: readonly string[];
  /** The daemon's words for the rerun's line of this file, when it has one. */
  readonly words?: { readonly path: string; readonly are: RegExp };
  /** What `kbsync status` says of the file between the runs: its state, and what a sync would do. */
  readonly status?: { readonly path: string; readonly state: string; readonly action: string };
  /** Words that must be in the file (or, with `gone`, the file that must not be there) after the rerun. */
  readonly file?: { readonly path: string; readonly has: readonly string[] } | { readonly gone: string };
};

const P = '# P\n\nOne of p.\n\nTwo of p.\n\nThree of p.\n';

/** A colleague's edit of P in the web editor, replacing `from` with `to`. */
const theirs = (from: string, to: string) => async (f: SyncFixture) => {
  const doc = f.remoteDoc('P');
  f.em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace(from, to));
};
const mine = (from: string, to: string) => async (f: SyncFixture) => f.write('p.md', (await f.read('p.md')).replace(from, to));
const both =
  (...edits: readonly ((f: SyncFixture) => Promise<void>)[]) =>
  async (f: SyncFixture) => {
    for (const edit of edits) await edit(f);
  };
const moveInto = (folder: string) => async (f: SyncFixture) => {
  await mkdir(join(f.root, folder));
  await rename(join(f.root, 'p.md'), join(f.root, folder, 'p.md'));
};
const edited = theirs('Two of p.', 'Two of p, edited.');
const PULLED = /^pulled from the knowledge base/;

const ROWS: readonly Row[] = [
  // The pull wrote the file and was killed before its record: the file holds only what kbsync wrote there.
  {
    name: 'a pull killed after its file write',
    point: 'after-local-write',
    change: edited,
    said: ['↓ p.md'],
    words: { path: 'p.md', are: PULLED },
    // Not "diverged": the file's change is kbsync's own.
    status: { path: 'p.md', state: 'remote-changed', action: 'pull' },
    file: { path: 'p.md', has: ['Two of p, edited.'] },
  },
  { name: 'a pull killed after its file write, before its record', point: 'before-ledger-commit', change: edited, said: ['↓ p.md'], words: { path: 'p.md', are: PULLED } },
  { name: 'a pull killed before its file write', point: 'mid-pull', change: edited, said: ['↓ p.md'], words: { path: 'p.md', are: PULLED } },
  { name: 'a pull killed after its record, before the publish', point: 'before-publish', change: edited, said: ['↓ p.md'] },
  {
    name: 'a pull killed after its file write, then the user edits another paragraph',
    point: 'after-local-write',
    change: edited,
    then: mine('Three of p.', 'Three of p, mine.'),
    said: ['⇅ p.md'],
    status: { path: 'p.md', state: 'diverged', action: 'merge' },
    words: { path: 'p.md', are: /^merged: your edits and those made in the knowledge base/ },
    file: { path: 'p.md', has: ['Two of p, edited.', 'Three of p, mine.'] },
  },
  {
    name: 'a pull killed after its file write, then the colleague edits the same paragraph again',
    point: 'after-local-write',
    change: edited,
    then: theirs('Two of p, edited.', 'Two of p, edited again.'),
    said: ['↓ p.md'],
    words: { path: 'p.md', are: PULLED },
    file: { path: 'p.md', has: ['Two of p, edited again.'] },
  },
  {
    name: 'a pull of a new document killed after its file write',
    point: 'after-local-write',
    change: async (f) => void f.em.admin.createDocument({ name: 'New', markdown: '# New\n\nFresh.\n' }),
    said: ['↓ New.md'],
    words: { path: 'New.md', are: PULLED },
  },
  // The write landed, and the killed run said nothing: the run that records it says it sent, once (landed-write-said.test.ts).
  { name: 'a push killed after its write', point: 'after-overwrite', change: mine('Two of p.', 'Two of p, mine.'), said: ['↑ p.md'], words: { path: 'p.md', are: /^sent to the knowledge base/ } },
  { name: 'a push killed before its write', point: 'after-intent', change: mine('Two of p.', 'Two of p, mine.'), said: ['↑ p.md'], words: { path: 'p.md', are: /^sent to the knowledge base/ } },
  { name: 'a push killed after its record, before the publish', point: 'before-publish', change: mine('Two of p.', 'Two of p, mine.'), said: ['↑ p.md'] },
  // A create whose answer the kill lost: its document is found again (by title) and filled, never made twice.
  { name: "a new file's create killed after its document was made", point: 'after-create', change: (f) => f.write('n.md', '# N\n\nNew here.\n'), said: ['↑ n.md'], words: { path: 'n.md', are: /^sent to the knowledge base/ } },
  {
    name: 'a merge killed after its file write',
    point: 'after-local-write',
    // The colleague's edit is read as plain text: without --force the merge's write would wait for a word (FLATTEN).
    args: ['--force'],
    change: both(theirs('Two of p.', 'Two of p, theirs.'), mine('Three of p.', 'Three of p, mine.')),
    said: ['⇅ p.md'],
    words: { path: 'p.md', are: /^merged: / },
    file: { path: 'p.md', has: ['Two of p, theirs.', 'Three of p, mine.'] },
  },
  {
    name: "a delete of a file's document killed before its record",
    point: 'before-ledger-commit',
    change: (f) => f.remove('p.md'),
    said: ['↑ p.md'],
    words: { path: 'p.md', are: /^deleted here, so its document was deleted in the knowledge base/ },
  },
  {
    name: 'a trash of a file whose document was deleted, killed before its record',
    point: 'before-ledger-commit',
    change: async (f) => f.em.admin.deleteNode(f.remoteDoc('P').dentryUuid),
    said: ['↓ p.md'],
    words: { path: 'p.md', are: /^deleted in the knowledge base; the file was moved to .*trash/ },
    file: { gone: 'p.md' },
  },
  { name: 'a move into a folder killed after its new document was made', point: 'after-create', change: moveInto('sub'), said: ['↑ sub/p.md'], words: { path: 'sub/p.md', are: /^moved from p\.md/ } },
  { name: 'a move into a folder killed before its record', point: 'before-ledger-commit', change: moveInto('sub'), said: ['↑ sub/p.md'], words: { path: 'sub/p.md', are: /^moved from p\.md/ } },
  // A rename in the same folder changes only the record (no intent, no step to be killed in): killed after it, before the publish.
  { name: 'a rename killed after it was said, before the publish', point: 'before-publish', change: (f) => rename(join(f.root, 'p.md'), join(f.root, 'q.md')), said: ['= q.md'] },
  {
    name: 'a move of the document in the knowledge base, killed before its record',
    point: 'before-ledger-commit',
    change: async (f) => {
      const keep = f.em.admin.dump().nodes.find((node) => node.docType === 'FOLDER' && node.title === 'keep');
      assert.ok(keep);
      f.em.admin.moveNode(f.remoteDoc('P').dentryUuid, keep.dentryUuid);
    },
    said: ['↓ keep/p.md'],
    words: { path: 'keep/p.md', are: /^moved from p\.md, as its document was moved in the knowledge base/ },
  },
];

/** A printed file line reduced to its symbol and path. */
const gist = (line: string): string => line.split(' ').slice(0, 2).join(' ');

for (const row of ROWS) {
  test(`said once and truly: ${row.name}`, async () => {
    await withSyncFixture(async (f) => {
      await f.write('p.md', P);
      for (const n of [1, 2, 3, 4, 5]) await f.write(`keep/k${n}.md`, `# K${n}\n\nKept ${n}.\n`);
      assert.equal((await f.sync()).code, 0);
      // Two minutes on, the first writes are read back (their minute is over): after that sync, nothing is left to
      // check, so the killed run's one step with an intent is the row's own, whatever the minute of the clock.
      f.em.admin.setClockOffset(2 * 60_000);
      assert.equal((await f.sync()).code, 0);
      assert.deepEqual((await f.sync()).report?.planned, [], 'the folder is steady before the change');
      await row.change(f);
      const killed = await f.cli(['sync', ...(row.args ?? [])], { KBSYNC_CRASH_AT: row.point });
      assert.equal(killed.signal, 'SIGKILL', `the run reached ${row.point}: ${killed.stdout} ${killed.stderr}`);
      await row.then?.(f);
      if (row.status) {
        const { files } = JSON.parse((await f.cli(['status', '--json'])).stdout) as StatusReport;
        const file = files.find((status) => status.path === row.status?.path);
        assert.deepEqual({ path: file?.path, state: file?.state, action: file?.action }, row.status);
      }
      const rerun = await f.sync(row.args ?? []);
      assert.equal(rerun.code, 0, `${rerun.stderr} ${JSON.stringify(rerun.report?.results)}`);
      const results = rerun.report?.results ?? [];
      const lines = [...killed.stdout.split('\n').filter((line) => /^[↑↓⇅!…=·✗] /.test(line)), ...results.flatMap((result) => resultLine(result) ?? [])];
      assert.deepEqual(lines.map(gist), row.said, `every line said: ${lines.join('\n')}`);
      if (row.words) {
        const result = results.find((r) => r.path === row.words?.path);
        assert.ok(result?.ok, JSON.stringify(results));
        assert.match(eventWords(result) ?? '', row.words.are);
      }
      if (row.file && 'has' in row.file) for (const words of row.file.has) assert.ok((await f.read(row.file.path)).includes(words), `${row.file.path} has "${words}"`);
      if (row.file && 'gone' in row.file) assert.equal(await f.exists(row.file.gone), false);
      assert.deepEqual([...(await localFiles(f.root)).keys()].filter(isConflictCopy), [], 'no conflict copy');
      assert.deepEqual(await convergenceProblems(f), []);
      const steady = await f.sync(row.args ?? []);
      assert.deepEqual(steady.report?.results.flatMap((result) => resultLine(result) ?? []), [], 'nothing more to say');
    });
  });
}
