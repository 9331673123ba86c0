import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { call } from '../../helpers/emulator.js';
import { isListing, LIST, withHostileService } from '../../helpers/hostile-service.js';
import type { HostileProxy } from '../../helpers/odd-servers.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';

const listings = (proxy: HostileProxy, from = 0): number => proxy.seen.slice(from).filter(isListing).length;
/** The JSON report a `sync --json` printed last, refused and stopped runs included. */
const reportOf = (run: CliResult): { exitCode: number; interrupted?: boolean; error?: { code: string; message: string } } => JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');

// eslint-disable-next-line no-control-regex -- raw control characters are what must not be printed
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function twoNotes(f: SyncFixture): Promise<void> {
  await f.write('a.md', '# A\n\nFirst.\n');
  await f.write('sub/b.md', '# B\n\nSecond.\n');
  const first = await f.sync();
  assert.equal(first.code, 0, first.stderr);
}

/** Files and documents as they were: a refused listing deleted nothing on either side. */
async function assertNothingDeleted(f: SyncFixture): Promise<void> {
  assert.equal(await f.read('a.md'), '# A\n\nFirst.\n');
  assert.equal(await f.read('sub/b.md'), '# B\n\nSecond.\n');
  assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B']);
}

void describe('a throttle past what kbsync waits ends the run at once, with one clear error', () => {
  for (const [name, retryAfter] of [
    ['Retry-After: 3600', '3600'],
    ['a Retry-After date in 2100', 'Fri, 01 Jan 2100 00:00:00 GMT'],
  ] as const) {
    void test(`listing answered 429 with ${name}: exit 4, API_THROTTLED, one listing call`, async () => {
      await withHostileService(async (f, proxy, turn) => {
        await twoNotes(f);
        turn((request) => (isListing(request) ? { status: 429, headers: { 'retry-after': retryAfter }, body: '{}' } : undefined));
        const before = proxy.seen.length;
        // Killed after 60 s by the helper if kbsync waited (an hour, or a busy loop on a timer it cannot set).
        const run = await runCli(['sync', '--json', '--config', f.configPath], { cwd: f.dir, env: f.env, timeoutMs: 60_000 });
        assert.equal(run.code, 4, run.stderr);
        assert.equal(reportOf(run).error?.code, 'API_THROTTLED');
        assert.match(reportOf(run).error?.message ?? '', /longer than kbsync waits \(60 s\).*run again after/);
        assert.equal((run.stderr.match(/Retry-After/g) ?? []).length, 1, `said once: ${run.stderr}`);
        assert.equal(listings(proxy, before), 1);
        await assertNothingDeleted(f);
      });
    });
  }
});

void describe('one signal stops a sync within seconds, whatever is pending', () => {
  for (const [signal, code, bad] of [
    ['SIGINT', 130, { status: 429, headers: { 'retry-after': '59' }, body: '{}' }],
    ['SIGTERM', 143, 'hang'],
  ] as const) {
    void test(`${signal} while the listing ${bad === 'hang' ? 'waits for an answer that never comes' : 'waits out Retry-After: 59'}: exit ${code}, reported as stopped`, async () => {
      await withHostileService(async (f, proxy, turn) => {
        await twoNotes(f);
        await f.write('c.md', '# C\n');
        turn((request) => (isListing(request) ? bad : undefined));
        const before = listings(proxy);
        const run = await runCli(['sync', '--json', '--config', f.configPath], {
          cwd: f.dir,
          env: f.env,
          // A stop that did not cut the wait would run for minutes: the helper kills it first (code null).
          timeoutMs: 40_000,
          onSpawn: (child) => {
            void (async () => {
              while (listings(proxy) === before) await sleep(20);
              child.kill(signal);
            })();
          },
        });
        assert.equal(run.code, code, `${run.signal ?? ''} ${run.stderr}`);
        assert.match(run.stderr, new RegExp(`${signal}: finishing the work under way`));
        assert.deepEqual({ exitCode: reportOf(run).exitCode, interrupted: reportOf(run).interrupted }, { exitCode: code, interrupted: true });
        assert.equal(listings(proxy) - before, 1, 'the throttled listing was not tried again');
        await assertNothingDeleted(f);
        // The next run, against an honest service, does the rest.
        turn(() => undefined);
        const next = await f.sync();
        assert.equal(next.code, 0, next.stderr);
        assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B', 'C']);
      });
    });
  }
});

