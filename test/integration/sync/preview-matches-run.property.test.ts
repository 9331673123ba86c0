import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, unlink, writeFile, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { openLedger } from '../../../src/ledger/index.js';
import { silentLogger } from '../../../src/log.js';
import { asWorkspaceId } from '../../../src/model/ids.js';
import { createServiceClient } from '../../../src/setup/index.js';
import type { SyncMode } from '../../../src/sync/decide/types.js';
import { runSync, type SyncOptions } from '../../../src/sync/engine.js';
import { inspect } from '../../../src/sync/views/inspect.js';
import { fileStates } from '../../../src/sync/views/status.js';
import { previewsOf } from '../../../src/sync/views/preview.js';
import { plannedRow, publishCounts } from '../../../src/sync/views/outcomes.js';
import { wouldDo } from '../../../src/sync/views/vocabulary.js';
import { markdownPreview } from '../../../src/cli/output/markdown-preview.js';
import { jobSummary } from '../../../src/cli/output/github.js';
import { countsOf } from '../../helpers/counts-table.js';
import { NO_IMAGES } from '../../../src/images/types.js';
import type { SyncReport } from '../../../src/sync/views/report.js';
import { userNodes } from '../../helpers/sync-fixture.js';

/**
 * The one-decision rule, for all scenarios: whatever both sides did, `kbsync status` and `sync --dry-run`
 * name, file by file, exactly the action the run then takes (an image changed under unchanged Markdown too),
 * and every preview counts the plan as the run counts it (a move once, as a move): the pull-request comment,
 * `diff --json`, the dry run's job summary and JSON, and status's line. KBSYNC_PROPERTY_RUNS raises the number
 * of scenarios (thousands in a long run); the suite runs a sample.
 */
const RUNS = Number(process.env['KBSYNC_PROPERTY_RUNS'] ?? 25);

const PATHS = ['a.md', 'b.md', 'sub/c.md', 'sub/d.md', 'other/e.md'] as const;
type Path = (typeof PATHS)[number];

const paragraph = fc.constantFrom('Alpha beta.', 'Gamma *delta* epsilon.', 'See [the guide](https://example.com/g).', 'Zeta `eta` theta.', 'Iota kappa lambda.');
const body = fc.record({
  paras: fc.array(paragraph, { minLength: 1, maxLength: 3 }),
  code: fc.boolean(),
  image: fc.boolean(),
});
type Body = { paras: string[]; code: boolean; image: boolean };
/** The image a file shows, beside it: `sub/c.md` → `sub/c.png`. */
const imageOf = (path: string): string => path.replace(/\.md$/, '.png');
const render = (title: string, path: string, b: Body): string =>
  `# ${title}\n\n${b.paras.join('\n\n')}\n${b.code ? '\n```sh\nmake all\n```\n' : ''}${b.image ? `\n![figure](${imageOf(path).split('/').pop() ?? ''})\n` : ''}`;
/** Bytes any reader takes for a PNG (kbsync publishes only files whose bytes are an image's), told apart by `text`. */
const png = (text: string): Buffer => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from(text)]);
/** The upload command: prints the URL the image would have (content-addressed), uploading nothing. */
const IMAGES = { ...NO_IMAGES, upload: 'echo "http://127.0.0.1:9/$KBSYNC_IMAGE_KEY"' };

const localChange = fc.constantFrom('none', 'edit', 'append', 'empty', 'delete', 'move-folder', 'rename', 'image') as fc.Arbitrary<LocalChange>;
/** `image`: the file's image gets new bytes, its Markdown unchanged (a file without one is left alone). */
type LocalChange = 'none' | 'edit' | 'append' | 'empty' | 'delete' | 'move-folder' | 'rename' | 'image';
const remoteChange = fc.constantFrom('none', 'edit', 'delete', 'move') as fc.Arbitrary<RemoteChange>;
type RemoteChange = 'none' | 'edit' | 'delete' | 'move';

const scenario = fc.record({
  files: fc.uniqueArray(fc.constantFrom(...PATHS), { minLength: 1, maxLength: 4 }),
  bodies: fc.array(body, { minLength: 5, maxLength: 5 }),
  local: fc.array(localChange, { minLength: 5, maxLength: 5 }),
  remote: fc.array(remoteChange, { minLength: 5, maxLength: 5 }),
  newLocal: fc.boolean(),
  newRemote: fc.boolean(),
  minutePassed: fc.boolean(),
  mode: fc.constantFrom<SyncMode>('two-way', 'push', 'pull'),
});

