import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { silentLogger } from '../../../src/log.js';
import type { StateRecord } from '../../../src/remote-state/records.js';
import { runSync } from '../../../src/sync/engine.js';
import { withInProcess } from '../../helpers/in-process-sync.js';
import { appendToState, dataText, foldedState, forgedToken } from '../../helpers/state-reader.js';
import { stateNodes, TEST_STATE_KEY, withSyncFixture, type FixtureOptions, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * The property behind every attack on the shared state: whatever a workspace editor does to it (tokens
 * changed, records forged with a correct checksum, junk added), a run without a ledger deletes no document
 * its own observations do not call for, changes no other document's body, makes no duplicate, uploads
 * nothing, and writes no file outside the synced set. For a team with a state key and for one without.
 */
const FILES: Readonly<Record<string, string>> = {
  'a.md': '# Alpha\n\nA.\n',
  'b.md': '# Beta\n\nB.\n',
  'guide/c.md': '# Gamma\n\nC.\n',
  'guide/d.md': '# Delta\n\nD.\n',
};

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);

/** Forged records, drawing on the world's real ids so that a forgery can name real documents. */
function forgedRecords(ids: { readonly docKeys: readonly string[]; readonly nodeIds: readonly string[]; readonly stateDocs: readonly string[]; readonly hashes: readonly string[] }): fc.Arbitrary<StateRecord> {
  // Mostly real paths and ids (a forgery that names real documents is the dangerous one), sometimes not.
  const path = fc.oneof(
    { arbitrary: fc.constantFrom('a.md', 'b.md', 'guide/c.md', 'guide/d.md'), weight: 4 },
    { arbitrary: fc.constantFrom('x.md', 'guide/new.md', '.git/x.md', 'node_modules/m.md', '../o.md', 'guide/.kbsync/s.md', 'deep/er/n.md'), weight: 1 },
  );
  const docKey = fc.oneof({ arbitrary: fc.constantFrom(...ids.docKeys), weight: 6 }, { arbitrary: fc.constantFrom(...ids.stateDocs), weight: 1 }, { arbitrary: fc.stringMatching(/^[A-Za-z0-9]{8,32}$/), weight: 1 });
  const nodeId = fc.oneof({ arbitrary: fc.constantFrom(...ids.nodeIds), weight: 6 }, { arbitrary: fc.stringMatching(/^[A-Za-z0-9]{8,24}$/), weight: 1 });
  const origin = fc.constantFrom('created' as const, 'create-answer-lost' as const, 'linked' as const, 'pulled' as const);
  return fc.oneof(
    { arbitrary: fc.record({ t: fc.constant('doc' as const), p: path, k: docKey, n: fc.option(nodeId, { nil: null, freq: 5 }), h: fc.oneof(fc.constantFrom(...ids.hashes), hex), rb: fc.oneof(fc.constantFrom(...ids.hashes), hex), m: fc.constantFrom('', '2020-01-01T00:00Z'), o: origin }), weight: 6 },
    { arbitrary: fc.record({ t: fc.constant('gone' as const), p: path, k: docKey }), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('journal' as const), k: docKey, n: nodeId }), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('retire' as const), docs: fc.array(docKey, { maxLength: 3 }) }), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('reset' as const), family: fc.constantFrom('state' as const, 'sources' as const), below: fc.nat(1000) }), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('img' as const), k: hex.map((h) => `sha256:${h}`), u: fc.constantFrom('javascript:alert(1)', 'https://ok.example/i.png', 'http://x.example/a.png)[y](z', 'data:image/png;base64,AAAA') }), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('dir' as const), p: fc.constantFrom('guide', '.git', 'node_modules', 'x'), tn: docKey, n: fc.option(nodeId, { nil: null }) }), weight: 1 },
  ) as fc.Arbitrary<StateRecord>;
}

type Corruption = {
  readonly flips: readonly { readonly token: number; readonly at: number; readonly char: string }[];
  readonly forged: readonly StateRecord[];
  readonly future: boolean;
  readonly junk: readonly string[];
};

