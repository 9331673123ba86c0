import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ConfigSchema, loadConfig, type Env, type TokenSourceConfig } from '../config/index.js';
import { describeIssues } from '../config/issues.js';
import { InputError, KbsyncError } from '../errors.js';
import type { ServiceSettings } from '../setup/index.js';

/** How `init`, `clone` and `workspaces` find the service before (or without) a sync.config.json. */
export type ServiceFlags = {
  readonly config?: string;
  readonly baseUrl?: string;
  readonly operatorId?: string;
  readonly tokenEnv?: string;
};

export const DEFAULT_TOKEN_ENV = 'KBSYNC_TOKEN';

export function addServiceOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'the service address (default: $KBSYNC_SERVICE_BASE_URL, else the config file)')
    .option('--operator-id <unionId>', "the user kbsync acts for: a unionId, not a userId (default: $KBSYNC_SERVICE_OPERATOR_ID, else the config file)")
    .option('--token-env <NAME>', `the environment variable holding the access token (default: the config's token source, else ${DEFAULT_TOKEN_ENV})`);
}

export type ResolvedService = {
  readonly service: ServiceSettings;
  /** Where relative token files resolve from. */
  readonly baseDir: string;
  /** The token source as it should be written into a new config. */
  readonly tokenSource: TokenSourceConfig;
};

/**
 * Flags first, then KBSYNC_SERVICE_* variables, then the config file (if there is one). The token
 * itself never comes from an argument: only the name of the variable that holds it.
 */
type ServiceContext = {
  readonly env: Env;
  readonly cwd: string;
  /** The config file only lends defaults (init): if it is missing or broken, do without it. */
  readonly configOptional?: boolean;
};

export async function resolveService(flags: ServiceFlags, context: ServiceContext): Promise<ResolvedService> {
  const baseUrl = flags.baseUrl ?? context.env['KBSYNC_SERVICE_BASE_URL'];
  const operatorId = flags.operatorId ?? context.env['KBSYNC_SERVICE_OPERATOR_ID'];
  const fromFile = baseUrl && operatorId ? undefined : await serviceOfConfig(flags, context);
  const tokenSource = tokenSourceOf(flags, fromFile);
  const input = { ...fromFile?.service, ...(baseUrl ? { baseUrl } : {}), ...(operatorId ? { operatorId } : {}), token: tokenSource };
  if (input.baseUrl === undefined || input.operatorId === undefined) {
    throw new InputError('SERVICE_UNKNOWN', `kbsync does not know which service to use: ${input.baseUrl === undefined ? 'the base URL' : 'the operatorId'} is missing.`, {
      hint: 'Pass --base-url and --operator-id (or set KBSYNC_SERVICE_BASE_URL and KBSYNC_SERVICE_OPERATOR_ID), or run where a sync.config.json is.',
    });
  }
  const parsed = ConfigSchema.shape.service.safeParse(input);
  if (!parsed.success) {
    const origins = new Map([
      ['baseUrl', flags.baseUrl ? '--base-url' : 'KBSYNC_SERVICE_BASE_URL'],
      ['operatorId', flags.operatorId ? '--operator-id' : 'KBSYNC_SERVICE_OPERATOR_ID'],
    ]);
    throw new InputError('SERVICE_SETTINGS_INVALID', 'The service settings are not valid:', {
      details: describeIssues(parsed.error.issues, input, origins).map((line) => `  ${line}`),
      hint: 'Fix the values above.',
    });
  }
  return { service: { ...parsed.data, baseUrl: parsed.data.baseUrl.replace(/\/+$/, '') }, baseDir: fromFile?.dir ?? context.cwd, tokenSource };
}

const tokenSourceOf = (flags: ServiceFlags, fromFile: { readonly service: ServiceSettings } | undefined): TokenSourceConfig =>
  flags.tokenEnv ? { env: flags.tokenEnv } : (fromFile?.service.token ?? { env: DEFAULT_TOKEN_ENV });

/**
 * Where the token will come from, and where a relative token file starts: what `resolveService` will use,
 * known before the base URL and operatorId are (`init` checks the token before asking for them).
 */
export async function tokenSourceFor(flags: ServiceFlags, context: ServiceContext): Promise<{ readonly tokenSource: TokenSourceConfig; readonly baseDir: string }> {
  const fromFile = flags.tokenEnv ? undefined : await serviceOfConfig(flags, context);
  return { tokenSource: tokenSourceOf(flags, fromFile), baseDir: fromFile?.dir ?? context.cwd };
}

async function serviceOfConfig(flags: ServiceFlags, context: ServiceContext): Promise<{ service: ServiceSettings; dir: string } | undefined> {
  try {
    const loaded = await loadConfig({ ...(flags.config ? { path: flags.config } : {}), cwd: context.cwd, env: context.env });
    return { service: loaded.config.service, dir: loaded.configPath ? dirname(loaded.configPath) : context.cwd };
  } catch (error) {
    // No config file is fine when the flags or the environment say enough; anything else wrong with it is not.
    if (context.configOptional || (error instanceof KbsyncError && error.code === 'CONFIG_MISSING' && !flags.config)) return undefined;
    throw error;
  }
}
