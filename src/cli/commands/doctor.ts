import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { isApiError, type KbClient } from '../../api/index.js';
import { loadConfig, type Config } from '../../config/index.js';
import { KbsyncError, messageOf } from '../../errors.js';
import { openLedger, readLockHolder } from '../../ledger/index.js';
import { silentLogger } from '../../log.js';
import { asTreeNodeId, asWorkspaceId } from '../../model/ids.js';
import type { CliCommand } from '../command.js';
import { operatorRefused, runProbe, SCOPE_PROBES } from '../doctor-probes.js';
import { ExitCode } from '../exit-codes.js';
import { createServiceClient } from '../../setup/index.js';
import { ledgerPath } from '../session.js';

/** `config` problems are fixed in the configuration or on this machine (exit 2); `service` ones make the service unusable (exit 4). */
type Check = { readonly ok: boolean | 'warn'; readonly text: string; readonly fix?: string; readonly area: 'config' | 'service' };

const CLOCK_TOLERANCE_MS = 60_000;

class Report {
  readonly checks: Check[] = [];
  add(check: Check): void {
    this.checks.push(check);
    const mark = check.ok === true ? '✓' : check.ok === 'warn' ? '!' : '✗';
    console.log(`${mark} ${check.text}`);
    if (check.fix) console.log(`    → ${check.fix}`);
  }
  pass = (text: string): void => this.add({ ok: true, text, area: 'config' });
  warn = (text: string, fix: string): void => this.add({ ok: 'warn', text, fix, area: 'config' });
  fail = (area: Check['area'], text: string, error?: unknown, fix?: string): void =>
    this.add({ ok: false, text: error === undefined ? text : `${text}: ${messageOf(error)}`, ...(fix ? { fix } : {}), area });
  get exitCode(): ExitCode {
    const failed = this.checks.filter((c) => c.ok === false);
    return failed.some((c) => c.area === 'service') ? ExitCode.service : failed.length > 0 ? ExitCode.usage : ExitCode.ok;
  }
}

/** Reachability, the version prefixes, the token and the operatorId, from the first calls. False: nothing more can be asked. */
async function checkService(report: Report, client: KbClient, config: Config): Promise<boolean> {
  const base = config.service.baseUrl;
  try {
    const workspace = await client.getWorkspace(asWorkspaceId(config.workspaceId));
    report.pass(`service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
    report.pass(`workspace "${workspace.name}" (${workspace.workspaceId}) exists`);
  } catch (error) {
    if (operatorRefused(error)) {
      report.pass(`service ${base} answers on /v2.0`);
      report.fail('config', `operatorId ${config.service.operatorId} is refused: ${error.message}`, undefined,
        "Set service.operatorId to the user's unionId, not the userId (the unionId is the id the organisation's apps share; the userId is only valid inside one organisation).");
      return true;
    }
    if (isApiError(error) && error.code === 'API_NOT_FOUND') {
      report.pass(`service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
      report.fail('config', `workspace ${config.workspaceId} does not exist or the operator cannot see it`, undefined, 'Run `kbsync workspaces` to list the ones you can use, and set workspaceId.');
      return true;
    }
    if (isApiError(error) && error.code === 'API_FORBIDDEN') {
      report.pass(`service ${base} answers on /v2.0`);
      return true; // the scope checks below name what is missing
    }
    report.fail('service', `service ${base} cannot be used`, error);
    return false;
  }
  if (config.remoteFolder) {
    try {
      const folder = await client.getNode(asTreeNodeId(config.remoteFolder));
      report.pass(`remoteFolder "${folder.title}" exists`);
    } catch (error) {
      report.fail('config', `remoteFolder ${config.remoteFolder} cannot be read`, error, 'Set remoteFolder to a folder node id of the workspace, or null for its root.');
    }
  }
  return true;
}

async function checkScopes(report: Report, client: KbClient, config: Config): Promise<void> {
  for (const probe of SCOPE_PROBES) {
    const outcome = await runProbe(probe, client, asWorkspaceId(config.workspaceId));
    if (outcome.kind === 'granted') report.pass(`scope ${probe.scope}: granted (to ${probe.use})`);
    else if (outcome.kind === 'missing') {
      report.fail('service', `scope ${outcome.scopes.join(', ')} is missing: kbsync cannot ${probe.use}`, undefined,
        `Grant ${outcome.scopes.join(', ')} to the app in the developer console, then issue a new access token.`);
    } else report.fail('service', `scope ${probe.scope} could not be checked`, outcome.error);
  }
}

