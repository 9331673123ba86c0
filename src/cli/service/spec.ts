import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { homeFolder } from '../../config/index.js';
import { InputError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import { oneLine } from '../../printable.js';
import { kbsyncEntry } from '../../shell/self-command.js';

/** Which service manager runs the daemon here. */
export type Platform = 'systemd' | 'launchd';

/** Everything a unit (or agent) for one folder says: built once, written as systemd or launchd text. */
export type ServiceSpec = {
  /** `kbsync-notes-1a2b3c4d`: the folder's name, and a hash of its path so two folders never share one. */
  readonly name: string;
  readonly root: string;
  readonly configPath: string;
  /** node and kbsync's entry point, absolute: the service runs without the shell's PATH (nvm, a prefix install). */
  readonly node: string;
  readonly entry: string;
  /** Where the daemon may write: the root, and the state folder when it lies outside it. */
  readonly writable: readonly string[];
  /** The token file the service reads (KBSYNC_SERVICE_TOKEN_FILE), when install wrote one. */
  readonly tokenFile: string | undefined;
  /** The state key file the service reads (KBSYNC_STATE_KEY_FILE), when install wrote one. */
  readonly keyFile: string | undefined;
  readonly readme: string;
};

/** Where install writes for this platform: the unit (or agent), the token file and the state key file (when the secret lives in a variable). */
export type ServicePaths = { readonly unit: string; readonly tokenFile: string; readonly keyFile: string };

export function platformOf(platform: NodeJS.Platform = process.platform): Platform {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  throw new InputError('SERVICE_UNSUPPORTED', `kbsync service knows systemd (Linux) and launchd (macOS), not ${platform}.`, {
    hint: 'Run `kbsync watch --config FILE` from your system\'s own service manager or login items.',
  });
}

/** The service's name for a folder: readable, and unique per folder path. */
export function serviceName(root: string): string {
  const base = path.basename(root).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'root';
  return `kbsync-${base}-${createHash('sha256').update(root).digest('hex').slice(0, 8)}`;
}

export function servicePaths(platform: Platform, name: string, env: NodeJS.ProcessEnv): ServicePaths {
  if (platform === 'launchd') {
    const support = path.join(homeFolder(env), 'Library', 'Application Support', 'kbsync');
    return {
      unit: path.join(homeFolder(env), 'Library', 'LaunchAgents', `com.${name.replace(/^kbsync-/, 'kbsync.')}.plist`),
      tokenFile: path.join(support, `${name}.token`),
      keyFile: path.join(support, `${name}.state-key`),
    };
  }
  const config = env['XDG_CONFIG_HOME'] || path.join(homeFolder(env), '.config');
  return { unit: path.join(config, 'systemd', 'user', `${name}.service`), tokenFile: path.join(config, 'kbsync', `${name}.token`), keyFile: path.join(config, 'kbsync', `${name}.state-key`) };
}

/** The launchd label of an agent written by install (its file name without `.plist`). */
export const labelOf = (paths: ServicePaths): string => path.basename(paths.unit, '.plist');

const real = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
};

type SpecInput = { readonly root: string; readonly stateDir: string; readonly configPath: string; readonly tokenFile: string | undefined; readonly keyFile: string | undefined };

/**
 * The spec of the service for a folder. Every path in it is written into a unit file or a plist that a
 * service manager runs, and paths are names anyone who shares a drive or a repository may have chosen: a
 * line break in one would add a line of its own to a unit (`ExecStartPre=` runs a command), and no manager
 * reads another control character as written. So a path holding one is refused here, before install writes
 * anything; the rest of each path is escaped by the unit's or the plist's own rules (systemd-unit.ts,
 * launchd-plist.ts).
 */
export function serviceSpec(input: SpecInput): ServiceSpec {
  const inside = path.relative(input.root, input.stateDir);
  const stateOutside = inside.startsWith('..') || path.isAbsolute(inside);
  const spec: ServiceSpec = {
    name: serviceName(input.root),
    root: input.root,
    configPath: input.configPath,
    node: real(process.execPath),
    entry: real(kbsyncEntry()),
    writable: stateOutside ? [input.root, input.stateDir] : [input.root],
    tokenFile: input.tokenFile,
    keyFile: input.keyFile,
    readme: path.join(packageRoot(), 'README.md'),
  };
  const paths: readonly [string, string | undefined][] = [
    ['the synced folder', input.root],
    ['the state folder', input.stateDir],
    ['the config file', input.configPath],
    ['the token file', input.tokenFile],
    ['the state key file', input.keyFile],
    ['node', spec.node],
    ["kbsync's entry point", spec.entry],
    ["kbsync's README", spec.readme],
  ];
  for (const [what, value] of paths) if (value !== undefined) refuseControlIn(what, value);
  return spec;
}

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Refuses a path a unit file cannot carry (a control character): `what` names it in the error. */
export function refuseControlIn(what: string, value: string): void {
  if (!CONTROL.test(value)) return;
  throw new InputError(
    'SERVICE_PATH_UNSAFE',
    `The path of ${what}, ${oneLine(value)}, holds a line break or other control character (shown escaped), which a service's unit file cannot carry: written into it, a line break would start a line of its own.`,
    { hint: 'Rename the folder or file so that its path has none (`mv` it), then run `kbsync service install` again. Nothing was written.' },
  );
}
