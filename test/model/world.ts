import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syncOptionsOf } from '../../src/cli/session.js';
import { loadConfig } from '../../src/config/index.js';
import { startEmulator, type DumpedNode, type RunningEmulator } from '../../src/emulator/index.js';
import { openLedger, type DocumentSummary } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { createServiceClient } from '../../src/setup/index.js';
import { createStateKeySource } from '../../src/setup/state-key.js';
import { runSync } from '../../src/sync/engine.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { runCli } from '../helpers/cli.js';
import { gateProxy } from '../helpers/gate-proxy.js';
import type { Interleaver } from './interleave.js';
import { userNodes } from '../helpers/sync-fixture.js';
import { localFiles } from '../helpers/reliability.js';

/** The instant the emulator's clock is frozen at when a world starts: minutes pass only when the model says so. */
const EPOCH = Date.UTC(2026, 10, 2, 9, 0, 30);

export type Outcome = {
  /** Undefined when the run stopped with an error, or was killed. */
  readonly report: SyncReport | undefined;
  readonly error?: { readonly code: string; readonly message: string };
  readonly killed?: boolean;
};

/**
 * `now`: the machine's clock, which is the service's: it stands still until the model lets a minute pass. On the
 * real clock, the seconds a busy machine spends between an answer and a decision passed in a service minute that
 * does not move, and stamped an earlier decision after a later one (seed 100106 failed so under load: a machine's
 * forced write seemed older than its own record before it, and was never published).
 */
type Settings = { readonly dir: string; readonly root: string; readonly configPath: string; readonly env: Record<string, string>; readonly now: () => number };

/** The team's state key when the world's team has one (every machine and CI run of a team share it). */
const MODEL_STATE_KEY = 'kbsync-model-state-key-5b1d93c0e2f74a68';

/** `extra`: more settings merged over these (the soak's daemon timings). */
async function settingsFor(em: RunningEmulator, name: string, keyed: boolean, vault: boolean, extra: Record<string, unknown> = {}): Promise<Settings> {
  const dir = await mkdtemp(join(tmpdir(), `kbsync-model-${name}-`));
  const root = join(dir, 'notes');
  await mkdir(root);
  const configPath = join(dir, 'sync.config.json');
  const config = {
    root: './notes',
    workspaceId: em.seed.workspaceId,
    // One request at a time: the service then answers in one order, so a seed replays the same run.
    // The service here has no rate limit, and pacing to the real one's would only make the model slow.
    service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' }, concurrency: 1, rateLimit: 1000 },
    // The model deletes freely: the guards are tested elsewhere, and a refusal would only stall it.
    guards: { maxDeleteRatio: 1, maxDeletes: 1000 },
    // A team of note vaults: every machine reads the wiki dialect (the corpus then has wiki links, embeds, callouts).
    ...(vault ? { markdown: { dialect: 'obsidian' } } : {}),
    ...extra,
  };
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const env = { KBSYNC_TOKEN: em.seed.token, XDG_CONFIG_HOME: join(dir, 'config-home'), ...(keyed ? { KBSYNC_STATE_KEY: MODEL_STATE_KEY } : {}) };
  return { dir, root, configPath, env, now: () => em.admin.now() };
}

/**
 * Runs one sync of a folder in this process, as `kbsync sync [--push|--pull] [--force]` would (or, with
 * `listRemote: 'if-needed'`, as the daemon's cycle after a save does: no listing unless a new file needs one),
 * and never throws.
 */
