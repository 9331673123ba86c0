import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appendToState, foldedState, forgedSource, forgedToken } from '../../helpers/state-reader.js';
import { TEST_STATE_KEY, withSyncFixture, type FixtureOptions, type SyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A colleague with edit rights in the workspace attacks the shared state as the web editor lets them:
 * records with a correct checksum (anyone can compute it) but without the team's key. Each attack must
 * leave documents and files untouched, or be refused clearly while the rest of the run goes on, for a
 * team with a state key (the forged records are not verified, so not used) and for one without (the
 * records are used only where a forged one can do no harm).
 */
const KEYLESS: FixtureOptions = { env: { KBSYNC_STATE_KEY: '' } };
const TEAMS: readonly (readonly [string, FixtureOptions])[] = [
  ['a team with a state key', {}],
  ['a team without one', KEYLESS],
];

async function ciRun(f: SyncFixture, args: readonly string[] = ['--push']) {
  await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
  return f.sync(args);
}

/** Every file under `dir`, relative, kbsync's own state folder left out. */
async function filesUnder(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(join(dir, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    if (path === '.kbsync') continue;
    if ((await stat(join(dir, path))).isDirectory()) out.push(...(await filesUnder(dir, path)));
    else out.push(path);
  }
  return out.sort();
}

/** The state as the team's own kbsync reads it (with its key, or without one). */
const stateOf = (f: SyncFixture, options: FixtureOptions) => foldedState(f, options.env ? null : TEST_STATE_KEY);

const docIds = (f: SyncFixture) => new Map(f.remoteDocs().map((d) => [d.title, { k: d.dentryUuid, n: d.creationNodeId, markdown: d.markdown }]));

async function published(f: SyncFixture, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) await f.write(path, text);
  const run = await ciRun(f);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
}

describe('attacks on the shared state', () => {
  for (const [team, options] of TEAMS) {
    test(`${team}: a record pairing one document with another's creation id never deletes that other document`, async () => {
      await withSyncFixture(async (f) => {
        await published(f, { 'a.md': '# Alpha\n\nA.\n', 'b.md': '# Beta\n\nB.\n' });
        const ids = docIds(f);
        const alpha = ids.get('Alpha');
        const beta = ids.get('Beta');
        assert.ok(alpha && beta);
        const entry = stateOf(f, options).entries.get('a.md');
        // The real record with only the creation id changed (its re-check mark kept: without it the reader trusts
        // a write's minute it should re-check, and a write that landed in the next minute reads as an edit).
        appendToState(f, forgedToken([{ t: 'doc', p: 'a.md', k: alpha.k, n: beta.n, h: entry?.h ?? '', rb: entry?.rb ?? '', m: entry?.m ?? '', ...(entry?.r === 1 ? { r: 1 as const } : {}), o: 'created' }]));
        await f.remove('a.md');
        const run = await ciRun(f);
        assert.ok(run.code === 0 || run.code === 1, `${run.stdout}\n${run.stderr}`);
        assert.ok(f.remoteDocs().some((d) => d.title === 'Beta' && d.markdown === beta.markdown), 'Beta is untouched');
        if (options.env) {
          // Without a key no creation id comes from the state: Alpha's deletion is held and said.
          const acted = run.report?.results.filter((r) => !r.ok || r.result !== 'unchanged');
          assert.deepEqual(acted?.map((r) => [r.path, r.ok && r.result, r.ok ? r.reason : r.code]), [['a.md', 'held', 'ID_UNVERIFIED']]);
          assert.ok(run.report?.notices.some((n) => n.code === 'STATE_UNAUTHENTICATED'), 'the unauthenticated state is said');
        } else {
          assert.deepEqual(run.report?.planned, [{ path: 'a.md', kind: 'delete-remote' }], 'the forged record is not used: Alpha is deleted with its own id');
          assert.ok(!f.remoteDocs().some((d) => d.title === 'Alpha'));
          assert.ok(run.report?.notices.some((n) => n.code === 'STATE_JUNK'), 'the forged piece is said');
        }
      }, options);
    });

    test(`${team}: forged paths into .git, .kbsync and node_modules write no file there; a forged reset switches nothing off`, async () => {
      await withSyncFixture(async (f) => {
        await published(f, { 'a.md': '# Alpha\n\nA.\n', 'b.md': '# Beta\n\nB.\n' });
        const alpha = docIds(f).get('Alpha');
        assert.ok(alpha);
        const forged = ['.git/hooks/pre-commit.md', '.kbsync/ledger.md', 'node_modules/x/readme.md', 'sub/.git/config.md', '../outside.md'].map((p) => ({ t: 'doc' as const, p, k: alpha.k, n: alpha.n, h: '', rb: '', m: '', o: 'created' as const }));
        appendToState(f, [forgedToken(forged), forgedToken([{ t: 'reset', family: 'state', below: 999 }, { t: 'reset', family: 'sources', below: 999 }])].join(' '));
        // A fresh machine pulls everything (two-way, no ledger).
        await rm(join(f.root, 'a.md'));
        await rm(join(f.root, 'b.md'));
        const run = await ciRun(f, []);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.deepEqual(await filesUnder(f.root), ['a.md', 'b.md'], 'the files come back where they were synced, nowhere else');
        await assert.rejects(stat(join(f.dir, 'outside.md')));
        assert.ok(run.report?.notices.some((n) => n.code === 'STATE_JUNK' || n.code === 'STATE_UNAUTHENTICATED'));
        // The state is still on: a fresh checkout pairs both files and has nothing to do.
        const again = await ciRun(f);
        assert.deepEqual(again.report?.planned, []);
      }, options);
    });

    test(`${team}: forged image URLs never reach a document: no javascript:, nothing that breaks out of the image`, async () => {
      const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp(join((process.env['TMPDIR'] ?? '/tmp'), 'kbsync-upload-')));
      const log = join(dir, 'uploads.log');
      const upload = `echo "$1" >> "${log}" && echo "https://img.example/$KBSYNC_IMAGE_KEY"`;
      try {
        await withSyncFixture(async (f) => {
          // An image by its bytes (kbsync publishes nothing else): the PNG signature, then anything.
          await mkdir(join(f.root, 'img'), { recursive: true });
          await writeFile(join(f.root, 'img/logo.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from('-logo')]));
          await published(f, { 'a.md': '# Alpha\n\nA.\n' });
          const hash = (await import('node:crypto')).createHash('sha256').update(await readFile(join(f.root, 'img/logo.png'))).digest('hex');
          appendToState(
            f,
            forgedToken([
              { t: 'img', k: `sha256:${hash}`, u: 'javascript:alert(1)' },
              { t: 'img', k: `sha256:${hash}`, u: 'https://img.example/x.png) [sign in again](https://phish.example' },
            ]),
          );
          await f.write('a.md', '# Alpha\n\nA.\n\n![logo](img/logo.png)\n');
          const run = await ciRun(f);
          assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
          const body = f.remoteDocs().find((d) => d.title === 'Alpha')?.markdown ?? '';
          assert.doesNotMatch(body, /javascript:|phish|sign in again/);
          assert.match(body, /!\[logo\]\(https:\/\/img\.example\/[^)\s]+\)/, 'the image was uploaded by this run and linked properly');
        }, { ...options, config: { images: { upload } } });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test(`${team}: a "zip bomb" source and a colleague's junk appended to the state stop nothing`, async () => {
      await withSyncFixture(async (f) => {
        await published(f, { 'a.md': '---\ntitle: Alpha\n---\n# Alpha\n\nA **bold** word.\n' });
        const { deflateRawSync } = await import('node:zlib');
        const { frame } = await import('../../../src/remote-state/token.js');
        const bomb = deflateRawSync(Buffer.alloc(30 * 1024 * 1024));
        const entry = stateOf(f, options).entries.get('a.md');
        assert.ok(entry);
        const header = Buffer.from(`${JSON.stringify({ h: entry.h, i: 0, of: 1 })}\n`);
        appendToState(f, frame('s', Buffer.concat([header, bomb]), undefined), 'sources');
        appendToState(f, 'hello from a colleague, who wonders what these documents are');
        // A fresh machine clones: the genuine source is used, the bomb is not inflated past its bound.
        await rm(join(f.root, 'a.md'));
        const run = await ciRun(f, []);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.equal(await f.read('a.md'), '---\ntitle: Alpha\n---\n# Alpha\n\nA **bold** word.\n');
        assert.ok(run.report?.notices.some((n) => n.code === 'STATE_JUNK'), 'the junk is said once');
        assert.equal(run.report?.notices.filter((n) => n.code === 'STATE_JUNK').length, 1);
      }, options);
    });
  }

  for (const [team, options] of TEAMS) {
    test(`${team}: forged team settings never change a fresh checkout's layout or stop it with a claimed key; a keyless one follows only what a forged source could do`, async () => {
      await withSyncFixture(async (f) => {
        await published(f, { 'guide/setup.md': '# Setup\n\nSteps.\n', 'intro.md': '# Intro\n\nSee [setup](guide/setup.md).\n' });
        const before = f.remoteDocs().map((d) => [d.title, d.markdown]).sort();
        // A colleague's "team record": another layout, links off, and a key of their own, as the latest record.
        appendToState(f, forgedToken([{ t: 'team', key: 'ffffffffffffffff', layout: 'flat', links: false }]));
        await f.write('intro.md', '# Intro\n\nSee [setup](guide/setup.md), then start.\n');
        const run = await ciRun(f);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        const after = f.remoteDocs().map((d) => [d.title, d.markdown]).sort();
        assert.deepEqual(after.map(([title]) => title), before.map(([title]) => title), 'no document made or lost: the layout is the config\'s');
        const intro = f.remoteDoc('Intro').markdown ?? '';
        if (options.env) {
          // Keyless: the forged `links: false` is followed, as a forged kept source could change the text anyway.
          assert.match(intro, /\[setup\]\(guide\/setup\.md\), then start/);
        } else {
          // With the key the forged record is not read at all: the link goes as the document's URL, and no claimed key stops the run.
          assert.match(intro, new RegExp(`\\[setup\\]\\(${f.em.seed.baseUrl.replace(/\./g, '\\.')}/i/nodes/${f.remoteDoc('Setup').dentryUuid}\\), then start`));
          assert.ok(run.report?.notices.some((n) => n.code === 'STATE_JUNK'));
        }
      }, options);
    });
  }

  test('a team without a key: a document titled like a keyed state document stops nothing; it is left out, and said', async () => {
    await withSyncFixture(async (f) => {
      await published(f, { 'a.md': '# Alpha\n\nA.\n' });
      const folder = f.em.admin.dump().nodes.find((node) => node.title === '.kbsync');
      assert.ok(folder);
      // Its title in the form a kbsync with a key gives its state documents, and a body that is not one: junk, or a tease.
      const title = 'kbsync-state-000009-abcdefgh-0123456789abcdef';
      f.em.admin.createDocument({ name: title, parentNodeId: folder.dentryUuid, markdown: `kbsync state (index): do not edit.\n\n${forgedToken([{ t: 'reset', family: 'state', below: 999 }])} not a token\n` });
      for (const args of [['--push'], []]) {
        await f.write('b.md', `# Beta\n\n${args.join('')}\n`);
        const run = await ciRun(f, args);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        const junk = run.report?.notices.filter((n) => n.code === 'STATE_JUNK') ?? [];
        assert.equal(junk.length, 1, 'said once per run');
        assert.match(junk[0]?.message ?? '', /1 document titled as a kbsync with a state key titles its state, with none of its signed pieces in it \(someone else's: not used\)/);
        assert.match(junk[0]?.message ?? '', new RegExp(title));
        assert.doesNotMatch(run.stdout + run.stderr, /STATE_KEY_NEEDED/);
      }
      assert.equal(foldedState(f, null).entries.get('b.md')?.p, 'b.md', 'the state is written where it was, not into the planted document');
      assert.match(f.em.admin.dump().nodes.find((node) => node.title === title)?.markdown ?? '', /not a token/, 'and the planted document is left as it is');
    }, KEYLESS);
  });

  test('a machine without the key in a team with one: refused before anything is done, in words true of a real key and of a copy', async () => {
    await withSyncFixture(async (f) => {
      await published(f, { 'a.md': '# Alpha\n\nA.\n' });
      await f.write('b.md', '# Beta\n\nB.\n');
      await rm(join(f.root, '.kbsync'), { recursive: true, force: true });
      const keyless = await f.sync(['--push'], { KBSYNC_STATE_KEY: '' });
      assert.equal(keyless.code, 3, `${keyless.stdout}\n${keyless.stderr}`);
      assert.deepEqual(f.remoteDocs().map((doc) => doc.title), ['Alpha'], 'nothing was done');
      assert.match(keyless.stderr, /holds \d+ documents? written as a kbsync with a state key writes its state \(kbsync-(state|sources)-\d{6}-[a-z2-7]{8}-[0-9a-f]{16}/);
      assert.match(keyless.stderr, /this machine has no key.*It stops here/s);
      assert.match(keyless.stderr, /If your team uses a state key, put it in this machine.s key file.*or set KBSYNC_STATE_KEY.*If it has none, someone put those documents there: delete them/s);
      assert.match(keyless.stderr, /\[STATE_KEY_NEEDED\]/);
    });
  });

  test('a team with a state key: a forged kept source (with an image of .git/config) is not used; a fresh machine gets the genuine file', async () => {
    await withSyncFixture(async (f) => {
      const text = '---\ntitle: Alpha\n---\n# Alpha\n\nA.\n';
      await published(f, { 'a.md': text });
      const alpha = docIds(f).get('Alpha');
      const entry = foldedState(f).entries.get('a.md');
      assert.ok(alpha && entry);
      const evil = forgedSource('---\ntitle: Alpha\n---\n# Alpha\n\nA.\n\n<img src=".git/config" width="0" height="0">\n');
      appendToState(f, evil.tokens.join(' '), 'sources');
      appendToState(f, forgedToken([{ ...entry, t: 'doc', h: evil.hash }]));
      await rm(join(f.root, 'a.md'));
      const run = await ciRun(f, []);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(await f.read('a.md'), text);
    });
  });
});
