import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../config/index.js';
import { InputError } from '../../errors.js';
import { readLockHolder } from '../../ledger/index.js';
import { ledgerPath } from '../../setup/index.js';
import { shellLine } from '../../shell/quote.js';
import type { CliCommand } from '../command.js';
import { launchdPlist, PLIST_MARK } from '../service/launchd-plist.js';
import { ServiceManager } from '../service/manager.js';
import { labelOf, platformOf, serviceName, servicePaths, serviceSpec, type Platform, type ServicePaths } from '../service/spec.js';
import { MARK, systemdUnit } from '../service/systemd-unit.js';
import { planStateKeyFile, serviceTokenFile, setUpToken } from '../service/token-file.js';
import { invocation } from '../../invocation.js';
import { terminal } from '../../terminal.js';

type Flags = { readonly config?: string; readonly start?: boolean };

/** The folder's service: which manager, its name and files, from the config. */
type Target = { readonly platform: Platform; readonly name: string; readonly paths: ServicePaths; readonly config: Config; readonly configPath: string };

async function target(flags: Flags): Promise<Target> {
  const platform = platformOf();
  const { config, configPath } = await loadConfig({ ...(flags.config ? { path: flags.config } : {}), cwd: invocation().cwd, env: invocation().env });
  if (!configPath) {
    throw new InputError('CONFIG_MISSING', 'kbsync service needs a config file: the service runs `kbsync watch --config FILE`, without your shell\'s KBSYNC_* variables.', {
      hint: 'Write one with `kbsync init` (or give --config FILE), then run this again.',
    });
  }
  const name = serviceName(config.root);
  return { platform, name, paths: servicePaths(platform, name, invocation().env), config, configPath };
}

/** Whether `file` is one install wrote (its mark is in it); undefined when there is no file. */
async function ours(file: string): Promise<boolean | undefined> {
  const text = await fsp.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  return text === undefined ? undefined : text.includes(MARK) || text.includes(PLIST_MARK);
}

const notOurs = (file: string): InputError =>
  new InputError('SERVICE_NOT_OURS', `${file} exists and was not written by kbsync service install, so it is left as it is.`, {
    hint: 'Move it aside if it is an old copy of the kbsync unit, then run this again.',
  });

const launchdDomain = (): string => `gui/${process.getuid?.() ?? 0}`;

async function install(flags: Flags): Promise<void> {
  const { platform, name, paths, config, configPath } = await target(flags);
  if ((await ours(paths.unit)) === false) throw notOurs(paths.unit);
  // The unit's text first (the state key is read for it, nothing written): a path it cannot carry is refused
  // before the token file, or anything, is written.
  const key = await planStateKeyFile(config.state.key, paths.keyFile, { env: invocation().env, cwd: path.dirname(configPath), workspaceId: config.workspaceId });
  const spec = serviceSpec({ root: config.root, stateDir: config.stateDir, configPath, tokenFile: serviceTokenFile(config.service.token, paths.tokenFile), keyFile: key.file });
  const logFile = path.join(path.dirname(paths.tokenFile), `${name}.log`);
  const unit = platform === 'systemd' ? systemdUnit(spec) : launchdPlist(spec, labelOf(paths), logFile);
  const token = await setUpToken(config.service.token, paths.tokenFile, { env: invocation().env, cwd: path.dirname(configPath) });
  await key.write();
  await fsp.mkdir(path.dirname(paths.unit), { recursive: true });
  await fsp.writeFile(paths.unit, unit, { mode: 0o644 });
  const said = [
    `Wrote ${paths.unit}: it runs ${shellLine([spec.node, spec.entry, 'watch', '--config', configPath])} for ${config.root}.`,
    `Token: ${token.said}.`,
    `State key: ${key.said}.`,
  ];
  const manager = new ServiceManager(platform, invocation().env);
  const start = platform === 'systemd' ? `systemctl --user daemon-reload && systemctl --user enable --now ${name}` : `launchctl bootstrap ${launchdDomain()} ${shellLine([paths.unit])}`;
  if (flags.start === false) said.push(`Not started (--no-start): \`${start}\` starts it.`);
  else if (!(await manager.available())) said.push(`${platform === 'systemd' ? "systemd's user manager does not answer here" : 'launchctl is not installed'}, so nothing was started: run \`${start}\` in your login session.`);
  else if (platform === 'systemd') {
    await manager.require(['daemon-reload']);
    await manager.require(['enable', '--now', name]);
    said.push(`Ran systemctl --user daemon-reload and systemctl --user enable --now ${name}: it runs now and starts at every login.`);
  } else {
    await manager.run(['bootout', `${launchdDomain()}/${labelOf(paths)}`]); // an earlier copy of the agent, if loaded
    await manager.require(['bootstrap', launchdDomain(), paths.unit]);
    said.push(`Ran launchctl bootstrap ${launchdDomain()}: it runs now and starts at every login.`);
  }
  said.push(platform === 'systemd' ? `Its log: journalctl --user -u ${name} -f` : `Its log: ${logFile}`);
  said.push('`kbsync service status` shows how it is doing; `kbsync service uninstall` stops and removes it.');
  terminal.out(...said);
}

