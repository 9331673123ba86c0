import { Writable } from 'node:stream';
import { loadConfig } from '../../../src/config/index.js';
import { CallMeter } from '../../../src/daemon/call-meter.js';
import { HotDocuments } from '../../../src/daemon/hot-documents.js';
import { Notifier } from '../../../src/daemon/notify.js';
import { CycleScheduler } from '../../../src/daemon/scheduler.js';
import { WorkGauge } from '../../../src/daemon/work-gauge.js';
import { ScanCache } from '../../../src/local/index.js';
import type { Ledger } from '../../../src/ledger/index.js';
import { createLogger } from '../../../src/log.js';
import { createServiceClient, openStateLedger, syncOptionsOf } from '../../../src/setup/index.js';
import { createStateKeySource } from '../../../src/setup/state-key.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import type { LogLine } from './daemon-process.js';

/** The daemon's scheduler in this process, on a virtual clock: the test says when time passes and when the folder changed. */
export type InProcessDaemon = {
  readonly clock: ManualClock;
  /** The daemon's ledger (a test may make it fail). */
  readonly ledger: Ledger;
  readonly logs: LogLine[];
  /** What a person reads (info and above), from line `from` on. */
  said(from?: number): string[];
  /** The folder changed (the watcher's hint): a local cycle walks it whole, and the daemon settles. */
  changed(): Promise<void>;
  /** Time passes (`minutes`), every wake-up due meanwhile runs, and the daemon settles. */
  wait(minutes: number): Promise<void>;
  /** Until no cycle runs and none is due to start now. */
  settled(): Promise<void>;
};

/**
 * Runs `fn` with the fixture's daemon as `kbsync watch` builds it (client, ledger and its lock, call meter, scheduler),
 * minus the file watcher: the test tells it when the folder changed. Its first sweep is done when `fn` starts.
 */
export async function withInProcessDaemon(f: SyncFixture, fn: (d: InProcessDaemon) => Promise<void>): Promise<void> {
  const { config } = await loadConfig({ path: f.configPath, cwd: f.dir, env: f.env });
  const logs: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = createLogger({ level: 'debug', pretty: false, destination });
  const { client } = createServiceClient(config.service, { env: f.env, cwd: f.dir, logger });
  const stateKey = createStateKeySource(config.state.key, { env: f.env, cwd: f.dir, workspaceId: config.workspaceId });
  const ledger = openStateLedger(config, logger, { command: 'watch' });
  const clock = new ManualClock();
  const scans = new ScanCache();
  const scheduler = new CycleScheduler(
    { client, ledger, logger, clock, scans, meter: new CallMeter(client, ledger), gauge: new WorkGauge(ledger), hot: new HotDocuments(), notifier: new Notifier(config.notify, logger, f.env), untilQuiet: () => 0 },
    { sync: { ...syncOptionsOf(config, { mode: 'two-way', dryRun: false, force: false }), stateKey }, watch: config.watch, callsPerMonth: config.service.callsPerMonth },
  );
  const settled = async (): Promise<void> => {
    // A cycle that ends may start the next at once (a request made meanwhile): wait until none runs.
    while (scheduler.busy) await scheduler.idle();
  };
  const d: InProcessDaemon = {
    clock,
    ledger,
    logs,
    said: (from = 0) => logs.slice(from).filter((line) => line.level >= 30).map((line) => line.msg),
    async changed() {
      scans.invalidate();
      scheduler.request('local');
      await settled();
    },
    async wait(minutes) {
      clock.advance(minutes * 60_000);
      await settled();
    },
    settled,
  };
  try {
    scheduler.start();
    await settled();
    await fn(d);
  } finally {
    await scheduler.stop();
    ledger.close();
  }
}
