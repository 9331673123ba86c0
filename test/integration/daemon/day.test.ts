import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, rename, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { firstSweepDone, startDaemon, waitUntil, type Daemon } from './daemon-process.js';

/** Lines a person reads at the default level (info and above), from `from` on. */
const said = (d: Daemon, from: number): string[] => d.logs.slice(from).filter((line) => line.level >= 30).map((line) => line.msg);

/** Two full cycles after now: anything more the daemon had to say about the last event, it has said. */
async function settled(d: Daemon): Promise<void> {
  const from = d.logs.length;
  await waitUntil(() => d.logs.slice(from).filter(firstSweepDone).length >= 2, 'two sweeps');
}

/** `line`: what the event is said as; `before`: lines it is said with first (a delete: when it goes, once seen). */
type Step = { readonly event: string; readonly act: (f: SyncFixture) => Promise<void> | void; readonly line: RegExp; readonly before?: readonly RegExp[] };

const STEPS: readonly Step[] = [
  { event: 'create', act: (f) => f.write('new.md', '# New\n\nHello.\n'), line: /^new\.md: created in the knowledge base$/ },
  { event: 'edit', act: (f) => appendFile(join(f.root, 'a.md'), '\nMore.\n'), line: /^a\.md: sent to the knowledge base$/ },
  { event: 'rename', act: (f) => rename(join(f.root, 'b.md'), join(f.root, 'b2.md')), line: /^b2\.md: renamed from b\.md$/ },
  { event: 'move', act: (f) => rename(join(f.root, 'c.md'), join(f.root, 'sub/c.md')), line: /^sub\/c\.md: moved from c\.md: a new document in its place, the old one deleted/ },
  {
    event: 'delete',
    act: (f) => f.remove('d.md'),
    before: [/^d\.md: deleted here; its document is deleted at \d\d:\d\d \(after 0\.01 min, watch\.deleteDelayMinutes\) unless the file is back by then/],
    line: /^d\.md: deleted here, so its document was deleted in the knowledge base/,
  },
  {
    event: 'colleague edit',
    act: (f) => {
      f.em.admin.setClockOffset(120_000);
      f.em.admin.editDocument(f.remoteDoc('E').dentryUuid, '# E\n\nFive, as a colleague wrote it.\n');
    },
    // Words a read shows without formatting, named once (merge.webEdits), on the same line.
    line: /^e\.md: pulled from the knowledge base \(FORMATTING_UNSEEN: line 3 has words a colleague wrote in the web editor/,
  },
  {
    event: 'conflict',
    act: async (f) => {
      f.em.admin.setClockOffset(240_000);
      // Both at once: the cycle the save starts finds the colleague's edit of the same paragraph.
      await writeFile(join(f.root, 'a.md'), '# A\n\nOne, as I wrote it.\n\nMore.\n');
      f.em.admin.editDocument(f.remoteDoc('A').dentryUuid, '# A\n\nOne, as a colleague wrote it.\n\nMore.\n');
    },
    line: /^a\.md: conflict: both sides changed line 3: your version stays in the file, theirs is in a\.conflict-\d{8}-\d{6}\.md, and the knowledge base keeps theirs until you run `kbsync resolve a\.md`$/,
  },
  { event: 'emptied file', act: (f) => truncate(join(f.root, 'e.md'), 0), line: /^e\.md: held: it is empty now .* run `kbsync resolve --mine e\.md` to publish the empty file/ },
];

test('a daemon day (create, edit, rename, move, delete, a colleague\'s edit, a conflict, an emptied file): one line per event, each with its verb (a delete: when seen, and when it goes)', async () => {
  await withSyncFixture(
    async (f) => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await f.write(`${name}.md`, `# ${name.toUpperCase()}\n\nText of ${name}.\n`);
      await mkdir(join(f.root, 'sub'));
      await f.write('sub/keep.md', '# Keep\n\nSo the folder exists on both sides.\n');
      assert.equal((await f.sync()).code, 0);
      // The writes' minute over, and read back: no sweep re-reads a file (and says it vanished) as a step renames it.
      f.em.admin.setClockOffset(60_000);
      assert.equal((await f.sync()).code, 0);
      const d = startDaemon(f);
      try {
        await d.waitForLog(firstSweepDone, 'the first full cycle');
        await d.waitForLog((line) => line.msg.startsWith('in step with'), 'the state at start');
        assert.deepEqual(said(d, 0), [`watching ${f.root}`, `in step with "Team Docs" (${f.em.seed.workspaceId}): 6 file(s)`], 'at start: where, which workspace by name, and the folder in step');
        for (const step of STEPS) {
          const from = d.logs.length;
          await step.act(f);
          await waitUntil(() => said(d, from).some((line) => step.line.test(line)), `the ${step.event} to be said`);
          await settled(d);
          const lines = said(d, from);
          const expected = [...(step.before ?? []), step.line];
          assert.equal(lines.length, expected.length, `${step.event}: ${expected.length} line(s), not:\n${lines.join('\n')}`);
          expected.forEach((line, i) => assert.match(lines[i] ?? '', line, step.event));
        }
        // What the one-shot run says once (a title the service cannot rename) is said once by the daemon too.
        const from = d.logs.length;
        await writeFile(join(f.root, 'new.md'), '# Renamed title\n\nHello.\n');
        await waitUntil(() => said(d, from).some((line) => line.startsWith('new.md: its title is now "Renamed title"')), 'the title notice');
        await settled(d);
        await settled(d);
        assert.deepEqual(said(d, from).map((line) => line.replace(/:.*/, ':')), ['new.md:', 'new.md:'], 'the edit sent, and the notice once');
      } finally {
        await d.dispose();
      }
    },
    { config: { watch: { debounceMs: 100, fullSweepMinutes: 0.01, deleteDelayMinutes: 0.01 } } },
  );
});
