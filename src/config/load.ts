import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError, messageOf } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { applyOverrides, envOverrides, isPlainObject, type Env } from './env.js';
import { resolveUserPath } from './home.js';
import { describeIssues } from './issues.js';
import { locateJsonError } from './json-error.js';
import { ConfigSchema, type ParsedConfig } from './schema.js';
import { vaultOf, type VaultSettings } from '../vault/settings.js';
import { explicitTeamSettings, type TeamSetting } from './team-settings.js';

export const CONFIG_FILE_NAME = 'sync.config.json';

/** The validated configuration with every path absolute: root from the config file's folder, stateDir from root. */
export type Config = ParsedConfig & {
  /** The root is a note vault (config `markdown.dialect`), with its settings: read in the wiki dialect, its templates folder excluded. */
  readonly vault?: VaultSettings;
  /** The team settings this configuration gives itself (file or variable): the rest follow the team's (team-settings.ts). */
  readonly explicit: readonly TeamSetting[];
};

type LoadConfigOptions = {
  /** --config FILE; else $KBSYNC_CONFIG; else sync.config.json in cwd. */
  readonly path?: string;
  readonly cwd: string;
  readonly env: Env;
  /**
   * For commands that only read local files (`sync --check-links --dry-run`): the service settings may be
   * missing, so a pull request from a fork (no secrets, no variables) can still check its links.
   */
  readonly localOnly?: boolean;
};

export type LoadedConfig = {
  readonly config: Config;
  /** The file read, or null when the environment alone provided the configuration. */
  readonly configPath: string | null;
  readonly warnings: readonly string[];
  /** With `localOnly`: the service settings that were missing (stand-ins were used; never call the service then). */
  readonly unconfigured: readonly string[];
};

/** Keys a local-only command can do without, with stand-ins that pass validation and are never used. */
const SERVICE_KEYS: readonly (readonly [readonly string[], string])[] = [
  [['workspaceId'], 'unconfigured'],
  [['service', 'baseUrl'], 'http://127.0.0.1:9'],
  [['service', 'operatorId'], 'unconfigured'],
];

const REQUIRED_FROM_ENV = ['KBSYNC_WORKSPACE_ID', 'KBSYNC_SERVICE_BASE_URL', 'KBSYNC_SERVICE_OPERATOR_ID'];

/** Reads, overrides from KBSYNC_* variables, validates and resolves the configuration. Throws InputError. */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const explicit = options.path ?? options.env['KBSYNC_CONFIG'];
  const configPath = explicit ? resolveUserPath(options.cwd, explicit, options.env) : path.join(options.cwd, CONFIG_FILE_NAME);
  const file = await readConfigFile(configPath, explicit !== undefined, options.env, options.localOnly ?? false);
  const warnings: string[] = [];
  if (file) {
    const literal = literalToken(file.raw);
    if (literal !== null) {
      registerSecret(literal);
      if ((file.mode & 0o077) !== 0) {
        warnings.push(
          `${configPath} holds the access token in "service.token.value" and other users can read it (mode ${(file.mode & 0o777).toString(8)}). ` +
            'Run `chmod 600` on it, or better, move the token to an environment variable or a token file.',
        );
      }
    }
  }
  const overrides = envOverrides(options.env);
  const given = applyOverrides(file?.raw ?? {}, overrides.values, overrides.replaced);
  const unconfigured = options.localOnly ? SERVICE_KEYS.filter(([key]) => valueAt(given, key) === undefined) : [];
  const input = unconfigured.reduce((acc, [key, standIn]) => applyOverrides(acc, nest(key, standIn)), given);
  const parsed = ConfigSchema.safeParse(input);
  const shownPath = file ? configPath : 'the configuration (from KBSYNC_* variables)';
  if (!parsed.success) {
    const lines = describeIssues(parsed.error.issues, input, overrides.origins);
    throw new InputError('CONFIG_INVALID', `${shownPath} is not valid:`, {
      details: lines.map((line) => `  ${line}`),
      hint: 'Fix the keys above (sync.config.example.json shows every option).',
    });
  }
  const tokenEnv = 'env' in parsed.data.service.token ? parsed.data.service.token.env : null;
  warnings.push(...overrides.warnings.filter((warning) => !warning.startsWith(`${tokenEnv} `)));
  const configDir = file ? path.dirname(configPath) : options.cwd;
  return {
    config: { ...resolvePaths(parsed.data, configDir, options.env, warnings), explicit: explicitTeamSettings(given) },
    configPath: file ? configPath : null,
    warnings,
    unconfigured: unconfigured.map(([key]) => key.join('.')),
  };
}