async function syncInProcess(given: Settings, mode: 'two-way' | 'push' | 'pull', force: boolean, listRemote?: 'if-needed', via?: string, signal?: AbortSignal): Promise<Outcome> {
  // `via`: the service's address as this run sees it (a proxy that puts two machines' calls in one order);
  // `signal`: the daemon's stop, which ends a run between two actions, its records unpublished.
  const settings = via ? { ...given, env: { ...given.env, KBSYNC_SERVICE_BASE_URL: via } } : given;
  const { config } = await loadConfig({ path: settings.configPath, cwd: settings.dir, env: settings.env });
  const { client } = createServiceClient(config.service, { env: settings.env, cwd: settings.dir, logger: silentLogger, localNow: settings.now });
  await mkdir(config.stateDir, { recursive: true });
  const ledger = openLedger(join(config.stateDir, 'ledger.sqlite'));
  try {
    // The team's key as `kbsync sync` reads it (config `state.key`, by default KBSYNC_STATE_KEY): a keyed
    // world's in-process runs sign and verify the shared state like its CLI runs.
    const stateKey = createStateKeySource(config.state.key, { env: settings.env, cwd: settings.dir, workspaceId: config.workspaceId });
    const options = { ...syncOptionsOf(config, { mode, dryRun: false, force }), stateKey, ...(listRemote ? { listRemote } : {}), ...(signal ? { signal } : {}) };
    return { report: await runSync({ client, ledger, logger: silentLogger }, options) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { report: undefined, error: { code: typeof code === 'string' ? code : 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) } };
  } finally {
    ledger.close();
  }
}

/** A workstation: a folder with its own ledger, synced with the shared workspace. */
export class Machine {
  constructor(
    readonly name: string,
    readonly settings: Settings,
  ) {}

  get root(): string {
    return this.settings.root;
  }

  /** `via`: the service's address for this run (World.together's proxy); `signal`: stops the run, as a daemon's stop does. */
  sync(mode: 'two-way' | 'push' | 'pull' = 'two-way', force = false, via?: string, signal?: AbortSignal): Promise<Outcome> {
    return this.#writing(syncInProcess(this.settings, mode, force, undefined, via, signal));
  }

  /** The daemon's cycle after a local save: two-way, listing only when a new file needs it. */
  daemonCycle(via?: string, signal?: AbortSignal): Promise<Outcome> {
    return this.#writing(syncInProcess(this.settings, 'two-way', false, 'if-needed', via, signal));
  }

  /** The real CLI in a child process that kills itself at a crash point (`point:n`). */
  async crashSync(at: string): Promise<Outcome> {
    const result = await this.#writing(runCli(['sync', '--json', '--config', this.settings.configPath], { cwd: this.settings.dir, env: { ...this.settings.env, KBSYNC_CRASH_AT: at } }));
    if (result.signal === 'SIGKILL') return { report: undefined, killed: true };
    const line = result.stdout.trim().split('\n').pop() ?? '';
    const parsed = line.startsWith('{') ? (JSON.parse(line) as SyncReport | { error?: { code: string; message: string } }) : undefined;
    if (parsed && 'results' in parsed) return { report: parsed };
    return { report: undefined, error: (parsed as { error?: { code: string; message: string } } | undefined)?.error ?? { code: 'UNEXPECTED', message: result.stderr } };
  }

  /** The Markdown files of the folder (conflict copies included), by path. */
  files(): Promise<Map<string, string>> {
    return localFiles(this.root);
  }

  read(path: string): Promise<string> {
    return readFile(join(this.root, path), 'utf8');
  }

  async write(path: string, text: string): Promise<void> {
    await mkdir(dirname(join(this.root, path)), { recursive: true });
    await writeFile(join(this.root, path), text);
  }

  remove(path: string): Promise<void> {
    return unlink(join(this.root, path));
  }

  /**
   * The ledger's rows (read only; call while no run is under way). Empty before the first sync. Read once after
   * each run: only this machine's runs write its ledger (#writing; the soak's daemons write it too, and the soak
   * reads the rows once, at rest), and the oracle asks for them several times a step (opening the ledger checks
   * the file, as every open does: 2.7 of a model file's 66 CPU-s).
   */
  rows(): DocumentSummary[] {
    this.#rows ??= this.#readRows();
    return [...this.#rows];
  }

  #rows: readonly DocumentSummary[] | undefined;

  /** `run`, a run of this machine's: the rows read before it, or while it is under way, are not the ledger's after it. */
  #writing<T>(run: Promise<T>): Promise<T> {
    this.#rows = undefined;
    return run.finally(() => (this.#rows = undefined));
  }

  #readRows(): DocumentSummary[] {
    try {
      const ledger = openLedger(join(this.root, '.kbsync', 'ledger.sqlite'), { readonly: true, lock: false });
      try {
        return [...ledger.documents.allSummaries()];
      } finally {
        ledger.close();
      }
    } catch {
      return [];
    }
  }
}

/** The service, two or three workstations, and a CI checkout made afresh from the first one's files for each run. */
export class World {
  readonly machines: Machine[];
  #dirs: string[];

