import { Notifier } from '../../../src/daemon/notify.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceClient } from '../../../src/setup/index.js';
import { ledgerPath, syncOptionsOf } from '../../../src/cli/session.js';
import { loadConfig } from '../../../src/config/index.js';
import { WorkGauge } from '../../../src/daemon/work-gauge.js';
import { CallMeter } from '../../../src/daemon/call-meter.js';
import { HotDocuments } from '../../../src/daemon/hot-documents.js';
import { CycleScheduler } from '../../../src/daemon/scheduler.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { openLedger } from '../../../src/ledger/index.js';
import { silentLogger } from '../../../src/log.js';
import { waitUntil } from './daemon-process.js';
import { ScanCache } from '../../../src/local/index.js';

test('a probe of a recently changed document (one getNode) finds a remote edit and brings the sweep forward', async (t) => {
  const em = await startEmulator({ rateLimit: 0 });
  t.after(() => em.close());
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-probe-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'notes'));
  await writeFile(join(dir, 'notes', 'a.md'), '# A\n\nFirst.\n\nSecond.\n');
  const configPath = join(dir, 'sync.config.json');
  await writeFile(configPath, JSON.stringify({ root: './notes', workspaceId: em.seed.workspaceId, service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId } }));
  const env = { KBSYNC_TOKEN: em.seed.token };
  const { config } = await loadConfig({ path: configPath, cwd: dir, env });
  const { client } = createServiceClient(config.service, { env, cwd: dir, logger: silentLogger });
  const ledger = openLedger(ledgerPath(config));
  t.after(() => ledger.close());
  const hot = new HotDocuments();
  const scheduler = new CycleScheduler(
    { client, ledger, logger: silentLogger, meter: new CallMeter(client, ledger), gauge: new WorkGauge(ledger), hot, scans: new ScanCache(), notifier: new Notifier({ command: null, timeoutMs: 1000 }, silentLogger), untilQuiet: () => 0 },
    { sync: syncOptionsOf(config, { mode: 'two-way', dryRun: false, force: false }), watch: config.watch, callsPerMonth: 0 },
  );
  t.after(() => scheduler.stop());
  const calls = () => structuredClone(em.admin.calls().byEndpoint);
  const cycle = async (kind: 'sweep' | 'probe') => {
    scheduler.request(kind);
    await scheduler.idle();
  };

  await cycle('sweep');
  assert.deepEqual(hot.paths(Date.now()), ['a.md'], 'the document just created is hot');
  await cycle('probe'); // the baseline
  const before = calls();
  const doc = em.admin.dump().nodes.find((node) => node.title === 'A');
  assert.ok(doc);
  em.admin.setClockOffset(2 * 60_000); // modifiedTime has minute precision: edit in a later minute
  em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('Second.', 'Second, edited on the web.'));
  scheduler.request('probe');
  await waitUntil(async () => (await readFile(join(dir, 'notes', 'a.md'), 'utf8')).includes('edited on the web'), 'the probe-triggered sweep to pull the edit');
  await scheduler.idle();
  const after = calls();
  assert.equal(after.getNode.calls - before.getNode.calls, 1, 'one probe call');
  // One sweep: the synced folder's listing and the state folder's (its index's times say whether to read it).
  assert.equal(after.listNodes.calls - before.listNodes.calls, 2, 'one sweep, brought forward by the probe');
});
