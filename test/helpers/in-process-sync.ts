import { join } from 'node:path';
import { syncOptionsOf } from '../../src/cli/session.js';
import { loadConfig } from '../../src/config/index.js';
import { openLedger, type Ledger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { createServiceClient } from '../../src/setup/index.js';
import { createStateKeySource } from '../../src/setup/state-key.js';
import { runSync, type SyncOptions } from '../../src/sync/engine.js';
import { fullySynced, type SyncReport } from '../../src/sync/views/report.js';
import { ExitCode, exitCodeOf } from '../../src/cli/exit-codes.js';
import { messageOf } from '../../src/errors.js';
import type { KbClient } from '../../src/api/index.js';
import { PROCESS_KNOBS, processDefaults } from './cli.js';
import type { SyncFixture } from './sync-fixture.js';

/** What an in-process run gets: the fixture's config as sync options, its service client and its ledger. */
export type InProcess = { readonly client: KbClient; readonly ledger: Ledger; readonly options: SyncOptions };

/**
 * Runs `fn` with the fixture's client, a freshly opened ledger and the sync options of its config (in
 * `mode`), as `kbsync sync` would, in this process: tests can then look into the ledger around a run.
 */
export async function withInProcess<T>(f: SyncFixture, mode: SyncOptions['mode'], fn: (run: InProcess) => Promise<T>, dryRun = false): Promise<T> {
  const { config } = await loadConfig({ path: f.configPath, cwd: f.dir, env: f.env });
  const { client } = createServiceClient(config.service, { env: f.env, cwd: f.dir, logger: silentLogger });
  const ledger = openLedger(join(config.stateDir, 'ledger.sqlite'));
  try {
    const stateKey = createStateKeySource(config.state.key, { env: f.env, cwd: f.dir, workspaceId: config.workspaceId });
    return await fn({ client, ledger, options: { ...syncOptionsOf(config, { mode, dryRun, force: false }), stateKey } });
  } finally {
    ledger.close();
    processDefaults();
  }
}

/** One `kbsync sync --push [--dry-run]`, in this process. */
export const pushInProcess = (f: SyncFixture, dryRun = false): Promise<SyncReport> =>
  withInProcess(f, 'push', ({ client, ledger, options }) => runSync({ client, ledger, logger: silentLogger }, options), dryRun);

/** One two-way run that lists nothing it need not, as the daemon's local cycle runs, in this process. */
export const localCycleInProcess = (f: SyncFixture): Promise<SyncReport> =>
  withInProcess(f, 'two-way', ({ client, ledger, options }) => runSync({ client, ledger, logger: silentLogger }, { ...options, listRemote: 'if-needed' }));

/** The report's plan as `kind path` lines. */
export const plannedLines = (report: SyncReport): string[] => report.planned.map((p) => `${p.kind} ${p.path}`);

export type SyncRun = { readonly code: number; readonly report?: SyncReport; readonly stderr: string };

/**
 * `kbsync sync` with the fixture's config, its exit code as the CLI would set it. In this process
 * (a `node bin/kbsync.js` start costs 0.15–0.25 s of CPU; the crash matrix and the chaos runs check
 * steadiness after every cell) unless the fixture sets a knob only a fresh process reads.
 */
export async function syncOnce(f: SyncFixture): Promise<SyncRun> {
  if (PROCESS_KNOBS.some((knob) => (f.env[knob] ?? '') !== '')) return f.sync().then((run) => ({ ...run, code: run.code ?? -1 }));
  try {
    return await withInProcess(f, 'two-way', async ({ client, ledger, options: sync }) => {
      const report = await runSync({ client, ledger, logger: silentLogger }, sync);
      return { code: fullySynced(report) ? ExitCode.ok : ExitCode.partial, report, stderr: '' };
    });
  } catch (error) {
    return { code: exitCodeOf(error), stderr: messageOf(error) };
  }
}
