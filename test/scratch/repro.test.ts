import { test } from 'node:test';
import { join } from 'node:path';
import { withSyncFixture, stateNodes } from '../helpers/sync-fixture.js';
import { decodeTokens } from '../../src/remote-state/codec.js';
import { stateKey } from '../../src/remote-state/token.js';
import { TEST_STATE_KEY } from '../helpers/sync-fixture.js';

test('repro: clone', async () => {
  await withSyncFixture(async (f) => {
    await f.write('plans/q3-review.md', '---\ntitle: "Review: Q3/Q4 plan"\n---\nReview *notes* and [a link](q3.md).\n');
    await f.write('plans/q3.md', '# Plan\n\nGoals.\n');
    const r = await f.sync();
    console.log(r.code, JSON.stringify(r.report?.callsByEndpoint));
    const key = stateKey(TEST_STATE_KEY, f.em.seed.workspaceId);
    for (const n of stateNodes(f.em.admin.dump().nodes)) {
      const d = decodeTokens((n.markdown ?? '').split('\n\n').slice(1).join(' '), key);
      console.log(n.title, d.index.map((t) => t.records.map((r) => JSON.stringify(r.record)).join('\n')).join('\n'), d.chunks.map((c) => c.h), d.damaged, d.unverified);
    }
    const s = await f.cli(['state', '--json']);
    console.log(s.stdout, s.stderr);
    const clone = join(f.dir, 'second');
    const cloned = await f.cli(['clone', f.em.seed.workspaceUrl, clone]);
    console.log(cloned.code, cloned.stdout, cloned.stderr);
  });
});
