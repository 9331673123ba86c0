import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../../helpers/cli.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';
import type { SyncReport } from '../../../src/sync/views/report.js';

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  test(`${signal} during a sync: the work under way finishes, the report says what was done, exit ${code}, and the next sync does the rest`, async () => {
    await withSyncFixture(
      async (f) => {
        for (let i = 0; i < 40; i += 1) await f.write(`n${String(i).padStart(2, '0')}.md`, `# Note ${i}\n\nBody ${i}.\n`);
        const stopped = await runCli(['sync', '--json', '--config', f.configPath], {
          cwd: f.dir,
          env: f.env,
          onSpawn: (child) => {
            // Once a few documents exist, the run is well under way.
            void (async () => {
              while (f.remoteDocs().length < 3) await sleep(20);
              child.kill(signal);
            })();
          },
        });
        assert.equal(stopped.code, code, stopped.stderr);
        assert.match(stopped.stderr, new RegExp(`${signal}: finishing the work under way`));
        const report = JSON.parse(stopped.stdout.trim().split('\n').pop() ?? '{}') as SyncReport;
        assert.equal(report.interrupted, true);
        const created = report.results.filter((r) => r.ok && r.action === 'create').length;
        assert.ok(created > 0 && created < 40, `created ${created}`);
        assert.equal(f.remoteDocs().length, created, 'every document made is in the report, and recorded');

        const rest = await f.sync();
        assert.equal(rest.code, 0, rest.stderr);
        assert.equal(f.remoteDocs().length, 40, 'no duplicate, nothing missing');
      },
      { emulator: { faults: 'latency=150,only=createDocument' } },
    );
  });
}
