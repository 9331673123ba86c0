import { join } from 'node:path';
import { KbClient } from '../api/index.js';
import { loadConfig, createTokenSource, type Config } from '../config/index.js';
import { openLedger, type Ledger } from '../ledger/index.js';
import { createLogger, type Logger } from '../log.js';
import { asTreeNodeId, asUnionId, asWorkspaceId } from '../model/ids.js';
import { RequestQueue } from '../queue/index.js';
import type { SyncOptions } from '../sync/engine.js';
import type { SyncMode } from '../sync/types.js';

/** What every command that talks to the service needs, built from the config in one place. */
export type Session = {
  readonly config: Config;
  readonly configPath: string | undefined;
  readonly client: KbClient;
  readonly logger: Logger;
};

export type SessionOptions = { readonly config?: string | undefined; readonly quiet?: boolean };

export async function openSession(options: SessionOptions): Promise<Session> {
  const { config, configPath, warnings } = await loadConfig({ ...(options.config ? { path: options.config } : {}), cwd: process.cwd(), env: process.env });
  const logger = createLogger({ level: options.quiet ? 'warn' : config.log.level });
  for (const warning of warnings) logger.warn(warning);
  const token = createTokenSource(config.service.token, { env: process.env, cwd: configPath ? join(configPath, '..') : process.cwd() });
  const queue = new RequestQueue({ rate: config.service.rateLimit, concurrency: config.service.concurrency });
  const client = new KbClient({
    baseUrl: config.service.baseUrl,
    tokenHeader: config.service.tokenHeader,
    token,
    operatorId: asUnionId(config.service.operatorId),
    queue,
    timeoutMs: config.service.timeoutMs,
    logger,
  });
  return { config, configPath: configPath ?? undefined, client, logger };
}

export function ledgerPath(config: Config): string {
  return join(config.stateDir, 'ledger.sqlite');
}

export function openSyncLedger(session: Session, options: { readonly readonly?: boolean } = {}): Ledger {
  return openLedger(ledgerPath(session.config), { logger: session.logger, ...(options.readonly ? { readonly: true, lock: false } : {}) });
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
