import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { onCleanup, removeAtCleanup } from './cleanup.js';
import { PEAK_RSS_IMPORT, runProcess, type Finished, type RunOptions } from './proc.js';
import { planTree, writeTree, type Tree, type TreeShape } from './tree.js';

export const kbsyncBin = fileURLToPath(new URL('../../bin/kbsync.js', import.meta.url));
/** The emulator's default, which is the real service's per-endpoint limit. */
export const SERVICE_LIMIT = 20;

/**
 * One benchmark setting: an emulator (in this process, at the service's default limit), a temp
 * folder with `notes/` and a sync.config.json pointing at it, and a tree of notes.
 */
export type Site = {
  readonly name: string;
  readonly em: RunningEmulator;
  readonly dir: string;
  readonly root: string;
  readonly configPath: string;
  readonly tree: Tree;
  readonly emulator: Emulator;
  /** `node bin/kbsync.js <args> --config <config>`, exactly as a user runs it. */
  cli(args: readonly string[], options?: CliOptions): Promise<Finished>;
  /** `kbsync sync --json [--push|--pull]`; fails unless everything synced. */
  sync(mode: 'push' | 'pull' | 'two-way', options?: CliOptions): Promise<{ run: Finished; report: SyncReport }>;
  /** Rewrites sync.config.json with `patch` laid over the base config (one level deep). */
  configure(patch?: Record<string, Record<string, unknown>>): Promise<void>;
  /** Stops the emulator and removes the folder now (both also happen at cleanup). */
  dispose(): Promise<void>;
};

/** `peakRss`: the process says its RSS high-water mark as it exits (Finished.peakRssMb); off where start-up is timed. */
type CliOptions = RunOptions & { readonly peakRss?: boolean };

export type SiteOptions = {
  /** Where the temp folder is made (default: the OS temp folder). */
  readonly base?: string;
};

export async function createSite(name: string, shape: TreeShape, options: SiteOptions = {}): Promise<Site> {
  const em = await startEmulator({ rateLimit: SERVICE_LIMIT, clockOffsetMs: BUILD_CLOCK_OFFSET_MS });
  const closeEmulator = onCleanup(`close the ${name} emulator`, () => em.close());
  const dir = await mkdtemp(join(options.base ?? tmpdir(), `kbsync-bench-${name}-`));
  const forget = removeAtCleanup(dir);
  const tree = planTree(shape);
  await writeTree(join(dir, 'notes'), tree);
  await writeFile(join(dir, 'token'), `${em.seed.token}\n`, { mode: 0o600 });
  const site = openSite(name, { em, close: closeEmulator }, dir, tree, forget);
  await site.configure();
  return site;
}

type Emulator = { readonly em: RunningEmulator; readonly close: () => Promise<void> };

function openSite(name: string, emulator: Emulator, dir: string, tree: Tree, remove: () => Promise<void>): Site {
  const { em } = emulator;
  const configPath = join(dir, 'sync.config.json');
  const cli = (args: readonly string[], { peakRss, ...options }: CliOptions = {}): Promise<Finished> =>
    runProcess(process.execPath, [...(peakRss ? [PEAK_RSS_IMPORT] : []), kbsyncBin, ...args, '--config', configPath], { cwd: dir, ...options });
  return {
    name,
    em,
    dir,
    root: join(dir, 'notes'),
    configPath,
    tree,
    emulator,
    cli,
    async sync(mode, options = {}) {
      const flags = mode === 'push' ? ['--push'] : mode === 'pull' ? ['--pull'] : [];
      const run = await cli(['sync', '--json', ...flags], options);
      const line = run.stdout.trim().split('\n').pop() ?? '';
      if (run.code !== 0 || !line.startsWith('{')) {
        // A partial run (exit 1) says why in its report: name the first failures and problems.
        let why = '';
        try {
          const report = JSON.parse(line) as SyncReport;
          why = JSON.stringify({ failed: report.results.filter((r) => !r.ok).slice(0, 5), problems: report.problems.slice(0, 5), pending: report.pending?.slice?.(0, 5) });
        } catch {
          why = run.stdout.slice(-1500);
        }
        throw new Error(`kbsync sync ${flags.join(' ')} on the ${name} tree exited ${run.code ?? run.signal}:\n${run.stderr.slice(-3000)}\n${why.slice(0, 3000)}`);
      }
      return { run, report: JSON.parse(line) as SyncReport };
    },
    async configure(patch = {}) {
      const base: Record<string, Record<string, unknown> | string> = {
        root: './notes',
        workspaceId: em.seed.workspaceId,
        service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId, token: { file: './token' } },
        log: { level: 'warn' },
      };
      const merged: Record<string, unknown> = { ...base };
      for (const [key, value] of Object.entries(patch)) merged[key] = { ...(base[key] as object | undefined), ...value };
      await writeFile(configPath, `${JSON.stringify(merged, null, 2)}\n`);
    },
    async dispose() {
      await emulator.close();
      await remove();
    },
  };
}