async function uninstall(flags: Flags): Promise<void> {
  const { platform, name, paths } = await target(flags);
  const mine = await ours(paths.unit);
  if (mine === false) throw notOurs(paths.unit);
  const said: string[] = [];
  const manager = new ServiceManager(platform, invocation().env);
  if (mine && (await manager.available())) {
    // Stopping a unit that is not loaded fails, and is no reason not to remove the files.
    const stopped = platform === 'systemd' ? await manager.run(['disable', '--now', name]) : await manager.run(['bootout', `${launchdDomain()}/${labelOf(paths)}`]);
    said.push(stopped.ok ? `Stopped and disabled it (${stopped.command}).` : `${stopped.command}: ${stopped.output} (it was not running).`);
  }
  for (const file of [paths.unit, paths.tokenFile, paths.keyFile]) {
    if (await fsp.rm(file).then(() => true, () => false)) said.push(`Removed ${file}.`);
  }
  if (mine && platform === 'systemd' && (await manager.available())) await manager.run(['daemon-reload']);
  terminal.out(...(said.length > 0 ? said : [`No kbsync service is installed for this folder (${paths.unit} does not exist).`]));
}

async function status(flags: Flags): Promise<void> {
  const { platform, name, paths, config } = await target(flags);
  const installed = await ours(paths.unit);
  const lines = [`${name}: ${installed === undefined ? 'not installed' : installed ? `installed (${paths.unit})` : `${paths.unit} exists but was not written by kbsync`}`];
  const manager = new ServiceManager(platform, invocation().env);
  if (installed && (await manager.available())) {
    const state = platform === 'systemd' ? await manager.run(['is-active', name]) : await manager.run(['print', `${launchdDomain()}/${labelOf(paths)}`]);
    lines.push(platform === 'systemd' ? `systemd: ${state.output || 'unknown'}${(await manager.run(['is-enabled', name])).output === 'enabled' ? ', enabled at login' : ''}` : `launchd: ${state.ok ? 'loaded' : 'not loaded'}`);
  }
  const holder = readLockHolder(ledgerPath(config));
  const daemon = holder?.alive && /\bwatch\b/.test(holder.command);
  lines.push(daemon ? `kbsync watch runs for ${config.root} as pid ${holder.pid}; \`kbsync doctor\` says what it is doing.` : `No kbsync watch runs for ${config.root} now.`);
  terminal.out(...lines);
}

export const serviceCommand: CliCommand = {
  name: 'service',
  register(program: Command) {
    const service = program
      .command('service')
      .description('Run kbsync watch for this folder as a background service (systemd user unit on Linux, launchd agent on macOS): install, status, uninstall.')
      .addHelpText(
        'after',
        `
install writes a service for the folder of the config (one per folder, named after it): absolute paths to
node and kbsync (so it runs without your shell's PATH: a prefix install, nvm), the config and the folder
filled in, and the token and the team's state key where the service can read them (one kept in an
environment variable is written to a file only you can read; one in a file, the workspace's key file, or from
a command stays where it is). Where systemd's user manager answers, it runs systemctl --user daemon-reload
and enable --now. A configuration error (exit 2, a missing token) or a state key that is not the team's
(exit 3) stops the service instead of restarting it: \`kbsync service status\` and the log say so.

Examples:
  kbsync service install                         for ./sync.config.json
  kbsync service install --config ~/notes/sync.config.json
  kbsync service status
  kbsync service uninstall`,
      );
    service
      .command('install')
      .description('Write the service for this folder, set up its token and start it.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--no-start', 'write the files only; do not run systemctl or launchctl')
      .action(install);
    service.command('status').description("Whether this folder's service is installed, what its manager says, and whether kbsync watch runs.").option('-c, --config <file>', 'config file (default: ./sync.config.json)').action(status);
    service.command('uninstall').description("Stop this folder's service and remove its files (the unit, and the token and key files install wrote).").option('-c, --config <file>', 'config file (default: ./sync.config.json)').action(uninstall);
  },
};
