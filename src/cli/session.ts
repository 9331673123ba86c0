import { join } from 'node:path';
import type { KbClient } from '../api/index.js';
import { loadConfig, type Config, type TokenSource } from '../config/index.js';
import type { Ledger } from '../ledger/index.js';
import { createLogger, type Logger } from '../log.js';
import { createServiceClient, openStateLedger } from '../setup/index.js';
import { createStateKeySource, type StateKeySource } from '../setup/state-key.js';
import { invocation } from '../invocation.js';

export { ledgerPath, syncOptionsOf } from '../setup/index.js';

/** What every command that talks to the service needs, built from the config in one place. */
export type Session = {
  readonly config: Config;
  readonly configPath: string | undefined;
  readonly client: KbClient;
  readonly token: TokenSource;
  /** The team's state key (config `state.key`), read when first needed. */
  readonly stateKey: StateKeySource;
  readonly logger: Logger;
  /** Service settings the configuration lacks (only with `localOnly`): the client must not be used then. */
  readonly unconfigured: readonly string[];
};

type SessionOptions = {
  readonly config?: string | undefined;
  readonly quiet?: boolean;
  /** Default process.env; the demo passes its own so a user's KBSYNC_* settings cannot redirect it. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default process.cwd(). */
  readonly cwd?: string;
  /** Allow a configuration without service settings, for a command that may work from local files alone. */
  readonly localOnly?: boolean;
};

export async function openSession(options: SessionOptions): Promise<Session> {
  const env = options.env ?? invocation().env;
  const cwd = options.cwd ?? invocation().cwd;
  const { config, configPath, warnings, unconfigured } = await loadConfig({ ...(options.config ? { path: options.config } : {}), cwd, env, localOnly: options.localOnly ?? false });
  const logger = createLogger({ level: options.quiet ? 'warn' : config.log.level });
  for (const warning of warnings) logger.warn(warning);
  const configDir = configPath ? join(configPath, '..') : cwd;
  const { client, token } = createServiceClient(config.service, { env, cwd: configDir, logger });
  const stateKey = createStateKeySource(config.state.key, { env, cwd: configDir, workspaceId: config.workspaceId });
  return { config, configPath: configPath ?? undefined, client, token, stateKey, logger, unconfigured };
}

export function openSyncLedger(session: Session, options: { readonly readonly?: boolean; readonly dryRun?: boolean } = {}): Ledger {
  return openStateLedger(session.config, session.logger, { ...options, command: 'other' });
}
