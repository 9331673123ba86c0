import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createStateKeySource } from '../../src/setup/state-key.js';
import { syncOptionsOf } from '../../src/cli/session.js';
import { createServiceClient } from '../../src/setup/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { DumpedNode, RunningEmulator } from '../../src/emulator/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { runSync } from '../../src/sync/engine.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { runCli, type CliResult } from './cli.js';
import { createSyncFixture, userNodes, type FixtureOptions, type SyncFixture } from './sync-fixture.js';

export type Run = CliResult & { report?: SyncReport };

/** Every stdout and stderr a command printed, with the command, so secrets can be searched for afterwards. */
export class OutputLog {
  readonly #entries: { readonly what: string; readonly text: string }[] = [];
  readonly #secrets = new Set<string>();

  /** A value that must never be printed (the tokens of every emulator the commands talked to). */
  addSecret(secret: string): void {
    this.#secrets.add(secret);
  }

  get secrets(): readonly string[] {
    return [...this.#secrets];
  }

  add(what: string, result: CliResult): void {
    this.#entries.push({ what, text: `${result.stdout}\n${result.stderr}` });
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The commands whose output holds `secret`. */
  holding(secret: string): string[] {
    return this.#entries.filter((entry) => entry.text.includes(secret)).map((entry) => entry.what);
  }

  /** The commands whose output holds any registered secret. */
  leaks(): string[] {
    return this.secrets.flatMap((secret) => this.holding(secret));
  }
}

/**
 * A sync fixture in a workspace of its own, so many cases can share one emulator without seeing each
 * other's documents. Every CLI run is recorded in `outputs`.
 */
export type CaseFixture = SyncFixture & {
  readonly workspaceId: string;
  readonly rootNodeId: string;
  /** `kbsync <args>` exactly as given (no --config added), in the fixture's folder, with its env. */
  raw(args: readonly string[], env?: Record<string, string>): Promise<Run>;
  /** The nodes of this fixture's workspace (docs and folders, not the root). */
  remoteNodes(): DumpedNode[];
  /** Creates a document (or folder) remotely, as a colleague in the web editor would. */
  remoteCreate(name: string, markdown?: string, options?: { readonly parent?: string; readonly folder?: boolean }): string;
};

export async function createCaseFixture(em: RunningEmulator, outputs: OutputLog, options: Omit<FixtureOptions, 'shared'> = {}): Promise<CaseFixture> {
  outputs.addSecret(em.seed.token);
  outputs.addSecret(em.seed.readOnlyToken);
  const workspace = em.admin.addWorkspace({ name: `case-${Math.random().toString(36).slice(2, 8)}` });
  const base = await createSyncFixture({ ...options, shared: em, config: { workspaceId: workspace.workspaceId, ...options.config } });
  const record =
    (what: string) =>
    (result: Run): Run => {
      outputs.add(what, result);
      return result;
    };
  const remoteNodes = (): DumpedNode[] =>
    userNodes(em.admin.dump().nodes.filter((node) => node.workspaceId === workspace.workspaceId && node.docType !== 'ROOT'));
  const fixture: CaseFixture = {
    ...base,
    workspaceId: workspace.workspaceId,
    rootNodeId: workspace.rootNodeId,
    cli: (args, env) => base.cli(args, env).then(record(`kbsync ${args.join(' ')}`)),
    raw: (args, env = {}) => runCli(args, { cwd: base.dir, env: { ...base.env, ...env }, process: Boolean(options.process) }).then(record(`kbsync ${args.join(' ')}`)),
    sync: (args = [], env) => base.cli(['sync', '--json', ...args], env).then(record(`kbsync sync --json ${args.join(' ')}`)),
    remoteNodes,
    remoteDocs: () => remoteNodes().filter((node) => node.docType === 'DOC'),
    remoteDoc(title) {
      const found = remoteNodes().filter((node) => node.docType === 'DOC' && node.title === title);
      if (found.length !== 1) throw new Error(`expected one remote document titled ${title}, found ${found.length}`);
      return found[0] as DumpedNode;
    },
    remoteCreate(name, markdown, createOptions = {}) {
      return em.admin.createDocument({
        workspaceId: workspace.workspaceId,
        parentNodeId: createOptions.parent ?? workspace.rootNodeId,
        name,
        ...(createOptions.folder ? { folder: true } : { markdown: markdown ?? `# ${name}\n\nBody.\n` }),
      }).dentryUuid;
    },
  };
  return fixture;
}

/** What a folder holds: relative path → content hash, symlink target or "dir". Symlinks are not followed. */
export async function snapshotTree(dir: string, skip: (rel: string) => boolean = () => false): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of (await readdir(abs)).sort()) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (skip(childRel)) continue;
      const childAbs = join(abs, name);
      const stat = await lstat(childAbs);
      if (stat.isSymbolicLink()) out.set(childRel, `symlink:${await readlink(childAbs)}`);
      else if (stat.isDirectory()) {
        out.set(childRel, 'dir');
        await walk(childAbs, childRel);
      } else out.set(childRel, createHash('sha256').update(await readFile(childAbs)).digest('hex'));
    }
  };
  await walk(dir, '');
  return out;
}

/** The remote side of a fixture, in a comparable form. */
export function snapshotRemote(f: CaseFixture): string[] {
  return f
    .remoteNodes()
    .map((node) => JSON.stringify([node.dentryUuid, node.parentId, node.docType, node.title, node.markdown ?? null]))
    .sort();
}

/** The fixture's temp folder, without kbsync's state folder (which runs are allowed to change). */
export const snapshotLocal = (f: CaseFixture): Promise<Map<string, string>> => snapshotTree(f.dir, (rel) => rel === 'notes/.kbsync');

/** Everything printed, for matching messages. */
export const printed = (run: CliResult): string => `${run.stdout}\n${run.stderr}`;

/** Replaces the config file: an object is written as JSON, a string as is. */
export async function writeConfig(f: CaseFixture, config: Record<string, unknown> | string): Promise<void> {
  await writeFile(f.configPath, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
}

/** The fixture's config (as generated) with `patch` applied. */
export function configOf(f: CaseFixture, patch: (config: Record<string, unknown> & { service: Record<string, unknown> }) => void = () => {}): Record<string, unknown> {
  const config = {
    root: './notes',
    workspaceId: f.workspaceId,
    service: { baseUrl: f.em.seed.baseUrl, operatorId: f.em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } as unknown },
  };
  patch(config);
  return config;
}

/**
 * A two-way sync run in this process with the fixture's config: the same engine as the CLI, without
 * starting a process. For bringing a case to its starting state; the case itself runs the real CLI.
 */
export async function syncInProcess(f: SyncFixture): Promise<SyncReport> {
  const { config } = await loadConfig({ path: f.configPath, cwd: f.dir, env: f.env });
  const { client } = createServiceClient(config.service, { env: f.env, cwd: f.dir, logger: silentLogger });
  const ledger = openLedger(join(config.stateDir, 'ledger.sqlite'));
  try {
    // With the team's key, as `kbsync sync` reads it: the case's own runs then meet the state their team wrote.
    const stateKey = createStateKeySource(config.state.key, { env: f.env, cwd: f.dir, workspaceId: config.workspaceId });
    return await runSync({ client, ledger, logger: silentLogger }, { ...syncOptionsOf(config, { mode: 'two-way', dryRun: false, force: false }), stateKey });
  } finally {
    ledger.close();
  }
}
