import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runCli } from '../../helpers/cli.js';
import { localFiles } from '../../helpers/reliability.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { staleWriteOverPulledSave } from '../../helpers/stale-write.js';

/**
 * Model seed 6011's race (staleWriteOverPulledSave), with A's edit and the colleague's save in the same line: whichever
 * machine syncs next merges the two branches against the version both were made from (GUIDE), and they clash. B, whose
 * pulled save A's stale write replaced; or A, after another save of the colleague's (the branch its write overtook,
 * from the shared state). The conflict must keep that base for `kbsync resolve`: kept with the record's own base
 * instead (that machine's own side of the clash), resolve listed no clash at all, and settling block by block took the
 * other side's line unasked (git's diff3 takes the changed side where the other is as the base has it).
 */
const SAVED = 'First paragraph, saved in the web editor.';
const EDITED = 'First paragraph, edited on A.';

const race = (keyless: boolean) => ({
  keyless,
  stopped: false,
  edit: (text: string) => text.replace('First paragraph.', EDITED),
  save: (markdown: string) => markdown.replace('First paragraph.', SAVED),
});

const conflictCopies = async (f: SyncFixture): Promise<string[]> => [...(await localFiles(f.root)).keys()].filter((path) => path.includes('.conflict-'));

type Next = {
  readonly who: string;
  /** The machine that syncs next and finds the clash, and the other one. */
  readonly pick: (a: SyncFixture, b: SyncFixture) => readonly [SyncFixture, SyncFixture];
  /** Its side of the clash, and the other branch's. */
  readonly mine: string;
  readonly theirs: string;
  /** What happens first (A checks its page once the colleague saves again). */
  readonly first: (em: RunningEmulator, a: SyncFixture) => void;
};

const NEXT: readonly Next[] = [
  { who: 'the puller', pick: (a, b) => [b, a], mine: SAVED, theirs: EDITED, first: () => undefined },
  {
    who: 'the writer',
    pick: (a, b) => [a, b],
    mine: EDITED,
    theirs: SAVED,
    first: (em, a) => {
      const page = a.remoteDoc('Guide');
      em.admin.editDocument(page.dentryUuid, `${page.markdown ?? ''}\nA new paragraph from the web.\n`);
    },
  },
];

for (const next of NEXT) {
  for (const keyless of [false, true]) {
    const team = keyless ? 'keyless' : 'keyed';
    test(`a clash found merging two branches (${next.who} syncs next) is listed against the version both were made from, and settles from it (${team})`, async () => {
      await staleWriteOverPulledSave(race(keyless), async (em, a, b, { sync }) => {
        const [first, second] = next.pick(a, b);
        next.first(em, a);
        const merged = await sync(first);
        const guide = merged.results.find((r) => r.path === 'guide.md');
        assert.ok(guide?.ok && guide.result === 'conflict', `the merge of the branches clashes on the first paragraph: ${JSON.stringify(merged.results)}`);
        assert.match(guide.detail ?? '', /^both sides changed line 3: /, 'the clash is said once');
        const kept = await first.read('guide.md');
        assert.ok(kept.includes(next.mine) && !kept.includes(next.theirs), `the file keeps its side: ${kept}`);

        const listed = JSON.parse((await first.cli(['resolve', '--json'])).stdout) as ResolveReport;
        assert.deepEqual(
          listed.conflicts.map((c) => c.clashes),
          [[{ line: 3, base: 'First paragraph.', mine: next.mine, theirs: next.theirs }]],
          'exactly the clashing line, against the version both branches were made from',
        );

        // Both, for the one clash listed: a resolution made from that listing keeps every side's words.
        const settled = await runCli(['resolve', 'guide.md', '--config', first.configPath], { cwd: first.dir, env: first.env, input: 'b\n' });
        assert.equal(settled.code, 0, settled.stderr);
        const both = kept.replace(next.mine, `${next.mine}\n\n${next.theirs}`);
        assert.equal(await first.read('guide.md'), both);
        for (const f of [first, second]) await sync(f);
        assert.equal(a.remoteDoc('Guide').markdown, both, 'the document holds both');
        assert.equal(await second.read('guide.md'), both, 'the other machine too');
        for (const f of [a, b]) assert.deepEqual(await conflictCopies(f), [], 'no conflict copy left');
      });
    });
  }
}
