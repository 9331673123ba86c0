import { join } from 'node:path';
import type { KbClient } from '../api/index.js';
import { loadConfig, type Config } from '../config/index.js';
import { explainLocked } from '../daemon/already-running.js';
import { openLedger, type Ledger } from '../ledger/index.js';
import { assertRootDirectorySync } from '../local/index.js';
import { createLogger, type Logger } from '../log.js';
import { asTreeNodeId, asWorkspaceId } from '../model/ids.js';
import type { SyncOptions } from '../sync/engine.js';
import type { SyncMode } from '../sync/types.js';
import { createServiceClient } from './service-client.js';

/** What every command that talks to the service needs, built from the config in one place. */
export type Session = {
  readonly config: Config;
  readonly configPath: string | undefined;
  readonly client: KbClient;
  readonly logger: Logger;
};

export type SessionOptions = {
  readonly config?: string | undefined;
  readonly quiet?: boolean;
  /** Default process.env; the demo passes its own so a user's KBSYNC_* settings cannot redirect it. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default process.cwd(). */
  readonly cwd?: string;
};

export async function openSession(options: SessionOptions): Promise<Session> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const { config, configPath, warnings } = await loadConfig({ ...(options.config ? { path: options.config } : {}), cwd, env });
  const logger = createLogger({ level: options.quiet ? 'warn' : config.log.level });
  for (const warning of warnings) logger.warn(warning);
  const { client } = createServiceClient(config.service, { env, cwd: configPath ? join(configPath, '..') : cwd, logger });
  return { config, configPath: configPath ?? undefined, client, logger };
}

export function ledgerPath(config: Config): string {
  return join(config.stateDir, 'ledger.sqlite');
}

export function openSyncLedger(session: Session, options: { readonly readonly?: boolean } = {}): Ledger {
  // Before the state folder is created inside it: a missing root (an unmounted drive) must not be re-created empty.
  assertRootDirectorySync(session.config.root);
  const path = ledgerPath(session.config);
  try {
    return openLedger(path, { logger: session.logger, ...(options.readonly ? { readonly: true, lock: false } : {}) });
  } catch (error) {
    // When `kbsync watch` holds the lock, say that a daemon keeps the folder in sync, not just "locked by pid N".
    throw explainLocked(error, { root: session.config.root, ledgerPath: path, command: 'other' });
  }
}

export function syncOptionsOf(config: Config, run: { mode: SyncMode; dryRun: boolean; force: boolean }): SyncOptions {
  return {
    root: config.root,
    stateDir: config.stateDir,
    workspaceId: asWorkspaceId(config.workspaceId),
    remoteFolder: config.remoteFolder ? asTreeNodeId(config.remoteFolder) : undefined,
    layout: config.layout,
    mode: run.mode,
    dryRun: run.dryRun,
    links: config.links,
    include: config.include,
    exclude: config.exclude,
    guards: { maxDeleteRatio: config.guards.maxDeleteRatio, maxDeletes: config.guards.maxDeletes, force: run.force },
  };
}