/** The client unpaced and wide: for building synced state quickly while the emulator does not limit. */
export const UNLIMITED_CLIENT: Record<string, string> = { KBSYNC_SERVICE_RATE_LIMIT: '1000000', KBSYNC_SERVICE_CONCURRENCY: '16' };

/**
 * Sites start with the emulator's clock 150 s behind, so every document written while building them
 * carries a modifiedTime from an earlier minute than the settle run sees (see `settle`).
 */
export const BUILD_CLOCK_OFFSET_MS = -150_000;

/** Runs `fn` with the emulator's rate limit off and the client unpaced; the limit comes back after. */
async function unlimited<T>(site: Site, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  site.em.admin.setRateLimit(0);
  try {
    return await fn(UNLIMITED_CLIENT);
  } finally {
    site.em.admin.setRateLimit(SERVICE_LIMIT);
  }
}

/** The first push, as fast as the machine allows (the emulator does not limit); its time and its peak RSS. */
export async function fastPush(site: Site): Promise<{ pushS: number; pushPeakMb: number }> {
  // Setup, and the peak memory of a one-shot sync: on a busy 2-core machine 10,000 documents take a few minutes.
  const { run } = await unlimited(site, (env) => site.sync('push', { env, timeoutMs: 900_000, peakRss: true }));
  return { pushS: run.ms / 1000, pushPeakMb: run.peakRssMb };
}

export type Settled = { readonly settleS: number; readonly checks: number; readonly settlePeakMb: number };

/**
 * Our own writes leave each document to be read back once its minute is over ('check'), because the
 * service's modifiedTime has minute precision and a later edit in the same minute would not show. The
 * emulator's clock is moved forward to real time (documents were written 150 s "ago"), so one two-way run
 * does every read-back once and finds every minute over: after it, nothing is pending. Returns its
 * duration, the read-backs it made and its peak RSS; `beforeReset` sees the emulator's counts before they
 * are reset.
 */
export async function settle(site: Site, beforeReset?: () => void): Promise<Settled> {
  site.em.admin.setClockOffset(0);
  const { run, report } = await unlimited(site, (env) => site.sync('two-way', { env, timeoutMs: 900_000, peakRss: true }));
  beforeReset?.();
  site.em.admin.resetCalls();
  return { settleS: run.ms / 1000, checks: report.callsByEndpoint['readBlocks'] ?? 0, settlePeakMb: run.peakRssMb };
}

export type SettleReport = { readonly pushS: number; readonly pushPeakMb: number; readonly moveS: number } & Settled;

const SHM = '/dev/shm';
/** Sites whose build is setup, not measured, go in memory where there is /dev/shm: the ledger's fsyncs cost nothing there. */
export const IN_MEMORY: SiteOptions = existsSync(SHM) ? { base: SHM } : {};

/**
 * A settled site on the real disk, built fast with the real sync: the ledger commits with fsync
 * (about 5 ms each here, several per document), so the build runs in memory (/dev/shm, where fsync is
 * free) and the finished folder is then copied to the OS temp folder with `cp -a` (times kept). The
 * copy has new inode numbers, which the stat fast path treats as "maybe changed": one `sync --push`
 * reads and hashes every file, finds them unchanged and records the new stats, making no calls. From
 * then on the folder is exactly a user's synced folder.
 */