function checkClock(report: Report, client: KbClient): void {
  const server = client.serverTime();
  if (!server) return;
  const offset = server.getTime() - Date.now();
  const seconds = Math.round(Math.abs(offset) / 1000);
  if (Math.abs(offset) <= CLOCK_TOLERANCE_MS) report.pass(`clock: within ${seconds} s of the service's`);
  else {
    report.warn(`clock: this machine is ${seconds} s ${offset > 0 ? 'behind' : 'ahead of'} the service`,
      "kbsync judges the service's modifiedTime by the service's own clock, so syncing is safe, but timestamps in logs and backups will disagree: enable NTP (timedatectl set-ntp true).");
  }
}

async function checkStateFolder(report: Report, config: Config): Promise<void> {
  const stat = await fsp.stat(config.stateDir).catch(() => undefined);
  const folder = stat ? config.stateDir : config.root;
  try {
    await fsp.access(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    const what = stat ? 'state folder' : 'root folder (the state folder is created in it)';
    report.fail('config', `${what} ${folder} is not usable`, error, `Create it or give this user write access (chmod u+rwx "${folder}").`);
    return;
  }
  if (!stat) report.pass(`state folder ${config.stateDir} will be created by the first sync`);
  else if (!stat.isDirectory()) report.fail('config', `state folder ${config.stateDir} is not a folder`, undefined, 'Move it aside or set stateDir elsewhere.');
  else if ((stat.mode & 0o077) !== 0) report.warn(`state folder ${config.stateDir} can be read by other users (mode ${(stat.mode & 0o777).toString(8)})`, `It holds document text and backups: chmod 700 "${config.stateDir}".`);
  else report.pass(`state folder ${config.stateDir} is private and writable`);
}

function checkLedger(report: Report, config: Config): void {
  const file = ledgerPath(config);
  let ledger;
  try {
    ledger = openLedger(file, { readonly: true, lock: false, logger: silentLogger });
  } catch (error) {
    if (error instanceof KbsyncError && error.code === 'LEDGER_MISSING') return report.pass('ledger: none yet (nothing synced with this config)');
    return report.fail('config', 'ledger cannot be used', error);
  }
  try {
    const intents = ledger.intents.open();
    report.pass(`ledger ${path.relative(config.root, file)}: ${ledger.documents.count()} document(s) synced`);
    const holder = readLockHolder(file);
    if (holder?.alive) report.pass(`ledger in use by pid ${holder.pid} on ${holder.hostname} (${holder.command}); other kbsync runs wait for it`);
    else if (holder) report.warn(`ledger lock left by pid ${holder.pid}, which no longer runs`, 'Nothing to do: the next run takes it over.');
    if (intents.length > 0) report.warn(`${intents.length} interrupted operation(s) (${intents.map((i) => `${i.kind} ${i.subject}`).join(', ')})`, 'Run `kbsync sync`: it finishes them before anything else.');
  } finally {
    ledger.close();
  }
}

async function run(flags: { readonly config?: string }): Promise<void> {
  const report = new Report();
  let loaded;
  try {
    loaded = await loadConfig({ ...(flags.config ? { path: flags.config } : {}), cwd: process.cwd(), env: process.env });
  } catch (error) {
    report.fail('config', 'config does not load', error);
    process.exitCode = report.exitCode;
    return;
  }
  const { config, configPath } = loaded;
  report.pass(`config ${configPath ?? '(from KBSYNC_* variables)'} loads: ${config.root} ⇄ workspace ${config.workspaceId}`);
  for (const warning of loaded.warnings) report.warn(warning, 'See the message.');
  const { client, token } = createServiceClient(config.service, { env: process.env, cwd: configPath ? path.dirname(configPath) : process.cwd(), logger: silentLogger });
  let tokenOk = false;
  try {
    await token.get();
    report.pass(`token from ${token.description}`);
    tokenOk = true;
  } catch (error) {
    report.fail('config', `token from ${token.description} cannot be read`, error);
  }
  if (tokenOk && (await checkService(report, client, config))) {
    await checkScopes(report, client, config);
    checkClock(report, client);
  }
  await checkStateFolder(report, config);
  checkLedger(report, config);
  const failed = report.checks.filter((c) => c.ok === false).length;
  console.log(failed === 0 ? 'All checks passed.' : `${failed} check(s) failed: fix the ✗ lines above (each says how).`);
  process.exitCode = report.exitCode;
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  register(program: Command) {
    program
      .command('doctor')
      .description('Check the setup, each with ✓ or ✗ and what to do: config, token, service, scopes, operatorId, workspace, clock, state folder, ledger.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addHelpText(
        'after',
        `
The scope checks call each endpoint family once with made-up ids, so they change nothing.
Exit codes: 0 all checks passed (warnings allowed), 2 a configuration or local problem, 4 the service cannot be used.

Examples:
  kbsync doctor
  kbsync doctor --config ~/notes/sync.config.json`,
      )
      .action(run);
  },
};