/** Every file under `dir`, relative. */
async function filesUnder(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(join(dir, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    if ((await stat(join(dir, path))).isDirectory()) out.push(...(await filesUnder(dir, path)));
    else out.push(path);
  }
  return out.sort();
}

async function corruptionProperty(options: FixtureOptions, runs: number): Promise<void> {
  const uploads = await mkdtemp(join(tmpdir(), 'kbsync-uploads-'));
  const log = join(uploads, 'log');
  try {
    await withSyncFixture(async (f) => {
      for (const [path, text] of Object.entries(FILES)) await f.write(path, text);
      assert.equal((await f.sync(['--push'])).code, 0);
      const world = f.em.admin.dump().nodes;
      const genuineState = new Map(stateNodes(world).map((n) => [n.dentryUuid, n.markdown ?? '']));
      const bodies = new Map(f.remoteDocs().map((d) => [d.title, { k: d.dentryUuid, markdown: d.markdown }]));
      const entries = [...foldedState(f, options.env ? null : TEST_STATE_KEY).entries.values()];
      // The hashes the genuine records hold: a forgery that copies them passes every check of a record's content.
      const hashes = [...new Set(entries.flatMap((entry) => [entry.h, entry.rb]).filter((hash) => hash !== ''))];
      const ids = { docKeys: f.remoteDocs().map((d) => d.dentryUuid), nodeIds: f.remoteDocs().map((d) => d.creationNodeId), stateDocs: [...genuineState.keys()], hashes };
      const corruption: fc.Arbitrary<Corruption> = fc.record({
        flips: fc.array(fc.record({ token: fc.nat(), at: fc.nat(), char: fc.constantFrom('A', 'z', '0', '+', '/') }), { maxLength: 3 }),
        forged: fc.array(forgedRecords(ids), { minLength: 1, maxLength: 8 }),
        future: fc.boolean(),
        junk: fc.array(fc.constantFrom('hello', '<img src=".git/config">', `k${'A'.repeat(40)}.0123456789ab`), { maxLength: 2 }),
      });

      await fc.assert(
        fc.asyncProperty(corruption, async (c) => {
          try {
            await restore(f, genuineState);
            corrupt(f, c);
            f.em.admin.resetCalls();
            // A CI job on a commit that deletes b.md (the one deletion its observations call for).
            await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
            await rm(join(f.root, 'b.md'), { force: true });
            const push = await withInProcess(f, 'push', ({ client, ledger, options: run }) => runSync({ client, ledger, logger: silentLogger }, run));
            // A fresh machine clones (two-way into an empty folder).
            for (const path of Object.keys(FILES)) await rm(join(f.root, path), { force: true });
            await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
            await withInProcess(f, 'two-way', ({ client, ledger, options: run }) => runSync({ client, ledger, logger: silentLogger }, run));

            const docs = new Map(f.remoteDocs().map((d) => [d.title, d]));
            for (const title of ['Alpha', 'Gamma', 'Delta']) assert.equal(docs.get(title)?.markdown, bodies.get(title)?.markdown, `${title} is unchanged`);
            const beta = docs.get('Beta');
            if (beta) assert.equal(beta.markdown, bodies.get('Beta')?.markdown, 'Beta, if not deleted, is unchanged');
            assert.equal(f.remoteDocs().length, docs.size, 'no title twice');
            assert.ok(f.remoteDocs().length <= 4, `no new document: ${[...docs.keys()].join(', ')}`);
            for (const title of docs.keys()) assert.ok(bodies.has(title), `no document made: ${title}`);
            assert.ok(push.results.every((r) => r.path === 'b.md' || !r.ok || r.result !== 'pushed'), `nothing pushed but b.md's deletion: ${JSON.stringify(push.results)}`);
            const files = (await filesUnder(f.root)).filter((path) => !path.startsWith('.kbsync/'));
            for (const path of files) assert.ok(!/(^|\/)(\.|node_modules\/)/.test(path) && path.endsWith('.md'), `a file written outside the synced set: ${path}`);
            await assert.rejects(stat(join(f.dir, 'o.md')));
            await assert.rejects(readFile(log), 'nothing uploaded');
          } catch (error) {
            // fast-check names the corruption; the assertion it broke is said here.
            console.log(`this corruption broke the property: ${error instanceof Error ? error.message : String(error)}: ${JSON.stringify(c)}`);
            throw error;
          }
        }),
        { numRuns: runs, seed: 20261201 },
      );
    }, { ...options, config: { images: { upload: `echo "$1" >> "${log}" && echo "https://img.example/x"` } } });
  } finally {
    await rm(uploads, { recursive: true, force: true });
  }
}

/** The state as it was published, the files as they were: the next corruption starts from the same world. */
async function restore(f: SyncFixture, genuine: ReadonlyMap<string, string>): Promise<void> {
  for (const node of stateNodes(f.em.admin.dump().nodes)) if (!genuine.has(node.dentryUuid)) f.em.admin.deleteNode(node.dentryUuid);
  for (const [docKey, markdown] of genuine) f.em.admin.editDocument(docKey, markdown);
  // Files a clone wrote where the last corruption sent them (anywhere in the synced set) go too.
  await rm(f.root, { recursive: true, force: true });
  for (const [path, text] of Object.entries(FILES)) await f.write(path, text);
}

function corrupt(f: SyncFixture, c: Corruption): void {
  const index = stateNodes(f.em.admin.dump().nodes).filter((n) => n.title.startsWith('kbsync-state-'));
  for (const flip of c.flips) {
    const node = index[flip.token % index.length];
    if (!node) continue;
    const tokens = dataText(node).split(' ');
    const i = flip.token % tokens.length;
    const token = tokens[i] ?? '';
    const at = flip.at % Math.max(1, token.length);
    tokens[i] = `${token.slice(0, at)}${flip.char}${token.slice(at + 1)}`;
    const note = (node.markdown ?? '').split('\n\n')[0] ?? '';
    f.em.admin.editDocument(node.dentryUuid, `${note}\n\n${tokens.join(' ')}\n`);
  }
  const extra = [...(c.forged.length > 0 ? [forgedToken(c.forged, c.future ? Date.now() + 3_600_000 : 1)] : []), ...c.junk];
  if (extra.length > 0) appendToState(f, extra.join(' '));
}

describe('random corruption of the shared state', () => {
  test('a team with a state key: never a deletion not called for, an upload, a duplicate, or a file outside the synced set', async () => {
    await corruptionProperty({}, 12);
  });

  test('a team without one: the same', async () => {
    await corruptionProperty({ env: { KBSYNC_STATE_KEY: '' } }, 12);
  });
});