export async function createSettledSite(name: string, shape: TreeShape): Promise<{ site: Site; setup: SettleReport }> {
  const inMemory = IN_MEMORY.base !== undefined;
  const built = await createSite(name, shape, IN_MEMORY);
  const pushed = await fastPush(built);
  const settled = await settle(built);
  if (!inMemory) return { site: built, setup: { ...pushed, ...settled, moveS: 0 } };
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), `kbsync-bench-${name}-`));
  const forget = removeAtCleanup(dir);
  await promisify(execFile)('cp', ['-a', `${built.dir}/.`, dir]);
  await rm(built.dir, { recursive: true, force: true });
  const site = openSite(name, built.emulator, dir, built.tree, forget);
  const restat = await site.sync('push', { timeoutMs: 900_000 });
  if (restat.report.calls !== 0) throw new Error(`the re-stat push after copying the ${name} tree made ${restat.report.calls} calls; expected none`);
  return { site, setup: { ...pushed, ...settled, moveS: (performance.now() - started) / 1000 } };
}

/**
 * A settled site `factor` times as large as `base`, made without pushing it again (50,000 documents
 * through the emulator would take a quarter of an hour here): the base's folder (notes, ledger, config)
 * is copied, each top folder copied again under the next free names (area-10… for a base of 10), and the
 * ledger given a row per copied file and folder, the base row's with the path and ids changed. Every
 * copied file is byte for byte a synced file, so the re-stat push reads and hashes it, finds it unchanged
 * and records its stat, with no call. Without `remote` the remote side holds the base only, so only a push
 * no-op runs on it; with `remote` every copy gets a twin in the emulator (`mirrorCopies`), for a daemon.
 */
export async function scaledSite(name: string, base: Site, factor: number, options: { readonly remote?: boolean } = {}): Promise<Site> {
  const dir = await mkdtemp(join(tmpdir(), `kbsync-bench-${name}-`));
  const forget = removeAtCleanup(dir);
  const run = promisify(execFile);
  await run('cp', ['-a', `${base.dir}/.`, dir]);
  const { top } = base.tree.shape;
  const topName = (t: number): string => `area-${String(t).padStart(2, '0')}`;
  for (let k = 1; k < factor; k++) for (let t = 0; t < top; t++) await run('cp', ['-a', join(dir, 'notes', topName(t)), join(dir, 'notes', topName(t + k * top))]);
  const db = new Database(join(dir, 'notes', '.kbsync', 'ledger.sqlite'), { fileMustExist: true });
  try {
    // SQL's printf pads the new top folder's number as topName does; everything after the first segment is kept.
    // Only the base's own rows are copied, never an earlier copy's (area-10 copied again would collide).
    const original = (column: string) => `CAST(substr(${column}, 6, 2) AS INTEGER) < ${top}`;
    const renamed = (column: string, k: number) => `printf('area-%02d', CAST(substr(${column}, 6, 2) AS INTEGER) + ${k * top}) || substr(${column}, 8)`;
    db.transaction(() => {
      for (let k = 1; k < factor; k++) {
        db.exec(`INSERT INTO folders (path, tree_node_id, node_id, remote_title)
          SELECT ${renamed('path', k)}, tree_node_id || '-x${k}', node_id || '-x${k}', remote_title FROM folders WHERE path LIKE 'area-%' AND ${original('path')}`);
        db.exec(`INSERT INTO documents (path, doc_key, node_id, tree_node_id, workspace_id, parent_tree_node_id, url, remote_title, local_hash, stat_size, stat_mtime_ms, stat_ino,
            remote_blocks_hash, remote_modified_time, synced_at, recheck, conflict, conflict_path, origin, held_code, held_local_hash, held_remote_time, published_record, published_source)
          SELECT ${renamed('path', k)}, doc_key || '-x${k}', node_id || '-x${k}', tree_node_id || '-x${k}', workspace_id,
            CASE WHEN parent_tree_node_id IN (SELECT tree_node_id FROM folders WHERE path LIKE 'area-%') THEN parent_tree_node_id || '-x${k}' ELSE parent_tree_node_id END,
            url || '-x${k}', remote_title, local_hash, stat_size, stat_mtime_ms, stat_ino, remote_blocks_hash, remote_modified_time, synced_at, recheck, conflict, conflict_path,
            origin, held_code, held_local_hash, held_remote_time, published_record, published_source
          FROM documents WHERE path LIKE 'area-%' AND ${original('path')}`);
        db.exec(`INSERT INTO document_bodies (document_id, base_markdown, remote_blocks_json, alignment_json, members_json)
          SELECT copy.id, b.base_markdown, b.remote_blocks_json, b.alignment_json, b.members_json
          FROM documents copy JOIN documents orig ON copy.doc_key = orig.doc_key || '-x${k}' JOIN document_bodies b ON b.document_id = orig.id`);
      }
    })();
    if (options.remote) mirrorCopies(db, base.em);
  } finally {
    db.close();
  }
  const tree = planTree({ ...base.tree.shape, top: top * factor });
  // The base's emulator stays the base's: disposing of this site removes only its folder.
  const site = openSite(name, { em: base.em, close: async () => undefined }, dir, tree, forget);
  const restat = await site.sync('push', { timeoutMs: 900_000 });
  if (restat.report.calls !== 0 || restat.report.planned.length !== 0) {
    throw new Error(`the re-stat push of the scaled ${name} tree made ${restat.report.calls} calls and planned ${restat.report.planned.length} actions; expected none`);
  }
  return site;
}

