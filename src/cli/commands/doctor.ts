import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/index.js';
import { silentLogger } from '../../log.js';
import { redactedJson } from '../../secrets.js';
import { createServiceClient } from '../../setup/index.js';
import { terminal } from '../../terminal.js';
import type { CliCommand } from '../command.js';
import { Checks } from '../doctor/checks.js';
import { checkLedger, checkRoot, checkStateFolder } from '../doctor/local.js';
import { checkImages } from '../doctor/images.js';
import { checkSharedState, checkStateKey } from '../doctor/state-key.js';
import { createStateKeySource } from '../../setup/state-key.js';
import { checkClock, checkPlan, checkScopes, checkService } from '../doctor/service.js';
import { ExitCode } from '../exit-codes.js';
import { invocation } from '../../invocation.js';

/** The checks in the order sync meets the same problems: configuration, folder, ledger, token, service, its plan. */
async function runChecks(checks: Checks, flags: { readonly config?: string }): Promise<void> {
  let loaded;
  try {
    loaded = await loadConfig({ ...(flags.config ? { path: flags.config } : {}), cwd: invocation().cwd, env: invocation().env });
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
  await checkImages(checks, config);
  const configDir = configPath ? path.dirname(configPath) : invocation().cwd;
  const { client, token } = createServiceClient(config.service, { env: invocation().env, cwd: configDir, logger: silentLogger });
  try {
    await token.get();
    checks.pass('token', `token from ${token.description}`);
  } catch (error) {
    return checks.error('token', error, `token from ${token.description}`);
  }
  const keySource = createStateKeySource(config.state.key, { env: invocation().env, cwd: configDir, workspaceId: config.workspaceId });
  const secret = await checkStateKey(checks, keySource);
  if (secret === null) return;
  if (await checkService(checks, client, config)) {
    await checkScopes(checks, client, config);
    checkClock(checks, client);
  }
  if (checks.list.some((check) => check.status === 'fail')) return;
  await checkSharedState(checks, client, config, keySource, secret);
  if (!checks.list.some((check) => check.status === 'fail')) await checkPlan(checks, client, config, secret);
}

async function run(flags: { readonly config?: string; readonly json?: boolean }): Promise<void> {
  const checks = new Checks(!flags.json);
  await runChecks(checks, flags);
  const failed = checks.list.filter((c) => c.status === 'fail').length;
  const exitCode = checks.exitCode;
  if (flags.json) terminal.out(redactedJson({ ok: exitCode === ExitCode.ok, exitCode, checks: checks.list }));
  else terminal.out(failed === 0 ? 'All checks passed.' : `${failed} check(s) failed: fix the ✗ lines above (each says how).`);
  invocation().exitCode = exitCode;
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  register(program: Command) {
    program
      .command('doctor')
      .description('Check the setup, each with ✓, ! or ✗ and what to do: config, folder, state folder, ledger, token, state key, service, scopes, operatorId, workspace, clock, the shared state and its key.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print the checks as one JSON document: { ok, exitCode, checks: [{ name, status, message, fix, code, exitCode }] }')
      .addHelpText(
        'after',
        `
Every reason sync would refuse to run (a missing or too broad root, a ledger that is damaged, another
workspace's or locked by another kbsync, the token, the service, a missing scope, a shared state signed
with a key this machine lacks or with another one, and, when all those pass, a guard on what a sync would
do now: mass delete, an empty side) is a failed check,
and doctor exits with the code sync would: 0 all checks passed (warnings allowed), 2 a configuration or
local problem, 3 a safety refusal (the ledger), 4 the service cannot be used. A scope that only one
feature needs (search, members from front matter) is a warning naming what it disables.
A running \`kbsync watch\` for the folder is the healthy state of a service: a ✓ line with its pid and
what it is doing (a warning if its last cycle failed), and every other check is made beside it.
The scope checks call each endpoint family once with made-up ids, so they change nothing.

Examples:
  kbsync doctor
  kbsync doctor --json
  kbsync doctor --config ~/notes/sync.config.json`,
      )
      .action(run);
  },
};