void describe('a listing without end is refused after a bounded number of calls, and deletes nothing', () => {
  void test('a folder that contains itself', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await twoNotes(f);
      const workspace = await call(f.em, 'GET', `/v2.0/wiki/workspaces/${f.em.seed.workspaceId}`, { query: { operatorId: f.em.seed.operatorId } });
      const top = await call(f.em, 'GET', LIST, { query: { operatorId: f.em.seed.operatorId, parentNodeId: workspace.body.rootNodeId } });
      const sub = (top.body.nodes as { nodeId: string; name: string }[]).find((node) => node.name === 'sub');
      assert.ok(sub, 'the folder sub');
      turn((request) => (isListing(request) && request.query.get('parentNodeId') === sub.nodeId ? { status: 200, body: JSON.stringify({ nodes: [sub], nextToken: '' }) } : undefined));
      await f.remove('a.md');
      const before = listings(proxy);
      const run = await f.sync();
      assert.equal(run.code, 4, run.stderr);
      assert.equal(reportOf(run).error?.code, 'API_BAD_RESPONSE');
      assert.match(reportOf(run).error?.message ?? '', /lists the folder "sub" .* twice: it contains itself/);
      assert.ok(listings(proxy, 0) - before <= 3, `${listings(proxy) - before} listing calls`);
      // The local deletion was not carried out either: the run refused before it decided anything.
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B']);
      assert.equal(await f.read('sub/b.md'), '# B\n\nSecond.\n');
    });
  });

  void test('empty pages with fresh nextTokens: refused after 5 in a row, saying nothing was decided from it', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await twoNotes(f);
      await f.remove('a.md');
      let page = 0;
      turn((request) => (isListing(request) ? { status: 200, body: JSON.stringify({ nodes: [], nextToken: `more-${(page += 1)}` }) } : undefined));
      const before = listings(proxy);
      const run = await f.sync();
      assert.equal(run.code, 4, run.stderr);
      assert.equal(reportOf(run).error?.code, 'API_BAD_RESPONSE');
      assert.match(reportOf(run).error?.message ?? '', /answered 5 empty pages in a row, with a new nextToken each time, while paging listNodes/);
      assert.match(reportOf(run).error?.message ?? '', /nothing was decided from it/);
      assert.equal(listings(proxy) - before, 5);
      // The local deletion was not carried out either: a partial listing decides nothing.
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B']);
    });
  });

  void test('a page or two empty between full ones is no end: the listing goes on', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await twoNotes(f);
      // The root's listing, split by the service into pages with empty ones between (as a service that pages
      // first and filters what the operator may not see after would): the same nodes, the same sync.
      const root = (await call(f.em, 'GET', `/v2.0/wiki/workspaces/${f.em.seed.workspaceId}`, { query: { operatorId: f.em.seed.operatorId } })).body.rootNodeId as string;
      const nodes = (await call(f.em, 'GET', LIST, { query: { operatorId: f.em.seed.operatorId, parentNodeId: root } })).body.nodes as unknown[];
      const pages = nodes.flatMap((node) => [[], [], [], [node]]);
      turn((request) => {
        if (!isListing(request) || request.query.get('parentNodeId') !== root) return undefined;
        const at = Number(request.query.get('nextToken') || '0');
        return { status: 200, body: JSON.stringify({ nodes: pages[at] ?? [], nextToken: at + 1 < pages.length ? String(at + 1) : '' }) };
      });
      await f.write('c.md', '# C\n');
      const run = await f.sync();
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B', 'C']);
    });
  });

  void test('fresh nextTokens forever, each page with a node: refused after 1,000 pages', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await twoNotes(f);
      let page = 0;
      const node = (n: number) => ({ nodeId: `junk-${n}`, name: `junk-${n}.pdf`, type: 'FILE', category: '', extension: 'pdf', workspaceId: f.em.seed.workspaceId });
      turn((request) => (isListing(request) ? { status: 200, body: JSON.stringify({ nodes: [node((page += 1))], nextToken: `more-${page}` }) } : undefined));
      const before = listings(proxy);
      const run = await f.sync();
      assert.equal(run.code, 4, run.stderr);
      assert.match(reportOf(run).error?.message ?? '', /still had more after 1000 pages/);
      assert.equal(listings(proxy) - before, 1000);
      await assertNothingDeleted(f);
    });
  });
});