/**
 * Gives every copied folder and document of a scaled ledger (ids ending in -x<k>) a twin in the emulator,
 * made in process (no calls, no limit) with the original document's body, and records the twin's real ids,
 * URL and modifiedTime in the copied row: a daemon's sweep then lists exactly what the ledger says (the
 * block hash ignores block ids, so the copied one holds). The emulator's clock is set back while creating,
 * as when the base was built, so every modifiedTime is of a minute that is over.
 */
function mirrorCopies(db: Database.Database, em: RunningEmulator): void {
  const dump = em.admin.dump();
  const markdownOf = new Map(dump.nodes.map((node) => [node.dentryUuid, node.markdown ?? '']));
  const newIds = new Map<string, string>(); // copied treeNodeId -> the twin's dentryUuid
  const folderIdAt = new Map<string, string>([['', em.seed.rootNodeId]]);
  for (const row of db.prepare(`SELECT path, tree_node_id FROM folders WHERE tree_node_id NOT LIKE '%-x%'`).all() as { path: string; tree_node_id: string }[]) folderIdAt.set(row.path, row.tree_node_id);
  const parentOf = (path: string): string => folderIdAt.get(path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '') as string;
  em.admin.setClockOffset(BUILD_CLOCK_OFFSET_MS);
  try {
    db.transaction(() => {
      const folders = db.prepare(`SELECT path, tree_node_id FROM folders WHERE tree_node_id LIKE '%-x%' ORDER BY length(path), path`).all() as { path: string; tree_node_id: string }[];
      for (const folder of folders) {
        // Named as the copy is (area-10), not as the original row says (area-00): one name per parent.
        const name = folder.path.slice(folder.path.lastIndexOf('/') + 1);
        const made = em.admin.createDocument({ parentNodeId: parentOf(folder.path), name, folder: true, asUser: em.seed.operatorId });
        folderIdAt.set(folder.path, made.dentryUuid);
        newIds.set(folder.tree_node_id, made.dentryUuid);
        db.prepare('UPDATE folders SET tree_node_id = ?, node_id = ?, remote_title = ? WHERE path = ?').run(made.dentryUuid, made.nodeId, name, folder.path);
      }
      const docs = db.prepare(`SELECT path, tree_node_id, remote_title FROM documents WHERE tree_node_id LIKE '%-x%'`).all() as { path: string; tree_node_id: string; remote_title: string }[];
      const update = db.prepare('UPDATE documents SET doc_key = ?, node_id = ?, tree_node_id = ?, parent_tree_node_id = ?, url = ? WHERE path = ?');
      for (const doc of docs) {
        const original = doc.tree_node_id.replace(/-x\d+$/, '');
        const parent = parentOf(doc.path);
        const made = em.admin.createDocument({ parentNodeId: parent, name: doc.remote_title, markdown: markdownOf.get(original) ?? '', asUser: em.seed.operatorId });
        newIds.set(doc.tree_node_id, made.dentryUuid);
        update.run(made.docKey, made.nodeId, made.dentryUuid, parent, made.url, doc.path);
      }
    })();
  } finally {
    em.admin.setClockOffset(0);
  }
  const times = db.prepare('UPDATE documents SET remote_modified_time = ? WHERE tree_node_id = ?');
  const twins = new Set(newIds.values());
  db.transaction(() => {
    for (const node of em.admin.dump().nodes) if (node.docType === 'DOC' && twins.has(node.dentryUuid)) times.run(node.modifiedTime, node.dentryUuid);
  })();
}