function valueAt(value: unknown, key: readonly string[]): unknown {
  return key.reduce<unknown>((node, part) => (isPlainObject(node) ? node[part] : undefined), value);
}

const nest = (key: readonly string[], value: unknown): Record<string, unknown> =>
  key.reduceRight<Record<string, unknown>>((inner, part) => ({ [part]: inner }), value as Record<string, unknown>);

type ConfigFile = { readonly raw: Record<string, unknown>; readonly mode: number };

async function readConfigFile(configPath: string, explicit: boolean, env: Env, localOnly: boolean): Promise<ConfigFile | null> {
  let text: string;
  let mode: number;
  try {
    const handle = await fsp.open(configPath, 'r');
    try {
      mode = (await handle.stat()).mode;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit && (localOnly || REQUIRED_FROM_ENV.every((name) => env[name]))) return null;
    if (code === 'ENOENT') {
      throw new InputError('CONFIG_MISSING', `No configuration file at ${configPath}.`, {
        hint: 'Run `kbsync init` to create one, pass --config FILE, or set KBSYNC_WORKSPACE_ID, KBSYNC_SERVICE_BASE_URL and KBSYNC_SERVICE_OPERATOR_ID.',
        cause: error,
      });
    }
    throw new InputError('CONFIG_UNREADABLE', `Cannot read the configuration file ${configPath}: ${messageOf(error)}.`, {
      hint: 'Check that it is a readable file.',
      cause: error,
    });
  }
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') {
    throw new InputError('CONFIG_INVALID_JSON', `${configPath} is empty.`, { hint: 'Was it half-written? Restore it, or run `kbsync init`.' });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    const where = locateJsonError(body);
    throw new InputError('CONFIG_INVALID_JSON', `${configPath}:${where.line}:${where.column}: invalid JSON: ${where.problem}.`, {
      hint: 'Fix the file at that line and column (JSON has no comments and no trailing commas).',
      cause: error,
    });
  }
  if (!isPlainObject(raw)) {
    throw new InputError('CONFIG_INVALID', `${configPath} must hold a JSON object ({ ... }), not ${Array.isArray(raw) ? 'a list' : typeof raw}.`, {
      hint: 'See sync.config.example.json.',
    });
  }
  return { raw, mode };
}

function literalToken(raw: Record<string, unknown>): string | null {
  const service = raw['service'];
  const token = isPlainObject(service) ? service['token'] : undefined;
  const value = isPlainObject(token) ? token['value'] : undefined;
  return typeof value === 'string' ? value : null;
}

function resolvePaths(config: ParsedConfig, configDir: string, env: Env, warnings: string[]): Omit<Config, 'explicit'> {
  const root = resolveUserPath(configDir, config.root, env);
  const token = 'file' in config.service.token ? { file: resolveUserPath(configDir, config.service.token.file, env) } : config.service.token;
  const vault = vaultOf(root, config.markdown.dialect, warnings);
  // A vault's templates are the editor's, not notes: never synced, as if excluded.
  const templates = vault?.templatesFolder === undefined ? [] : [`${vault.templatesFolder}/**`];
  return {
    ...config,
    ...(vault ? { vault } : {}),
    exclude: [...config.exclude, ...templates],
    root,
    stateDir: resolveUserPath(root, config.stateDir, env),
    site: { ...config.site, root: config.site.root === null ? null : resolveUserPath(configDir, config.site.root, env) },
    service: { ...config.service, baseUrl: config.service.baseUrl.replace(/\/+$/, ''), token },
  };
}