  private constructor(
    readonly em: RunningEmulator,
    machines: Machine[],
    readonly keyed: boolean,
    readonly vault: boolean,
  ) {
    this.machines = machines;
    this.#dirs = machines.map((m) => m.settings.dir);
  }

  /**
   * `keyed`: the team has a state key (the shared state is signed), else it has none; `vault`: its folders are
   * note vaults; `config`: more settings for every machine (merged over the model's).
   */
  static async create(seed: number, machineCount: number, keyed = false, vault = false, config: Record<string, unknown> = {}): Promise<World> {
    const em = await startEmulator({ rateLimit: 0, seed });
    em.admin.freezeClock(EPOCH);
    const machines: Machine[] = [];
    for (const name of ['A', 'B', 'C'].slice(0, machineCount)) machines.push(new Machine(name, await settingsFor(em, name, keyed, vault, config)));
    return new World(em, machines, keyed, vault);
  }

  /** The documents of the synced workspace (kbsync's state folder left out). */
  docs(): DumpedNode[] {
    return userNodes(this.em.admin.dump().nodes).filter((node) => node.docType === 'DOC' && node.workspaceId === this.em.seed.workspaceId);
  }

  /** Minutes pass only here: the service's modifiedTime moves on, so listings can tell later edits apart. */
  #minutes = 0;
  tick(minutes = 1): void {
    this.#minutes += minutes;
    this.em.admin.setClockOffset(this.#minutes * 60_000);
  }

  /** The service's current minute, as its modifiedTime would stamp it. */
  minute(): string {
    return `${new Date(EPOCH + this.#minutes * 60_000).toISOString().slice(0, 16)}Z`;
  }

  /**
   * A stateless docs-as-code run: a fresh checkout of the first workstation's files (no ledger, no state
   * folder) pushed with `kbsync sync --push`, then thrown away, as a CI runner does.
   */
  async ci(from: Machine): Promise<{ readonly outcome: Outcome; readonly files: Map<string, string>; readonly rows: DocumentSummary[] }> {
    const settings = await settingsFor(this.em, 'ci', this.keyed, this.vault);
    try {
      await cp(from.root, settings.root, { recursive: true, filter: (src) => !src.includes(`${join(from.root, '.kbsync')}`) && !/\.conflict-[^/]*\.md$/.test(src) });
      const files = await localFiles(settings.root);
      const outcome = await syncInProcess(settings, 'push', false);
      return { outcome, files, rows: new Machine('CI', settings).rows() };
    } finally {
      await rm(settings.dir, { recursive: true, force: true });
    }
  }

  /**
   * Runs at once, one per machine, each through a proxy of its own whose calls `interleaver` orders (see
   * interleave.ts); resolves with every run's outcome, in the order given.
   */
  async together(runs: readonly { readonly machine: Machine; readonly run: (via: string) => Promise<Outcome> }[], interleaver: Interleaver): Promise<Outcome[]> {
    const proxies = await Promise.all(runs.map(({ machine }) => gateProxy(this.em.seed.baseUrl, interleaver.hooks(machine.name))));
    try {
      return await Promise.all(runs.map(({ machine, run }, i) => run((proxies[i] as { baseUrl: string }).baseUrl).finally(() => interleaver.finished(machine.name))));
    } finally {
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  }

  /** With KBSYNC_MODEL_KEEP=1 the folders stay, and the service's documents are written beside them, for a post-mortem. */
  async close(): Promise<void> {
    if (process.env['KBSYNC_MODEL_KEEP'] === '1') {
      const dump = join(this.#dirs[0] ?? tmpdir(), 'service-dump.json');
      await writeFile(dump, JSON.stringify(this.em.admin.dump(), null, 2));
      console.error(`kept: ${this.#dirs.join(' ')} (service: ${dump})`);
      await this.em.close();
      return;
    }
    await this.em.close();
    for (const dir of this.#dirs) await rm(dir, { recursive: true, force: true });
  }
}