void describe('nothing from outside reaches the terminal raw', () => {
  const HOSTILE = 'Release \x1b]0;pwned\x07notes\x1b[2J\x1b[1A\r✓ Synced: nothing to change\u202e\x9b31m';

  void test('titles, names, bodies and service messages with terminal escapes, printed by sync, status, diff, workspaces, search and doctor', async () => {
    await withHostileService(async (f, _proxy, turn) => {
      await f.write('mine.md', '# Mine\n\nText.\n');
      assert.equal((await f.sync()).code, 0);
      f.em.admin.createDocument({ name: HOSTILE, markdown: `Body with ${HOSTILE} inside.` });
      f.em.admin.addWorkspace({ name: `Team ${HOSTILE}` });
      const state = f.em.admin.dump().nodes.find((node) => node.title === '.kbsync');
      assert.ok(state, 'the state folder');
      f.em.admin.createDocument({ name: `Planted ${HOSTILE}`, parentNodeId: state.dentryUuid });
      f.em.admin.editDocument(f.remoteDoc('Mine').dentryUuid, `# Mine\n\nText ${HOSTILE}.\n`);
      turn((request) =>
        request.path === '/v1.0/doc/docs' && request.query.get('keyword') === 'boom'
          ? { status: 400, body: JSON.stringify({ code: `paramError${HOSTILE}`, message: `keyword refused: ${HOSTILE}`, requestid: HOSTILE }) }
          : undefined,
      );
      const runs: [string, CliResult][] = [];
      for (const args of [['status', '--all'], ['diff'], ['sync', '--dry-run'], ['sync'], ['status'], ['workspaces'], ['search', 'Release'], ['search', 'boom'], ['doctor']]) {
        runs.push([args.join(' '), await f.cli(args)]);
      }
      for (const [what, run] of runs) {
        assert.doesNotMatch(run.stdout, RAW_CONTROL, `${what} stdout: ${JSON.stringify(run.stdout)}`);
        assert.doesNotMatch(run.stderr, RAW_CONTROL, `${what} stderr: ${JSON.stringify(run.stderr)}`);
      }
      // The text is shown, escaped, not dropped: a person sees what the title holds.
      const shown = (what: string): string => runs.find(([name]) => name === what)?.[1].stdout ?? '';
      assert.match(shown('workspaces'), /Team Release \\u001b\]0;pwned\\u0007notes\\u001b\[2J/);
      assert.match(shown('search Release'), /Release \\u001b\]0;pwned\\u0007notes/);
      assert.match(runs.find(([name]) => name === 'search boom')?.[1].stderr ?? '', /keyword refused: Release \\u001b\]0;pwned/);
      assert.match(shown('sync'), /Planted Release \\u001b/, 'the notice about the document in the state folder');
    });
  });
});

void describe('local files from outside: only an image a file references, and only an image, is uploaded; the token stays home', () => {
  void test('.git/config, the ledger, node_modules and a text file named .png are never handed to images.upload, and the command sees no token', async () => {
    await withHostileService(async (f) => {
      const log = `${f.dir}/uploads.log`;
      const envDump = `${f.dir}/upload-env.txt`;
      await f.write('.git/config', '[remote "origin"]\n\turl = https://user:ghp_0123456789abcdef@github.com/x/y\n');
      await f.write('node_modules/pkg/logo.png', 'GIF89a-logo');
      await f.write('img/secret.png', 'PRIVATE KEY, not an image');
      await f.write('img/ok.png', 'GIF89a-ok');
      await f.write('page.md', ['# Page', '', '<img src=".git/config" width="0" height="0">', '', '![l](.kbsync/ledger.sqlite)', '', '![n](node_modules/pkg/logo.png)', '', '![s](img/secret.png)', '', '![ok](img/ok.png)', ''].join('\n'));
      const upload = `echo "$1" >> "${log}"; env > "${envDump}"; echo "https://img.example/$KBSYNC_IMAGE_KEY"`;
      const run = await f.sync([], { KBSYNC_IMAGES_UPLOAD: upload });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        run.report?.images.map((image) => [image.target, image.reason]),
        [
          ['.git/config', 'hidden'],
          ['.kbsync/ledger.sqlite', 'hidden'],
          ['node_modules/pkg/logo.png', 'excluded'],
          ['img/secret.png', 'not-an-image'],
        ],
      );
      const { readFile } = await import('node:fs/promises');
      assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), [`${f.root}/img/ok.png`], 'only the real image was uploaded');
      const env = await readFile(envDump, 'utf8');
      assert.ok(!env.includes(f.em.seed.token), 'the token reached the upload command');
      assert.doesNotMatch(env, /^KBSYNC_TOKEN=/m);
      const sent = f.remoteDoc('Page').markdown ?? '';
      assert.ok(sent.includes('src=".git/config"') && !sent.includes('ghp_'), 'sent as written, never its content');
    });
  });
});
