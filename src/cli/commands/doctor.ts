import { constants, promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { isApiError, type KbClient } from '../../api/index.js';
import { loadConfig, type Config } from '../../config/index.js';
import { KbsyncError, messageOf, SafetyError } from '../../errors.js';
import { openLedger, readLockHolder, type Ledger } from '../../ledger/index.js';
import { assertNarrowRoot, assertRootDirectorySync } from '../../local/index.js';
import { silentLogger } from '../../log.js';
import { asTreeNodeId, asWorkspaceId } from '../../model/ids.js';
import { redactValue } from '../../secrets.js';
import { createServiceClient } from '../../setup/index.js';
import { explainLocked } from '../../setup/lock-holder.js';
import { RemoteStateStore } from '../../remote-state/store.js';
import { assertSameWorkspace, observeAndPlan, workspaceRoot } from '../../sync/observe/observe.js';
import { terminal } from '../../terminal.js';
import type { CliCommand } from '../command.js';
import { operatorRefused, runProbe, SCOPE_PROBES } from '../doctor-probes.js';
import { ExitCode, exitCodeOf } from '../exit-codes.js';
import { ledgerPath, syncOptionsOf } from '../session.js';

/**
 * One check. A failing one carries the code and exit code `kbsync sync` would end with for the same
 * cause, because each comes from the very check sync makes (or the very error it throws): doctor and
 * sync cannot disagree about what stops a run.
 */
type Check = {
  readonly name: string;
  readonly status: 'pass' | 'warn' | 'fail';
  readonly message: string;
  readonly fix?: string;
  readonly code?: string;
  readonly exitCode?: ExitCode;
};

const CLOCK_TOLERANCE_MS = 60_000;
const MARK = { pass: '✓', warn: '!', fail: '✗' } as const;

class Checks {
  readonly list: Check[] = [];
  constructor(readonly print: boolean) {}

  add(check: Check): void {
    this.list.push(check);
    if (!this.print) return;
    terminal.out(`${MARK[check.status]} ${check.message}${check.code ? ` [${check.code}]` : ''}`);
    if (check.fix) terminal.out(`    → ${check.fix}`);
  }
  pass = (name: string, message: string): void => this.add({ name, status: 'pass', message });
  warn = (name: string, message: string, fix: string): void => this.add({ name, status: 'warn', message, fix });
  /** A failure from the error sync itself would throw: its message (which says what to do), code and exit code. */
  error = (name: string, error: unknown, subject?: string): void =>
    this.add({ name, status: 'fail', message: `${subject ? `${subject}: ` : ''}${messageOf(error)}`, code: error instanceof KbsyncError ? error.code : 'UNEXPECTED', exitCode: exitCodeOf(error) });
  fail = (name: string, message: string, fix: string, exitCode: ExitCode, code?: string): void => this.add({ name, status: 'fail', message, fix, exitCode, ...(code ? { code } : {}) });

  /** The exit code of the first failure in the order sync meets them (config, folder, ledger, token, service), so both end alike. */
  get exitCode(): ExitCode {
    return this.list.find((check) => check.status === 'fail')?.exitCode ?? ExitCode.ok;
  }
}

/** The checks sync makes before it opens its ledger: a root it may use, and that exists. */
function checkRoot(checks: Checks, config: Config): boolean {
  try {
    assertNarrowRoot(config.root, homedir(), config.allowBroadRoot);
    assertRootDirectorySync(config.root);
  } catch (error) {
    checks.error('root', error, 'folder');
    return false;
  }
  checks.pass('root', `folder ${config.root} exists`);
  return true;
}

async function checkStateFolder(checks: Checks, config: Config): Promise<void> {
  const stat = await fsp.stat(config.stateDir).catch(() => undefined);
  const folder = stat ? config.stateDir : config.root;
  try {
    await fsp.access(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    const what = stat ? 'state folder' : 'root folder (the state folder is created in it)';
    // Sync fails the same way when it opens its ledger there.
    checks.fail('state-folder', `${what} ${folder} cannot be written: ${messageOf(error)}`, `Give this user write access (chmod u+rwx "${folder}").`, ExitCode.usage, 'LEDGER_NOT_WRITABLE');
    return;
  }
  if (!stat) checks.pass('state-folder', `state folder ${config.stateDir} will be created by the first sync`);
  else if (!stat.isDirectory()) checks.fail('state-folder', `state folder ${config.stateDir} is not a folder`, 'Move it aside or set stateDir elsewhere.', ExitCode.usage, 'LEDGER_OPEN_FAILED');
  else if ((stat.mode & 0o077) !== 0) checks.warn('state-folder', `state folder ${config.stateDir} can be read by other users (mode ${(stat.mode & 0o777).toString(8)})`, `It holds document text and backups: chmod 700 "${config.stateDir}".`);
  else checks.pass('state-folder', `state folder ${config.stateDir} is private and writable`);
}

/** Who holds the ledger: a live holder makes sync refuse (LEDGER_LOCKED, or DAEMON_RUNNING for the daemon). */
function checkLock(checks: Checks, config: Config, file: string): void {
  const holder = readLockHolder(file);
  if (!holder) return;
  if (!holder.alive) {
    checks.warn('lock', `ledger lock left by pid ${holder.pid}, which no longer runs`, 'Nothing to do: the next run takes it over.');
    return;
  }
  const locked = new SafetyError('LEDGER_LOCKED', `The ledger ${file} is in use by pid ${holder.pid} on ${holder.hostname} (${holder.command}), so kbsync sync would be refused now.`, {
    hint: `Wait for it to finish or stop it (kill ${holder.pid}), then try again. \`kbsync status\` works meanwhile.`,
  });
  checks.error('lock', explainLocked(locked, { root: config.root, ledgerPath: file, command: 'other' }), 'ledger lock');
}

function checkLedger(checks: Checks, config: Config): void {
  const file = ledgerPath(config);
  checkLock(checks, config, file);
  let ledger: Ledger;
  try {
    ledger = openLedger(file, { readonly: true, lock: false, logger: silentLogger });
  } catch (error) {
    const code = error instanceof KbsyncError ? error.code : undefined;
    if (code === 'LEDGER_MISSING') return checks.pass('ledger', 'ledger: none yet (nothing synced with this config)');
    if (code === 'LEDGER_OUTDATED') return checks.pass('ledger', `ledger ${path.relative(config.root, file)} is from an older kbsync: the next sync upgrades it`);
    // Damaged, not kbsync's, or from a newer kbsync: sync refuses it with this very error.
    return checks.error('ledger', error, 'ledger');
  }
  try {
    checks.pass('ledger', `ledger ${path.relative(config.root, file)}: ${ledger.documents.count()} document(s) synced`);
    try {
      assertSameWorkspace(ledger, asWorkspaceId(config.workspaceId), false);
    } catch (error) {
      checks.error('ledger-workspace', error, 'ledger');
    }
    const intents = ledger.intents.open();
    if (intents.length > 0) checks.warn('intents', `${intents.length} interrupted operation(s) (${intents.map((i) => `${i.kind} ${i.subject}`).join(', ')})`, 'Run `kbsync sync`: it finishes them before anything else.');
  } finally {
    ledger.close();
  }
}

/** Reachability, the version prefixes, the token and the operatorId, from the first calls. False: nothing more can be asked. */
async function checkService(checks: Checks, client: KbClient, config: Config): Promise<boolean> {
  const base = config.service.baseUrl;
  try {
    const workspace = await client.getWorkspace(asWorkspaceId(config.workspaceId));
    checks.pass('service', `service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
    checks.pass('workspace', `workspace "${workspace.name}" (${workspace.workspaceId}) exists`);
  } catch (error) {
    if (operatorRefused(error)) {
      checks.pass('service', `service ${base} answers on /v2.0`);
      checks.fail('operator', `operatorId ${config.service.operatorId} is refused: ${error.message}`,
        "Set service.operatorId to the user's unionId, not the userId (the unionId is the id the organisation's apps share; the userId is only valid inside one organisation).", exitCodeOf(error), error.code);
      return true;
    }
    if (isApiError(error) && error.code === 'API_NOT_FOUND') {
      checks.pass('service', `service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
      checks.fail('workspace', `workspace ${config.workspaceId} does not exist or the operator cannot see it`, 'Run `kbsync workspaces` to list the ones you can use, and set workspaceId.', exitCodeOf(error), error.code);
      return true;
    }
    if (isApiError(error) && error.code === 'API_FORBIDDEN') {
      checks.pass('service', `service ${base} answers on /v2.0`);
      return true; // the scope checks below name what is missing
    }
    checks.error('service', error, `service ${base}`);
    return false;
  }
  if (config.remoteFolder) {
    try {
      const folder = await client.getNode(asTreeNodeId(config.remoteFolder));
      checks.pass('remote-folder', `remoteFolder "${folder.title}" exists`);
    } catch (error) {
      checks.fail('remote-folder', `remoteFolder ${config.remoteFolder} cannot be read: ${messageOf(error)}`, 'Set remoteFolder to a folder node id of the workspace, or null for its root.', exitCodeOf(error), isApiError(error) ? error.code : undefined);
    }
  }
  return true;
}

async function checkScopes(checks: Checks, client: KbClient, config: Config): Promise<void> {
  for (const probe of SCOPE_PROBES) {
    const name = `scope:${probe.scope}`;
    const outcome = await runProbe(probe, client, asWorkspaceId(config.workspaceId));
    if (outcome.kind === 'granted') checks.pass(name, `scope ${probe.scope}: granted (to ${probe.use})`);
    else if (outcome.kind === 'missing' && probe.optional) {
      checks.warn(name, `scope ${outcome.scopes.join(', ')} is missing: ${probe.optional}`, `Grant ${outcome.scopes.join(', ')} to the app in the developer console (then issue a new access token) if you want to ${probe.use}.`);
    } else if (outcome.kind === 'missing') {
      checks.fail(name, `scope ${outcome.scopes.join(', ')} is missing: kbsync cannot ${probe.use}`,
        `Grant ${outcome.scopes.join(', ')} to the app in the developer console, then issue a new access token.`, ExitCode.service, 'API_FORBIDDEN');
    } else checks.fail(name, `scope ${probe.scope} could not be checked: ${messageOf(outcome.error)}`, 'See the message; run doctor again.', exitCodeOf(outcome.error), isApiError(outcome.error) ? outcome.error.code : undefined);
  }
}

function checkClock(checks: Checks, client: KbClient): void {
  const server = client.serverTime();
  if (!server) return;
  const offset = server.getTime() - Date.now();
  const seconds = Math.round(Math.abs(offset) / 1000);
  if (Math.abs(offset) <= CLOCK_TOLERANCE_MS) checks.pass('clock', `clock: within ${seconds} s of the service's`);
  else {
    checks.warn('clock', `clock: this machine is ${seconds} s ${offset > 0 ? 'behind' : 'ahead of'} the service`,
      "kbsync judges the service's modifiedTime by the service's own clock, so syncing is safe, but timestamps in logs and backups will disagree: enable NTP (timedatectl set-ntp true).");
  }
}

/**
 * The guards sync applies to its plan (mass delete, an empty side, a damaged shared state): the same
 * observation and planner as a run, read-only, so a refusal sync would make now is a failed check too.
 * Costs the listing calls of one sync, and only runs when nothing before it failed.
 */
async function checkPlan(checks: Checks, client: KbClient, config: Config): Promise<void> {
  let ledger: Ledger | undefined;
  try {
    ledger = openLedger(ledgerPath(config), { readonly: true, lock: false, logger: silentLogger });
  } catch {
    ledger = undefined; // none yet, or older: the checks above said so; plan as a first sync would
  }
  try {
    const options = syncOptionsOf(config, { mode: 'two-way', dryRun: true, force: false });
    const observed = await observeAndPlan(
      { client, ledger, rootId: () => workspaceRoot(client, ledger, options, false), store: (rootId) => new RemoteStateStore({ client, workspaceId: options.workspaceId, rootId, logger: silentLogger }) },
      { ...options, listRemote: 'always' },
    );
    const refusal = observed.plan.refusal;
    if (refusal) checks.error('plan', new SafetyError(refusal.code, refusal.message), 'a sync now would be refused');
    else checks.pass('plan', `a two-way sync now would act on ${observed.plan.actions.length} file(s) or folder(s); no safety guard refuses it`);
  } catch (error) {
    checks.error('plan', error, 'a sync now would stop');
  } finally {
    ledger?.close();
  }
}

/** The checks in the order sync meets the same problems: configuration, folder, ledger, token, service, its plan. */
async function runChecks(checks: Checks, flags: { readonly config?: string }): Promise<void> {
  let loaded;
  try {
    loaded = await loadConfig({ ...(flags.config ? { path: flags.config } : {}), cwd: process.cwd(), env: process.env });
  } catch (error) {
    return checks.error('config', error, 'config');
  }
  const { config, configPath } = loaded;
  checks.pass('config', `config ${configPath ?? '(from KBSYNC_* variables)'} loads: ${config.root} ⇄ workspace ${config.workspaceId}`);
  for (const warning of loaded.warnings) checks.warn('config', warning, 'See the message.');
  if (checkRoot(checks, config)) {
    await checkStateFolder(checks, config);
    checkLedger(checks, config);
  }
  const { client, token } = createServiceClient(config.service, { env: process.env, cwd: configPath ? path.dirname(configPath) : process.cwd(), logger: silentLogger });
  try {
    await token.get();
    checks.pass('token', `token from ${token.description}`);
  } catch (error) {
    return checks.error('token', error, `token from ${token.description}`);
  }
  if (await checkService(checks, client, config)) {
    await checkScopes(checks, client, config);
    checkClock(checks, client);
  }
  if (!checks.list.some((check) => check.status === 'fail')) await checkPlan(checks, client, config);
}

async function run(flags: { readonly config?: string; readonly json?: boolean }): Promise<void> {
  const checks = new Checks(!flags.json);
  await runChecks(checks, flags);
  const failed = checks.list.filter((c) => c.status === 'fail').length;
  const exitCode = checks.exitCode;
  if (flags.json) terminal.out(JSON.stringify(redactValue({ ok: exitCode === ExitCode.ok, exitCode, checks: checks.list })));
  else terminal.out(failed === 0 ? 'All checks passed.' : `${failed} check(s) failed: fix the ✗ lines above (each says how).`);
  process.exitCode = exitCode;
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  register(program: Command) {
    program
      .command('doctor')
      .description('Check the setup, each with ✓, ! or ✗ and what to do: config, folder, state folder, ledger, token, service, scopes, operatorId, workspace, clock.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print the checks as one JSON document: { ok, exitCode, checks: [{ name, status, message, fix, code, exitCode }] }')
      .addHelpText(
        'after',
        `
Every reason sync would refuse to run (a missing or too broad root, a ledger that is damaged, another
workspace's or locked by another kbsync, the token, the service, a missing scope, and, when all those
pass, a guard on what a sync would do now: mass delete, an empty side) is a failed check,
and doctor exits with the code sync would: 0 all checks passed (warnings allowed), 2 a configuration or
local problem, 3 a safety refusal (the ledger), 4 the service cannot be used. A scope that only one
feature needs (search, members from front matter) is a warning naming what it disables.
The scope checks call each endpoint family once with made-up ids, so they change nothing.

Examples:
  kbsync doctor
  kbsync doctor --json
  kbsync doctor --config ~/notes/sync.config.json`,
      )
      .action(run);
  },
};
