import { mkdtemp, mkdir, readFile, rm, writeFile, unlink, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator, type DumpedNode } from '../../src/emulator/index.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { runCli, type CliResult } from './cli.js';

/**
 * A real end-to-end setting for sync tests: a fresh emulator on a free port, a temp folder with a
 * `notes/` root and a `sync.config.json` pointing at the emulator, and the real CLI (runCli: in this
 * process with its own environment, folder and streams, or a child process where a test needs one, so
 * crash points, exit codes and output are exactly what a user gets).
 */
export type SyncFixture = {
  readonly em: RunningEmulator;
  /** The temp folder holding the config and the root. */
  readonly dir: string;
  /** The synced folder (`<dir>/notes`). */
  readonly root: string;
  readonly configPath: string;
  readonly env: Record<string, string>;
  write(rel: string, text: string): Promise<void>;
  read(rel: string): Promise<string>;
  exists(rel: string): Promise<boolean>;
  remove(rel: string): Promise<void>;
  /** `kbsync <args> --config <config>`; with --json the report is parsed. */
  cli(args: readonly string[], env?: Record<string, string>): Promise<CliResult & { report?: SyncReport }>;
  /** `kbsync sync --json [args]`, asserting nothing: callers check code and report. */
  sync(args?: readonly string[], env?: Record<string, string>): Promise<CliResult & { report?: SyncReport }>;
  /** The documents in the emulator's workspace (not folders), by title. */
  remoteDocs(): DumpedNode[];
  remoteDoc(title: string): DumpedNode;
  close(): Promise<void>;
};

/** The team's state key in sync tests (a test that wants a keyless team passes KBSYNC_STATE_KEY: ''). */
export const TEST_STATE_KEY = 'kbsync-test-state-key-2f6c1e9a47b3d805';

export type FixtureOptions = {
  readonly emulator?: EmulatorOptions;
  /** Merged over the generated config. */
  readonly config?: Record<string, unknown>;
  /** Reuse a running emulator (two workstations on one workspace). */
  readonly shared?: RunningEmulator;
  /** More environment for every run (a test knob such as KBSYNC_STATE_DOC_CHARS); '' unsets a variable. */
  readonly env?: Record<string, string>;
  /** Every command in a child process of its own (runCli's `process`). */
  readonly process?: boolean;
};

export async function createSyncFixture(options: FixtureOptions = {}): Promise<SyncFixture> {
  const em = options.shared ?? (await startEmulator({ rateLimit: 0, ...options.emulator }));
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-e2e-'));
  const root = join(dir, 'notes');
  await mkdir(root);
  const configPath = join(dir, 'sync.config.json');
  const config = {
    root: './notes',
    workspaceId: em.seed.workspaceId,
    service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } },
    ...options.config,
  };
  await writeFile(configPath, JSON.stringify(config, null, 2));
  // Every fixture of a test run shares one state key, as a team does: two workstations on one emulator agree.
  // Its own config home: a key file kbsync keeps for the workspace (state-key-<workspace>) is this machine's alone.
  const env: Record<string, string> = { KBSYNC_TOKEN: em.seed.token, KBSYNC_STATE_KEY: TEST_STATE_KEY, XDG_CONFIG_HOME: join(dir, 'config-home'), ...options.env };
  const abs = (rel: string) => join(root, rel);
  const withReport = (result: CliResult): CliResult & { report?: SyncReport } => {
    const line = result.stdout.trim().split('\n').pop() ?? '';
    if (!line.startsWith('{')) return result;
    const parsed = JSON.parse(line) as SyncReport | { readonly error: unknown };
    // A run that stopped prints only a verdict ({ ok, exitCode, error }): there is no report.
    return 'error' in parsed ? result : { ...result, report: parsed };
  };
  const fixture: SyncFixture = {
    em,
    dir,
    root,
    configPath,
    env,
    async write(rel, text) {
      await mkdir(dirname(abs(rel)), { recursive: true });
      await writeFile(abs(rel), text);
    },
    read: (rel) => readFile(abs(rel), 'utf8'),
    exists: (rel) =>
      access(abs(rel)).then(
        () => true,
        () => false,
      ),
    remove: (rel) => unlink(abs(rel)),
    async cli(args, extraEnv = {}) {
      return withReport(await runCli([...args, '--config', configPath], { cwd: dir, env: { ...env, ...extraEnv }, process: Boolean(options.process) }));
    },
    sync: (args = [], extraEnv = {}) => fixture.cli(['sync', '--json', ...args], extraEnv),
    remoteDocs: () => userNodes(em.admin.dump().nodes).filter((node) => node.docType === 'DOC' && node.workspaceId === em.seed.workspaceId),
    remoteDoc(title) {
      const found = fixture.remoteDocs().filter((node) => node.title === title);
      if (found.length !== 1) throw new Error(`expected one remote document titled ${title}, found ${found.length}`);
      return found[0] as DumpedNode;
    },
    async close() {
      if (!options.shared) await em.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}

/**
 * The nodes a user sees as theirs: everything but kbsync's own state folder (`.kbsync` under the synced
 * root) and the documents in it, which the state tests look at on their own.
 */
export function userNodes<T extends Pick<DumpedNode, 'dentryUuid' | 'parentId' | 'title' | 'docType'>>(nodes: readonly T[]): T[] {
  const stateFolders = new Set(nodes.filter((node) => node.docType === 'FOLDER' && node.title === '.kbsync').map((node) => node.dentryUuid));
  return nodes.filter((node) => !stateFolders.has(node.dentryUuid) && !(node.parentId !== null && stateFolders.has(node.parentId)));
}

/** kbsync's state documents in a workspace (index and sources). */
export const stateNodes = (nodes: readonly DumpedNode[]): DumpedNode[] => nodes.filter((node) => node.docType === 'DOC' && /^kbsync-(state|sources)-\d{6}(-[a-z2-7]{8}(-[0-9a-f]{16})?)?$/.test(node.title));

/** Runs `fn` with a fresh fixture and always cleans up. */
export async function withSyncFixture<T>(fn: (fixture: SyncFixture) => Promise<T>, options: FixtureOptions = {}): Promise<T> {
  const fixture = await createSyncFixture(options);
  try {
    return await fn(fixture);
  } finally {
    await fixture.close();
  }
}
