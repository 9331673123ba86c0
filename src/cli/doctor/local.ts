import { constants, promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { KbsyncError, messageOf, SafetyError } from '../../errors.js';
import { openLedger, readLockHolder, type Ledger } from '../../ledger/index.js';
import { assertNarrowRoot, assertRootDirectorySync } from '../../local/index.js';
import { silentLogger } from '../../log.js';
import { asWorkspaceId } from '../../model/ids.js';
import { explainLocked } from '../../setup/lock-holder.js';
import { ledgerPath } from '../../setup/index.js';
import { assertSameWorkspace } from '../../sync/observe/observe.js';
import { ExitCode } from '../exit-codes.js';
import type { Checks } from './checks.js';

/** The checks sync makes before it opens its ledger: a root it may use, and that exists. */
export function checkRoot(checks: Checks, config: Config): boolean {
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

export async function checkStateFolder(checks: Checks, config: Config): Promise<void> {
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

export function checkLedger(checks: Checks, config: Config): void {
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
