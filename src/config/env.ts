import { InputError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { ConfigSchema } from './schema.js';
import { envNameOf, leavesOf, type Leaf } from './schema-walk.js';
import { closest } from './suggest.js';

export type Env = Readonly<Record<string, string | undefined>>;

type EnvOverrides = {
  /** A partial config object built from KBSYNC_* variables, to lay over the file. */
  readonly values: Record<string, unknown>;
  /** Dotted key path → the variable it came from, so validation errors name the variable. */
  readonly origins: ReadonlyMap<string, string>;
  /** Dotted paths of the secret sources (service.token, state.key) a variable sets: the file's source there is replaced whole. */
  readonly replaced: ReadonlySet<string>;
  readonly warnings: readonly string[];
};

/** Every option and its variable: service.baseUrl ↔ KBSYNC_SERVICE_BASE_URL, service.token.file ↔ KBSYNC_SERVICE_TOKEN_FILE... */
export const ENV_OPTIONS: ReadonlyArray<Leaf & { readonly env: string }> = leavesOf(ConfigSchema).map((leaf) => ({ ...leaf, env: envNameOf(leaf.path) }));

/**
 * Variables that are kbsync's but not options: the token itself, the state key itself (and a new one, for
 * `kbsync state rotate-key`), the config path,
 * stack traces, and the test harness's knobs (a crash point, a watcher error, small state documents, a short
 * grace period: README "Test hooks").
 */
const NOT_OPTIONS = new Set(['KBSYNC_TOKEN', 'KBSYNC_STATE_KEY', 'KBSYNC_NEW_STATE_KEY', 'KBSYNC_CONFIG', 'KBSYNC_DEBUG', 'KBSYNC_CRASH_AT', 'KBSYNC_TEST_WATCHER_ERROR', 'KBSYNC_STATE_DOC_CHARS', 'KBSYNC_STATE_GRACE_MS']);
const SECTIONS = ['KBSYNC_SERVICE_', 'KBSYNC_GUARDS_', 'KBSYNC_SITE_', 'KBSYNC_IMAGES_', 'KBSYNC_NOTIFY_', 'KBSYNC_BACKUPS_', 'KBSYNC_WATCH_', 'KBSYNC_LOG_', 'KBSYNC_MERGE_'];

export function envOverrides(env: Env): EnvOverrides {
  const values: Record<string, unknown> = {};
  const origins = new Map<string, string>();
  // Each secret (the token, the state key) has one source: the variables that set it, by the secret's path.
  const sources = new Map<string, string[]>();
  for (const option of ENV_OPTIONS) {
    const raw = env[option.env];
    if (raw === undefined) continue;
    const value = coerce(option, raw);
    if (option.replacesParent) {
      const parent = option.path.slice(0, -1).join('.');
      sources.set(parent, [...(sources.get(parent) ?? []), option.env]);
      if (option.path.at(-1) === 'value' && typeof value === 'string') registerSecret(value);
      setPath(values, option.path.slice(0, -1), { [option.path.at(-1) ?? '']: value });
      origins.set(parent, option.env);
    } else {
      setPath(values, option.path, value);
      origins.set(option.path.join('.'), option.env);
    }
  }
  for (const [parent, variables] of sources) {
    if (variables.length < 2) continue;
    const secret = parent === 'service.token' ? 'the token' : `${parent} (the state key)`;
    throw new InputError('CONFIG_ENV_INVALID', `${variables.join(' and ')} ${variables.length === 2 ? 'are both' : 'are all'} set, but ${secret} has one source.`, {
      hint: 'Unset all but one of them.',
    });
  }
  return { values, origins, replaced: new Set(sources.keys()), warnings: unknownVariables(env) };
}

/**
 * Lays `overrides` over `base`: objects merge key by key, everything else (lists too) is replaced. A secret
 * source at a path in `replaced` is replaced whole ({"file": …} over {"env": …} would be neither).
 */
export function applyOverrides(base: unknown, overrides: Record<string, unknown>, replaced: ReadonlySet<string> = new Set(), at = ''): unknown {
  if (!isPlainObject(base)) return overrides;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const path = at === '' ? key : `${at}.${key}`;
    merged[key] = isPlainObject(value) && isPlainObject(merged[key]) && !replaced.has(path) ? applyOverrides(merged[key], value, replaced, path) : value;
  }
  return merged;
}

function coerce(option: Leaf & { readonly env: string }, raw: string): unknown {
  const trimmed = raw.trim();
  const bad = (expected: string, example: string): InputError =>
    new InputError('CONFIG_ENV_INVALID', `${option.env}=${JSON.stringify(raw)} is not ${expected}.`, {
      hint: `Set it to ${expected} (e.g. ${option.env}=${example}) or unset it.`,
    });
  if (option.nullable && (trimmed === '' || trimmed === 'null')) return null;
  switch (option.kind) {
    case 'number':
      if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i.test(trimmed)) throw bad('a number', '20');
      return Number(trimmed);
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(lower)) return true;
      if (['false', '0', 'no', 'off'].includes(lower)) return false;
      throw bad('true or false', 'false');
    }
    case 'list':
      if (trimmed.startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(trimmed);
        } catch {
          throw bad('a JSON list or a comma-separated list', '"**/*.md,notes/**"');
        }
        if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw bad('a list of strings', '["**/*.md"]');
        return parsed;
      }
      return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim()).filter((item) => item !== '');
    default:
      return trimmed;
  }
}

/** A KBSYNC_ variable that looks like an option but is none is a typo: say so rather than ignore it. */
function unknownVariables(env: Env): string[] {
  // The variables that are not options are suggested too: KBSYNC_TOKNE means KBSYNC_TOKEN, not KBSYNC_ROOT.
  const known = [...ENV_OPTIONS.map((option) => option.env), ...NOT_OPTIONS];
  const knownSet = new Set(known);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('KBSYNC_') || knownSet.has(name)) continue;
    const suggestion = closest(name, known);
    if (suggestion === null && !SECTIONS.some((section) => name.startsWith(section))) continue;
    warnings.push(`${name} is not a kbsync option and is ignored${suggestion ? ` (did you mean ${suggestion}?)` : ''}.`);
  }
  return warnings;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    node = isPlainObject(next) ? next : (node[key] = {});
  }
  node[path.at(-1) ?? ''] = value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
