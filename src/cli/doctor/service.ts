import { isApiError, type KbClient } from '../../api/index.js';
import type { Config } from '../../config/index.js';
import { messageOf, SafetyError } from '../../errors.js';
import { openLedger, type Ledger } from '../../ledger/index.js';
import { silentLogger } from '../../log.js';
import { asTreeNodeId, asWorkspaceId } from '../../model/ids.js';
import { openStateStore } from '../../sync/state/store.js';
import { ledgerPath, syncOptionsOf } from '../../setup/index.js';
import { knownRoot, observeAndPlan, workspaceRoot } from '../../sync/observe/observe.js';
import { cachedTeam, followTeam } from '../../sync/state/team.js';
import { exitCodeOf } from '../exit-codes.js';
import type { Checks } from './checks.js';
import { operatorRefused, runProbe, SCOPE_PROBES } from './probes.js';
import { oneLine } from '../../printable.js';

const CLOCK_TOLERANCE_MS = 60_000;

/** Reachability, the version prefixes, the token and the operatorId, from the first calls. False: nothing more can be asked. */
export async function checkService(checks: Checks, client: KbClient, config: Config): Promise<boolean> {
  const base = config.service.baseUrl;
  try {
    const workspace = await client.getWorkspace(asWorkspaceId(config.workspaceId));
    checks.pass('service', `service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
    checks.pass('workspace', `workspace "${oneLine(workspace.name)}" (${oneLine(workspace.workspaceId)}) exists`);
  } catch (error) {
    if (operatorRefused(error)) {
      checks.pass('service', `service ${base} answers on /v2.0`);
      checks.fail('operator', `operatorId ${config.service.operatorId} is refused: ${error.message}`,
        "Set service.operatorId to the user's unionId, not the userId (the unionId is the id the organisation's apps share; the userId is only valid inside one organisation).", error.code);
      return true;
    }
    if (isApiError(error) && error.code === 'API_NOT_FOUND') {
      checks.pass('service', `service ${base} answers on /v2.0; operatorId ${config.service.operatorId} is accepted`);
      checks.fail('workspace', `workspace ${config.workspaceId} does not exist or the operator cannot see it`, 'Run `kbsync workspaces` to list the ones you can use, and set workspaceId.', error.code);
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
      checks.pass('remote-folder', `remoteFolder "${oneLine(folder.title)}" exists`);
    } catch (error) {
      checks.fail('remote-folder', `remoteFolder ${config.remoteFolder} cannot be read: ${messageOf(error)}`, 'Set remoteFolder to a folder node id of the workspace, or null for its root.', isApiError(error) ? error.code : undefined, exitCodeOf(error));
    }
  }
  return true;
}

export async function checkScopes(checks: Checks, client: KbClient, config: Config): Promise<void> {
  for (const probe of SCOPE_PROBES) {
    const name = `scope:${probe.scope}`;
    const outcome = await runProbe(probe, client, asWorkspaceId(config.workspaceId));
    if (outcome.kind === 'granted') checks.pass(name, `scope ${probe.scope}: granted (to ${probe.use})`);
    else if (outcome.kind === 'missing' && probe.optional) {
      checks.warn(name, `scope ${outcome.scopes.join(', ')} is missing: ${probe.optional}`, `Grant ${outcome.scopes.join(', ')} to the app in the developer console (then issue a new access token) if you want to ${probe.use}.`);
    } else if (outcome.kind === 'missing') {
      checks.fail(name, `scope ${outcome.scopes.join(', ')} is missing: kbsync cannot ${probe.use}`,
        `Grant ${outcome.scopes.join(', ')} to the app in the developer console, then issue a new access token.`, 'API_FORBIDDEN');
    } else checks.fail(name, `scope ${probe.scope} could not be checked: ${messageOf(outcome.error)}`, 'See the message; run doctor again.', isApiError(outcome.error) ? outcome.error.code : undefined, exitCodeOf(outcome.error));
  }
}

export function checkClock(checks: Checks, client: KbClient): void {
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
export async function checkPlan(checks: Checks, client: KbClient, config: Config, secret: string | undefined): Promise<void> {
  let ledger: Ledger | undefined;
  try {
    ledger = openLedger(ledgerPath(config), { readonly: true, lock: false, logger: silentLogger });
  } catch {
    ledger = undefined; // none yet, or older: the checks above said so; plan as a first sync would
  }
  try {
    const configured = syncOptionsOf(config, { mode: 'two-way', dryRun: true, force: false });
    // Read with the team's settings as this ledger last saw them, as a sync reads it.
    const rootId = knownRoot(ledger, configured);
    const options = followTeam(configured, rootId ? cachedTeam(ledger, rootId) : undefined);
    const observed = await observeAndPlan(
      { client, ledger, rootId: () => workspaceRoot(client, ledger, options, false), store: (rootId) => openStateStore({ client, ledger, logger: silentLogger }, { workspaceId: options.workspaceId, rootId }, secret) },
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
