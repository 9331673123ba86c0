import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncOnce } from '../../helpers/in-process-sync.js';
import { withSyncFixture, type SyncFixture } from '../../helpers/sync-fixture.js';
import type { JsonReport } from '../../../src/cli/output/print-report.js';

type Case = {
  readonly exit: number;
  readonly name: string;
  readonly args?: readonly string[];
  readonly setup: (f: SyncFixture) => Promise<Record<string, string> | void>;
  /** The text summary's last line. */
  readonly last: RegExp;
  readonly check?: (report: JsonReport) => void;
};

const REPORT_KEYS = ['mode', 'dryRun', 'planned', 'results', 'pending', 'notices', 'problems', 'conflictCopies', 'skipped', 'links', 'conflicts', 'counts', 'failed', 'resumed', 'interrupted', 'calls', 'callsByEndpoint', 'durationMs', 'ok', 'exitCode'];

const CASES: readonly Case[] = [
  { exit: 0, name: 'everything synced', setup: (f) => f.write('b.md', '# B\n'), last: /^Synced: 1 pushed, 1 checked, unchanged; \d+ API call/ },
  {
    exit: 1,
    name: 'a held file, a file that is not UTF-8 and a second spelling of a name',
    setup: async (f) => {
      await f.write('a.md', '');
      await writeFile(join(f.root, 'latin1.md'), Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
      await f.write('caf\u00e9.md', '# Café\n');
      await f.write('cafe\u0301.md', '# Café again\n');
    },
    last: /^Synced: 1 held, 1 pushed, 2 refused; /,
    // Everything that did not sync is counted: the exit code and the numbers say the same.
    check: (report) => assert.deepEqual([report.failed, report.counts['held'], report.counts['refused']], [3, 1, 2]),
  },
  { exit: 2, name: 'the root is missing', setup: (f) => rm(f.root, { recursive: true }), last: /^Nothing was done: the run was refused with ROOT_MISSING \(exit 2\); 0 API call/ },
  {
    exit: 3,
    name: 'the config names another workspace than the ledger',
    setup: async (f) => ({ KBSYNC_WORKSPACE_ID: f.em.admin.addWorkspace({ name: 'Elsewhere' }).workspaceId }),
    last: /^Nothing was done: the run was refused with WORKSPACE_CHANGED \(exit 3\)/,
  },
  {
    exit: 4,
    name: 'the write scope is missing, met on the first file sent',
    setup: async (f) => {
      await f.write('b.md', '# B\n');
      return { KBSYNC_TOKEN: f.em.admin.addToken(['Wiki.Node.Read', 'Storage.File.Read', 'Document.WorkspaceDocument.Read']) };
    },
    last: /^Stopped after: 1 failed, 1 checked, unchanged: the run stopped with API_FORBIDDEN \(exit 4\)/,
    // Stopped part-way: what was done before the stop is in the report.
    check: (report) => assert.deepEqual(report.results.filter((r) => !r.ok).map((r) => [r.path, !r.ok && r.code]), [['b.md', 'API_FORBIDDEN']]),
  },
  {
    exit: 5,
    name: '--check-links finds a broken link',
    args: ['--check-links'],
    setup: (f) => f.write('b.md', '# B\n\nSee [the guide](guide.md).\n'),
    last: /^--check-links: 1 broken link\(s\), so nothing was sent/,
    check: (report) => assert.equal(report.links[0]?.target, 'guide.md'),
  },
];

/** A folder synced once, then set up for the case; returns the env for the run under test. */
async function prepared(f: SyncFixture, c: Case): Promise<Record<string, string>> {
  await f.write('a.md', '# A\n\nSynced.\n');
  assert.equal((await syncOnce(f)).code, 0);
  return (await c.setup(f)) ?? {};
}

for (const c of CASES) {
  test(`exit ${c.exit} (${c.name}): --json is a whole report agreeing with the exit code`, async () => {
    await withSyncFixture(async (f) => {
      const env = await prepared(f, c);
      const json = await f.cli(['sync', '--json', ...(c.args ?? [])], env);
      assert.equal(json.code, c.exit, json.stderr);
      const report = JSON.parse(json.stdout) as JsonReport;
      assert.deepEqual(REPORT_KEYS.filter((key) => !(key in report)), [], 'every field of a report, whatever the end');
      assert.deepEqual([report.ok, report.exitCode], [c.exit === 0, c.exit]);
      if (c.exit >= 2 && c.exit <= 4) {
        assert.match(report.error?.code ?? '', /^[A-Z_]+$/);
        assert.match(json.stderr, new RegExp(`\\[${report.error?.code}\\]`), 'the message, once, on stderr');
        assert.equal(json.stderr.trim().split('\n').length, 1, `one failure, one line: ${json.stderr}`);
        if (c.exit !== 4) assert.deepEqual([report.results, report.counts, report.failed], [[], {}, 0], 'nothing was done');
      } else assert.equal(report.error, undefined);
      c.check?.(report);
    });
  });

  test(`exit ${c.exit} (${c.name}): the text ends with a summary that says it, and a failure is said once`, async () => {
    await withSyncFixture(async (f) => {
      const env = await prepared(f, c);
      const text = await f.cli(['sync', ...(c.args ?? [])], env);
      assert.equal(text.code, c.exit, text.stderr);
      assert.match(text.stdout.trim().split('\n').at(-1) ?? '', c.last);
      const all = text.stdout + text.stderr;
      for (const code of new Set(all.match(/\[[A-Z_]+\]/g) ?? [])) {
        const lines = all.split('\n').filter((line) => line.includes(code));
        assert.equal(lines.length, 1, `${code} said once: ${lines.join('\n')}`);
      }
    });
  });
}

test('exit 2 from the command line itself (--push with --pull): --json still gets a report, and the text no summary', async () => {
  await withSyncFixture(async (f) => {
    const json = await f.cli(['sync', '--push', '--pull', '--json']);
    assert.equal(json.code, 2);
    const report = JSON.parse(json.stdout) as JsonReport;
    assert.deepEqual([report.ok, report.exitCode, report.error?.code, report.results], [false, 2, 'USAGE', []]);
    assert.match(report.error?.message ?? '', /'--push' cannot be used with option '--pull'/);
    const text = await f.cli(['sync', '--push', '--pull']);
    assert.equal(text.code, 2);
    assert.equal(text.stdout, '', 'a person reads the usage error on stderr');
    assert.match(text.stderr, /cannot be used with/);
  });
});
