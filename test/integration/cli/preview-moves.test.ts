import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiffReport } from '../../../src/cli/commands/diff.js';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { countsOf } from '../../helpers/counts-table.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';

/** `sync --output-format github` with a job summary file: stdout, and the summary it appended. */
async function withSummary(f: SyncFixture, args: readonly string[]): Promise<{ code: number | null; stdout: string; summary: string }> {
  const file = join(f.dir, `summary-${Math.random().toString(36).slice(2)}.md`);
  await writeFile(file, '');
  const result = await f.cli(['sync', '--output-format', 'github', ...args], { GITHUB_STEP_SUMMARY: file });
  return { code: result.code, stdout: result.stdout, summary: await readFile(file, 'utf8') };
}

test('a move to another folder is shown as a move, old path → new path with the URL that goes, and counted once as moved in every preview and in the run', async () => {
  await withSyncFixture(async (f) => {
    await f.write('faq.md', '# FAQ\n\nQuestions.\n');
    await f.write('guide/intro.md', '# Intro\n\nHello.\n');
    assert.equal((await f.sync(['--push'])).code, 0);
    f.em.admin.setClockOffset(120_000);
    const old = f.remoteDoc('FAQ');
    const before = (JSON.parse((await f.cli(['status', '--json'])).stdout) as StatusReport).files.find((file) => file.path === 'faq.md')?.url;
    assert.ok(before?.includes(old.dentryUuid), before);
    await mkdir(join(f.root, 'guide'), { recursive: true });
    await rename(join(f.root, 'faq.md'), join(f.root, 'guide', 'faq.md'));

    const comment = await f.cli(['diff', '--push', '--format', 'markdown']);
    assert.equal(comment.code, 0, comment.stderr);
    const expected = { Created: 0, Updated: 0, Moved: 1, Renamed: 0, Deleted: 0, Held: 0, Failed: 0, Refused: 0, 'Broken links': 0 };
    assert.deepEqual(countsOf(comment.stdout), expected, comment.stdout);
    assert.match(comment.stdout, /### Moved\n\n- `faq\.md` → `guide\/faq\.md`: moved: the service cannot move a document, so a new one \(at a new URL\) will be made in the new folder and the old one deleted \(the page deleted: (\S+)\)/);
    assert.ok(comment.stdout.includes(`(the page deleted: ${before})`), 'the comment names the page that goes');

    const text = await f.cli(['diff', '--push']);
    assert.match(text.stdout, /^ {2}move {13}faq\.md → guide\/faq\.md$/m);
    assert.match(text.stdout, /^== faq\.md → guide\/faq\.md: moved: /m);

    const json = JSON.parse((await f.cli(['diff', '--push', '--json'])).stdout) as DiffReport;
    assert.deepEqual(json.files.map((file) => [file.from, file.path, file.kind, file.url]), [['faq.md', 'guide/faq.md', 'move', before]]);
    assert.equal(json.counts.moved, 1);
    assert.equal(json.counts.updated + json.counts.created + json.counts.deleted, 0);

    const status = JSON.parse((await f.cli(['status', '--push', '--json'])).stdout) as StatusReport;
    assert.deepEqual(
      status.files.filter((file) => file.action).map((file) => [file.from, file.path, file.action]),
      [['faq.md', 'guide/faq.md', 'move']],
    );
    assert.match((await f.cli(['status', '--push'])).stdout, /faq\.md → guide\/faq\.md {2}→ moved: [^\n]*\n[^\n]*\nA sync now would do 1 move\./);

    const dryText = await f.cli(['sync', '--push', '--dry-run']);
    assert.match(dryText.stdout, /^ {2}move {13}faq\.md → guide\/faq\.md$/m);
    assert.match(dryText.stdout, /Dry run: would do 1 move; nothing was changed/);
    const dry = await f.sync(['--push', '--dry-run']);
    assert.deepEqual(dry.report?.planned.map((p) => [p.from, p.path, p.kind]), [['faq.md', 'guide/faq.md', 'move']]);
    assert.equal(dry.report?.outcomes.moved, 1);
    const drySummary = await withSummary(f, ['--push', '--dry-run']);
    assert.deepEqual(countsOf(drySummary.summary), expected, drySummary.summary);
    assert.match(drySummary.summary, /\| `faq\.md` → `guide\/faq\.md` \| moved \|/);

    const run = await withSummary(f, ['--push']);
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(countsOf(run.summary), expected, 'the run counts what every preview counted');
    assert.match(run.summary, /\| `faq\.md` → `guide\/faq\.md` \| moved \|/);
    assert.match(run.stdout, /^Synced: 1 moved;/m);
    const faq = f.remoteDoc('FAQ');
    assert.notEqual(faq.dentryUuid, old.dentryUuid, 'the move made a new document, at a new URL');
    assert.equal(f.remoteDocs().filter((doc) => doc.title === 'FAQ').length, 1, 'and deleted the old one');
    assert.equal(f.em.admin.dump().nodes.find((n) => n.dentryUuid === faq.parentId)?.title, 'guide');
  });
});
