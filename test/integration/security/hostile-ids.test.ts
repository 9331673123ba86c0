import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliResult } from '../../helpers/cli.js';
import { call } from '../../helpers/emulator.js';
import { isListing, withHostileService } from '../../helpers/hostile-service.js';
import type { HostileProxy } from '../../helpers/odd-servers.js';
import { appendToState, forgedToken } from '../../helpers/state-reader.js';

/**
 * Ids are opaque strings that kbsync puts into URL paths (`/v1.0/doc/suites/documents/{docKey}/blocks`). An
 * id `..` read from the service or from the shared state, sent as it is, is resolved away with the segment
 * before it: the request goes to another endpoint. Every id from outside is checked where it comes in (the
 * service's answer, the shared state), and again where a URL is made; a bad one is refused, never sent.
 */

/** Dot segments, separators, encoded separators and a control character: each would address another path. */
const BAD_IDS = ['..', '.', 'a/b', 'a\\b', 'a?b', 'a#b', 'a%2Fb', '%2e%2e', 'a\nb'];

/** The paths of the contract's endpoints, one opaque segment per id: any other path is an id read as something else. */
const ENDPOINT_PATHS = [
  /^\/v2\.0\/wiki\/workspaces(\/[^/.][^/]*)?$/,
  /^\/v2\.0\/wiki\/nodes(\/[^/.][^/]*)?$/,
  /^\/v1\.0\/doc\/workspaces\/[^/.][^/]*\/docs(\/[^/.][^/]*(\/members(\/[^/.][^/]*)?)?)?$/,
  /^\/v1\.0\/doc\/suites\/documents\/[^/.][^/]*\/(blocks|overwriteContent|blocks\/[^/.][^/]*\/paragraph\/appendText)$/,
  /^\/v1\.0\/doc\/docs$/,
];

function assertOnlyEndpoints(proxy: HostileProxy, from: number): void {
  for (const request of proxy.seen.slice(from)) assert.ok(ENDPOINT_PATHS.some((shape) => shape.test(request.path)), `a request to ${request.method} ${request.path}`);
}

const reportOf = (run: CliResult): { error?: { code: string; message: string } } => JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');

describe('an id from outside never reaches a URL it could leave', () => {
  test('the service lists a document whose nodeId is a dot segment or holds a separator: the listing is refused (naming it), no request goes elsewhere', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await f.write('a.md', '# A\n\nFirst.\n');
      assert.equal((await f.sync()).code, 0);
      const root = (await call(f.em, 'GET', `/v2.0/wiki/workspaces/${f.em.seed.workspaceId}`, { query: { operatorId: f.em.seed.operatorId } })).body.rootNodeId as string;
      for (const id of BAD_IDS) {
        const planted = { nodeId: id, name: 'Planted.adoc', type: 'FILE', category: 'RICHDOC', extension: 'adoc', workspaceId: f.em.seed.workspaceId, url: 'https://kb.example/planted' };
        turn((request) => {
          if (!isListing(request) || request.query.get('parentNodeId') !== root) return undefined;
          return { status: 200, body: JSON.stringify({ nodes: [planted], nextToken: '' }) };
        });
        const before = proxy.seen.length;
        const run = await f.sync();
        assert.equal(run.code, 4, `${JSON.stringify(id)}: ${run.stdout}\n${run.stderr}`);
        assert.equal(reportOf(run).error?.code, 'API_BAD_RESPONSE', JSON.stringify(id));
        assert.match(reportOf(run).error?.message ?? '', /answer to listNodes .*nodes\.0\.nodeId: the id .* cannot be one segment of a URL path/, JSON.stringify(id));
        assertOnlyEndpoints(proxy, before);
        assert.equal(await f.read('a.md'), '# A\n\nFirst.\n');
      }
    });
  });

  test('the service answers a create with a dot-segment docKey: refused, never read or written through', async () => {
    await withHostileService(async (f, proxy, turn) => {
      await f.write('a.md', '# A\n\nFirst.\n');
      assert.equal((await f.sync()).code, 0);
      turn((request) =>
        request.method === 'POST' && /^\/v1\.0\/doc\/workspaces\/[^/]+\/docs$/.test(request.path)
          ? { status: 200, body: JSON.stringify({ dentryUuid: '..', docKey: '..', nodeId: 'n-1', workspaceId: f.em.seed.workspaceId, url: 'https://kb.example/x' }) }
          : undefined,
      );
      await f.write('b.md', '# B\n\nSecond.\n');
      const before = proxy.seen.length;
      const run = await f.sync();
      assert.notEqual(run.code, 0);
      const failed = run.report?.results.find((result) => result.path === 'b.md');
      assert.ok(failed && !failed.ok, JSON.stringify(run.report?.results));
      assert.match(failed.ok ? '' : failed.error, /answer to createDocument .*the id "\.\." cannot be one segment of a URL path/);
      assertOnlyEndpoints(proxy, before);
      // The document was made all the same: the next run, against an honest service, finds it, never makes a second.
      turn(() => undefined);
      const next = await f.sync();
      assert.equal(next.code, 0, `${next.stdout}\n${next.stderr}`);
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title).sort(), ['A', 'B']);
      assert.match(f.remoteDoc('B').markdown ?? '', /Second\./);
    });
  });

  test('a keyless team: records planted in the shared state with such ids are left out (said), and no request goes elsewhere', async () => {
    await withHostileService(
      async (f, proxy) => {
        await f.write('a.md', '# A\n\nFirst.\n');
        assert.equal((await f.sync()).code, 0);
        appendToState(f, forgedToken(BAD_IDS.map((k, i) => ({ t: 'doc' as const, p: `planted-${i}.md`, k, n: null, h: '', rb: '', m: '', o: 'linked' as const }))));
        appendToState(f, forgedToken([{ t: 'dir', p: 'planted-dir', tn: '..', n: null }]));
        // A fresh machine (its ledger gone, as in CI): everything it knows comes from the shared state.
        await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
        const before = proxy.seen.length;
        const run = await f.sync();
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assertOnlyEndpoints(proxy, before);
        const junk = run.report?.notices.find((notice) => notice.code === 'STATE_JUNK');
        assert.match(junk?.message ?? '', /10 records with paths, ids or URLs kbsync never writes/);
        assert.ok(!(await f.exists('planted-0.md')));
      },
      { env: { KBSYNC_STATE_KEY: '' } },
    );
  });
});
