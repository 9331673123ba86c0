import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import { withInProcessDaemon } from './in-process-daemon.js';
import type { ResolveReport } from '../../../src/cli/commands/resolve.js';

// The daemon's waits in virtual time (test/helpers/manual-clock.ts): minutes pass when the test says so.

const page = (n: number): string => `# Page ${n}\n\nWhat page ${n} says.\n`;
/** Each page's document id, which its URL is made of: a page made again would have another. */
const urls = (f: SyncFixture): Map<string, string> => new Map(f.remoteDocs().map((doc) => [doc.title, doc.dentryUuid]));
const deletes = (f: SyncFixture): number => f.em.admin.calls().byEndpoint.deleteDocument.calls;
const titles = (f: SyncFixture): string[] => f.remoteDocs().map((doc) => doc.title).sort();
const MIN = 60_000;

function gitOrSkip(t: TestContext): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    t.skip('git is not installed');
    return false;
  }
}

/** A git repository around the fixture's folder, on main, that ignores kbsync's state folder. */
async function repository(f: SyncFixture): Promise<(...args: string[]) => string> {
  const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: f.dir, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  await writeFile(join(f.dir, '.gitignore'), 'notes/.kbsync/\n');
  return git;
}

/** Everything in the repository committed as `message`. */
const commitAll = (git: (...args: string[]) => string, message: string): void => {
  git('add', '.');
  git('commit', '-qm', message);
};

/** A repository whose branch `reorg` moves guides/setup.md to the top; on main, synced. */
async function reorganised(f: SyncFixture): Promise<(...args: string[]) => string> {
  const git = await repository(f);
  await f.write('guides/setup.md', '# Setup\n\nHow to set it up.\n');
  await f.write('intro.md', page(1));
  commitAll(git, 'two pages');
  git('checkout', '-qb', 'reorg');
  git('mv', 'notes/guides/setup.md', 'notes/setup.md');
  commitAll(git, 'setup to the top');
  git('checkout', '-q', 'main');
  assert.equal((await f.sync()).code, 0);
  return git;
}

