import { join } from 'node:path';
import { syncOptionsOf } from '../../src/cli/session.js';
import { loadConfig } from '../../src/config/index.js';
import { openLedger, type Ledger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { createServiceClient } from '../../src/setup/index.js';
import { createStateKeySource } from '../../src/setup/state-key.js';
import { runSync, type SyncOptions } from '../../src/sync/engine.js';
import type { SyncReport } from '../../src/sync/report.js';
import type { KbClient } from '../../src/api/index.js';
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
    const stateKey = createStateKeySource(config.state.key, { env: f.env, cwd: f.dir });
    return await fn({ client, ledger, options: { ...syncOptionsOf(config, { mode, dryRun, force: false }), stateKey } });
  } finally {
    ledger.close();
  }
}

/** One `kbsync sync --push [--dry-run]`, in this process. */
export const pushInProcess = (f: SyncFixture, dryRun = false): Promise<SyncReport> =>
  withInProcess(f, 'push', ({ client, ledger, options }) => runSync({ client, ledger, logger: silentLogger }, options), dryRun);

/** The report's plan as `kind path` lines. */
export const plannedLines = (report: SyncReport): string[] => report.planned.map((p) => `${p.kind} ${p.path}`);