/** A report's JSON counts under the headers of its table. */
const columns = (counts: Record<string, number>): Record<string, number> => ({
  Created: counts['created'] ?? NaN,
  Updated: counts['updated'] ?? NaN,
  Moved: counts['moved'] ?? NaN,
  Renamed: counts['renamed'] ?? NaN,
  Deleted: counts['deleted'] ?? NaN,
  Held: counts['held'] ?? NaN,
  Failed: counts['failed'] ?? NaN,
  Refused: counts['refused'] ?? NaN,
  'Broken links': counts['brokenLinks'] ?? NaN,
});

/** Folders are not files: status lists files only. */
const isFolderAction = (kind: string): boolean => kind.endsWith('-folder');

describe('previews name the action the run takes', () => {
  let em: RunningEmulator;
  before(async () => {
    em = await startEmulator({ rateLimit: 0, seed: 7 });
  });
  after(async () => {
    await em.close();
  });

  test(`for ${RUNS} random scenarios of edits, deletes, moves and holds on both sides, in every mode`, async () => {
    const outcome = await fc.check(
      fc.asyncProperty(scenario, async (s) => {
        const ws = em.admin.addWorkspace({ name: `p-${Math.random().toString(36).slice(2, 8)}` });
        // A memory-backed folder when there is one: the property runs many scenarios, and fsync is not what it tests.
        const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'kbsync-prop-'));
        const root = join(dir, 'notes');
        const { client } = createServiceClient(
          { baseUrl: em.seed.baseUrl, tokenHeader: 'x-acs-service-access-token', operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' }, timeoutMs: 10_000, rateLimit: 1000, concurrency: 8, callsPerMonth: 0, shareToken: false },
          { env: { KBSYNC_TOKEN: em.seed.token }, cwd: dir, logger: silentLogger },
        );
        const options = (mode: SyncMode, dryRun: boolean): SyncOptions => ({
          root,
          stateDir: join(root, '.kbsync'),
          workspaceId: asWorkspaceId(ws.workspaceId),
          layout: 'folders',
          mode,
          dryRun,
          links: true,
          images: IMAGES,
          guards: { maxDeleteRatio: 1, maxDeletes: 100, force: false },
        });
        const sync = async (mode: SyncMode, dryRun: boolean): Promise<SyncReport> => {
          const ledger = openLedger(join(root, '.kbsync', 'ledger.sqlite'));
          try {
            return await runSync({ client, ledger, logger: silentLogger }, options(mode, dryRun));
          } finally {
            ledger.close();
          }
        };
        /** What status shows and what `diff` previews, from one inspection (made while its ledger is open). */
        const inspectAs = async (mode: SyncMode) => {
          const ledger = openLedger(join(root, '.kbsync', 'ledger.sqlite'), { readonly: true });
          try {
            const inspection = await inspect({ client, ledger }, { ...options(mode, true), offline: false });
            return { status: fileStates(inspection), previews: previewsOf(inspection) };
          } finally {
            ledger.close();
          }
        };
        try {
          await mkdir(root, { recursive: true });
          const write = async (rel: string, text: string) => {
            await mkdir(dirname(join(root, rel)), { recursive: true });
            await writeFile(join(root, rel), text);
          };
          for (const [i, path] of s.files.entries()) {
            await write(path, render(`Doc ${path}`, path, s.bodies[i] as Body));
            if (s.bodies[i]?.image) await writeFile(join(root, imageOf(path)), png(`-${path}`));
          }
          const setup = await sync('two-way', false);
          assert.equal(setup.failed, 0, JSON.stringify(setup.results));
          if (s.minutePassed) em.admin.setClockOffset(120_000);

          const docs = userNodes(em.admin.dump().nodes).filter((n) => n.workspaceId === ws.workspaceId && n.docType === 'DOC');
          const folderIds = userNodes(em.admin.dump().nodes).filter((n) => n.workspaceId === ws.workspaceId && n.docType === 'FOLDER');
          for (const [i, path] of (s.files as Path[]).entries()) {
            const doc = docs.find((d) => d.title === `Doc ${path}`);
            const abs = join(root, path);
            switch (s.local[i]) {
              case 'edit':
                await write(path, (await readFile(abs, 'utf8')).replace(/^(Alpha|Gamma|See|Zeta|Iota)/m, 'Edited: $1'));
                break;
              case 'append':
                await write(path, (await readFile(abs, 'utf8')).replace(/\.\n/, '. More.\n'));
                break;
              case 'empty':
                await write(path, '');
                break;
              case 'delete':
                await unlink(abs);
                break;
              case 'move-folder':
                await mkdir(join(root, 'moved'), { recursive: true });
                await rename(abs, join(root, 'moved', `m-${path.replace(/\//g, '-')}`));
                break;
              case 'rename':
                await rename(abs, join(dirname(abs), `renamed-${path.split('/').pop() ?? ''}`));
                break;
              case 'image':
                if (s.bodies[i]?.image) await writeFile(join(root, imageOf(path)), png(`-${path}-redrawn`));
                break;
              default:
                break;
            }
            if (!doc) continue;
            switch (s.remote[i]) {
              case 'edit':
                em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace(/\n\n([A-Z])/, '\n\nRemote: $1'));
                break;
              case 'delete':
                em.admin.deleteNode(doc.dentryUuid);
                break;
              case 'move': {
                const target = folderIds.find((f) => f.dentryUuid !== doc.parentId);
                if (target) em.admin.moveNode(doc.dentryUuid, target.dentryUuid);
                break;
              }
              default:
                break;
            }
          }
          if (s.newLocal) await write('new/fresh.md', '# Fresh\n\nNew here.\n');
          if (s.newRemote) em.admin.createDocument({ workspaceId: ws.workspaceId, parentNodeId: ws.rootNodeId, name: 'From colleague', markdown: '# From colleague\n\nHello.\n' });

          // A refusal (a guard) is a decision too: the preview must refuse exactly as the run does.
          const { status, previews } = await inspectAs(s.mode);
          const dry = await sync(s.mode, true).catch((error: { code: string }) => ({ refused: error.code }));
          const run = await sync(s.mode, false).catch((error: { code: string }) => ({ refused: error.code }));
          if ('refused' in dry || 'refused' in run) {
            assert.deepEqual('refused' in run ? run : 'ran', 'refused' in dry ? dry : 'ran');
            return;
          }
          const previewed = new Map(dry.planned.map((p) => [p.path, p.kind]));
          const done = new Map(run.results.filter((r) => r.action !== 'none').map((r) => [r.path, r.action]));
          assert.deepEqual(Object.fromEntries(done), Object.fromEntries(previewed), `mode ${s.mode}: preview ${JSON.stringify(dry.planned)} run ${JSON.stringify(run.results)}`);
          // Status shows each file's action as the preview names it, and no file it would act on as clean.
          const shown = status.filter((file) => file.action !== undefined && !previewed.has(file.path) && file.action !== 'none');
          const missing = dry.planned.filter((p) => !isFolderAction(p.kind) && status.find((file) => file.path === p.path)?.action !== p.kind);
          assert.deepEqual({ shown, missing }, { shown: [], missing: [] }, `mode ${s.mode}: status ${JSON.stringify(status)} preview ${JSON.stringify(dry.planned)}`);
          const clean = status.filter((file) => file.state === 'clean' && previewed.has(file.path));
          assert.deepEqual(clean, [], `shown clean, but the run acts: ${JSON.stringify(dry.planned)}`);
          // Counted as the run counts: every preview's table and JSON, and the words of status and the dry run.
          const ran = countsOf(jobSummary(run, 'run').join('\n'));
          const counted = {
            comment: countsOf(markdownPreview({ where: 'notes/', ...previews }).join('\n')),
            diffJson: columns(publishCounts(previews.previews.map(plannedRow), previews.problems.length, previews.links.length)),
            dryRunSummary: countsOf(jobSummary(dry, 'dry run').join('\n')),
            dryRunJson: columns(dry.outcomes),
            runJson: columns(run.outcomes),
          };
          assert.deepEqual(counted, { comment: ran, diffJson: ran, dryRunSummary: ran, dryRunJson: ran, runJson: ran }, `mode ${s.mode}: ${JSON.stringify(dry.planned)} run ${JSON.stringify(run.results)}`);
          // The run's own list of what it did: its results, in the plan's order.
          const carried = run.planned;
          assert.deepEqual(
            { status: wouldDo(status.flatMap((file) => (file.action ? [{ kind: file.action }] : []))), dryRun: wouldDo(dry.planned) },
            { status: wouldDo(carried.filter((d) => !isFolderAction(d.kind))), dryRun: wouldDo(carried) },
          );
        } finally {
          em.admin.setClockOffset(0);
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS },
    );
    // The failing scenario and the first difference, in full (the runner would show only the former).
    if (outcome.failed) assert.fail(`${fc.defaultReportMessage(outcome) ?? ''}\n${String(outcome.errorInstance)}`);
  });
});