describe('kbsync watch: what waits, and until when', () => {
  test('a file deleted here is said once when seen: when its document goes, how to keep it, how to delete it now', async () => {
    await withSyncFixture(async (f) => {
      for (let n = 1; n <= 3; n += 1) await f.write(`p${n}.md`, page(n));
      assert.equal((await f.sync()).code, 0);
      await withInProcessDaemon(f, async (d) => {
        const seenAt = d.clock.now();
        await f.remove('p1.md');
        await d.changed();
        const lines = d.logs.filter((line) => line.level >= 30 && String(line.msg).startsWith('p1.md'));
        assert.equal(lines.length, 1, d.said().join('\n'));
        const [line] = lines;
        assert.equal(line?.['code'], 'DELETE_WAITING');
        assert.equal(line?.['deleteAt'], new Date(seenAt + 5 * MIN).toISOString());
        assert.match(String(line?.msg), /^p1\.md: deleted here; its document is deleted at \d\d:\d\d \(after 5 min, watch\.deleteDelayMinutes\) unless the file is back by then: restore it to keep the document and its URL, or run `kbsync resolve --mine p1\.md` to delete it now$/);
        // Said once: the cycles that find it still waiting say nothing more.
        const from = d.logs.length;
        await d.changed();
        await d.wait(4);
        assert.deepEqual(d.said(from), []);
        assert.equal(deletes(f), 0);
        await d.wait(1);
        assert.equal(deletes(f), 1);
        assert.deepEqual(titles(f), ['Page 2', 'Page 3']);
      });
    });
  });

  test('a file that comes back at its path before its delete is sent keeps its document and URL, and is said back', async () => {
    await withSyncFixture(async (f) => {
      for (let n = 1; n <= 3; n += 1) await f.write(`p${n}.md`, page(n));
      assert.equal((await f.sync()).code, 0);
      const before = urls(f);
      await withInProcessDaemon(f, async (d) => {
        await f.remove('p1.md');
        await d.changed();
        await d.wait(4);
        await f.write('p1.md', page(1));
        const from = d.logs.length;
        await d.changed();
        assert.deepEqual(d.said(from), ['p1.md: back before its delete was sent; its document (and URL) stays']);
        await d.wait(10);
        assert.deepEqual(d.said(from).length, 1, 'said once');
      });
      assert.equal(deletes(f), 0);
      assert.deepEqual(urls(f), before);
    });
  });

  test('a git checkout three minutes after an unrelated delete: the delete keeps its own wait, the checkout says what it holds and until when', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(async (f) => {
      const git = await repository(f);
      for (let n = 1; n <= 6; n += 1) await f.write(`p${n}.md`, page(n));
      commitAll(git, 'six pages');
      git('checkout', '-qb', 'lean');
      git('rm', '-q', 'notes/p2.md', 'notes/p4.md');
      git('commit', '-qm', 'two pages fewer');
      git('checkout', '-q', 'main');
      assert.equal((await f.sync()).code, 0);
      await withInProcessDaemon(f, async (d) => {
        await f.remove('p6.md');
        await d.changed();
        await d.wait(3);
        const switchedAt = d.clock.now();
        git('checkout', '-q', 'lean');
        const from = d.logs.length;
        await d.changed();
        const said = d.said(from);
        const checkout = said.filter((line) => line.startsWith('git checkout:'));
        assert.equal(checkout.length, 1, said.join('\n'));
        assert.match(checkout[0] ?? '', /^git checkout: the branch is now lean \(was main\); p2\.md and p4\.md are gone with it: their documents wait until \d\d:\d\d, once the branch has stayed 60 min \(watch\.checkoutDelayMinutes\)/);
        assert.equal(d.logs.find((line) => String(line.msg).startsWith('git checkout:'))?.['deleteAt'], new Date(switchedAt + 60 * MIN).toISOString());
        assert.ok(!checkout[0]?.includes('p6.md'), 'the checkout did not remove p6.md: its wait is not the checkout\'s');
        await d.wait(2); // p6.md has now been gone 5 minutes
        assert.equal(deletes(f), 1, 'the unrelated delete went after its own 5 minutes');
        assert.deepEqual(titles(f), ['Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']);
        await d.wait(57); // 62 minutes in, 59 since the checkout
        assert.equal(deletes(f), 1, 'the checkout\'s deletes wait the hour');
        await d.wait(1);
        assert.equal(deletes(f), 3);
      });
    });
  });

  test('watch.publishBranches: on a branch it does not name, nothing is published (a file only the branch has stays private) and a colleague\'s edit still comes in', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(
      async (f) => {
        const git = await repository(f);
        for (let n = 1; n <= 3; n += 1) await f.write(`p${n}.md`, page(n));
        commitAll(git, 'three pages');
        git('checkout', '-qb', 'draft');
        await f.write('draft.md', '# Draft\n\nNot for the team yet.\n');
        await f.write('p1.md', page(1).replace('says', 'says, in a draft'));
        git('rm', '-q', 'notes/p3.md');
        commitAll(git, 'a draft');
        git('checkout', '-q', 'main');
        assert.equal((await f.sync()).code, 0);
        const before = urls(f);
        await withInProcessDaemon(f, async (d) => {
          git('checkout', '-q', 'draft');
          const from = d.logs.length;
          await d.changed();
          assert.deepEqual(
            d.said(from).filter((line) => line.startsWith('git checkout:')),
            ["git checkout: the branch is now draft (was main), which watch.publishBranches does not name: nothing is published from it (no new document, edit, move or delete) until HEAD is on a branch it names; the knowledge base's changes still come in"],
          );
          assert.deepEqual(d.said(from).filter((line) => /^(draft|p\d)\.md/.test(line)), [], 'what waits to be published is not said file by file');
          f.em.admin.editDocument(f.remoteDoc('Page 2').dentryUuid, '# Page 2\n\nWhat page 2 says, edited on the web.\n');
          await d.wait(90); // sweeps come, and any wait would be over
          assert.match(await f.read('p2.md'), /edited on the web/);
          assert.deepEqual(urls(f), before, 'no document made, none deleted');
          assert.doesNotMatch(f.remoteDoc('Page 1').markdown ?? '', /in a draft/);
          git('checkout', '-q', 'main');
          const back = d.logs.length;
          await d.changed();
          assert.match(d.said(back).find((line) => line.startsWith('git checkout:')) ?? '', /^git checkout: the branch is now main \(was draft\), a branch watch\.publishBranches names: its changes are published again/);
          await d.wait(90);
        });
        assert.deepEqual(urls(f), before);
        assert.equal(f.em.admin.calls().byEndpoint.deleteDocument.calls, 0);
      },
      { config: { watch: { publishBranches: ['main', 'release/*'] } } },
    );
  });

  test('by default (watch.publishBranches null) a file only a branch has is published while it is checked out, and deleted once the branch is left for good', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(async (f) => {
      const git = await repository(f);
      await f.write('p1.md', page(1));
      commitAll(git, 'one page');
      git('checkout', '-qb', 'feature');
      await f.write('feature.md', '# Feature\n\nOnly on the branch.\n');
      commitAll(git, 'a feature page');
      git('checkout', '-q', 'main');
      assert.equal((await f.sync()).code, 0);
      await withInProcessDaemon(f, async (d) => {
        git('checkout', '-q', 'feature');
        await d.changed();
        assert.deepEqual(titles(f), ['Feature', 'Page 1']);
        git('checkout', '-q', 'main');
        await d.changed();
        assert.match(d.said().find((line) => line.startsWith('git checkout: the branch is now main')) ?? '', /feature\.md is gone with it: its document waits until/);
        await d.wait(59);
        assert.deepEqual(titles(f), ['Feature', 'Page 1']);
        await d.wait(1);
        assert.deepEqual(titles(f), ['Page 1']);
      });
    });
  });

  test('a branch that moves a file to another folder and back: the document keeps its URL, nothing is made or deleted', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(async (f) => {
      const git = await reorganised(f);
      const before = urls(f);
      f.em.admin.resetCalls();
      await withInProcessDaemon(f, async (d) => {
        git('checkout', '-q', 'reorg');
        const from = d.logs.length;
        await d.changed();
        assert.match(d.said(from).find((line) => line.startsWith('git checkout:')) ?? '', /guides\/setup\.md moved to setup\.md/);
        await d.wait(10);
        git('checkout', '-q', 'main');
        await d.changed();
        await d.wait(90);
      });
      assert.equal(f.em.admin.calls().byEndpoint.deleteDocument.calls, 0, 'no document deleted');
      assert.deepEqual(urls(f), before, 'every page keeps its URL');
    });
  });

  test('a move a checkout made waits until the branch has stayed, or until kbsync resolve --mine sends it', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(async (f) => {
      const git = await repository(f);
      await f.write('guides/setup.md', '# Setup\n\nHow to set it up.\n');
      await f.write('guides/faq.md', '# FAQ\n\nQuestions.\n');
      commitAll(git, 'two guides');
      git('checkout', '-qb', 'reorg');
      git('mv', 'notes/guides/setup.md', 'notes/setup.md');
      git('mv', 'notes/guides/faq.md', 'notes/faq.md');
      git('commit', '-qm', 'guides to the top');
      git('checkout', '-q', 'main');
      assert.equal((await f.sync()).code, 0);
      /** Each document's folder, by title ('' at the top). */
      const folders = (): string[][] => {
        const nodes = f.em.admin.dump().nodes;
        return f.remoteDocs().map((doc) => [doc.title, nodes.find((node) => node.dentryUuid === doc.parentId && node.docType === 'FOLDER')?.title ?? '']).sort();
      };
      assert.deepEqual(folders(), [['FAQ', 'guides'], ['Setup', 'guides']]);
      await withInProcessDaemon(f, async (d) => {
        git('checkout', '-q', 'reorg');
        await d.changed();
        const listed = JSON.parse((await f.cli(['resolve', '--json'])).stdout) as ResolveReport;
        assert.deepEqual(listed.held.map((held) => [held.path, held.code]), [['guides/faq.md', 'MOVE_WAITING'], ['guides/setup.md', 'MOVE_WAITING']]);
        assert.match(listed.held[0]?.message ?? '', /`kbsync resolve --mine guides\/faq\.md` moves it now/);
        const released = await f.cli(['resolve', '--mine', 'guides/setup.md']);
        assert.equal(released.code, 0, released.stderr);
        await d.wait(0.05); // the daemon looks for a person's answer every second
        assert.deepEqual(folders(), [['FAQ', 'guides'], ['Setup', '']], 'the released move went, the other waits');
        await d.wait(59);
        assert.deepEqual(folders(), [['FAQ', 'guides'], ['Setup', '']]);
        await d.wait(1);
        assert.deepEqual(folders(), [['FAQ', ''], ['Setup', '']], 'the branch stayed an hour: its move goes too');
        assert.deepEqual(JSON.parse((await f.cli(['resolve', '--json'])).stdout), { conflicts: [], held: [] });
      });
    });
  });

  test('a restart keeps what waits, and why: a checkout\'s move still waits (anew from the restart), and said so', async (t) => {
    if (!gitOrSkip(t)) return;
    await withSyncFixture(async (f) => {
      const git = await reorganised(f);
      const before = urls(f);
      await withInProcessDaemon(f, async (d) => {
        git('checkout', '-q', 'reorg');
        await d.changed();
        await d.wait(30);
      });
      await withInProcessDaemon(f, async (d) => {
        const [resumed] = d.said().filter((line) => line.startsWith('what the last kbsync watch here kept waiting'));
        assert.match(resumed ?? '', /waits again from now \(a restart starts each wait anew\): guides\/setup\.md \(moved to setup\.md\) until \d\d:\d\d; a file back by then keeps its document$/);
        assert.deepEqual(urls(f), before, 'the first sweep after the restart did not move it');
        git('checkout', '-q', 'main');
        await d.changed();
        assert.ok(d.said().includes('guides/setup.md: back where it was before its move was carried out; its document (and URL) stays'), d.said().join('\n'));
        await d.wait(90);
      });
      assert.deepEqual(urls(f), before);
      assert.equal(deletes(f), 0);
    });
  });

  test('a wait a one-shot sync settled while the daemon was stopped is not resumed, nor said back', async () => {
    await withSyncFixture(async (f) => {
      for (let n = 1; n <= 3; n += 1) await f.write(`p${n}.md`, page(n));
      assert.equal((await f.sync()).code, 0);
      await withInProcessDaemon(f, async (d) => {
        await f.remove('p1.md');
        await d.changed();
        assert.equal(deletes(f), 0);
      });
      assert.equal((await f.sync()).code, 0);
      assert.equal(deletes(f), 1, 'the one-shot sync deleted it at once');
      await withInProcessDaemon(f, async (d) => {
        assert.deepEqual(d.said().filter((line) => line.includes('p1.md') || line.startsWith('what the last')), []);
      });
    });
  });
});
