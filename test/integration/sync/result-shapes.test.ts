import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { pushInProcess as push } from '../../helpers/in-process-sync.js';
import { withSyncFixture } from '../../helpers/sync-fixture.js';

/**
 * A run keeps each file's result for its report, so a first push of 10,000 notes holds 10,000 of them. On Node 20's
 * V8 an object made by a spread and then given more properties gets a hidden class of its own (about 0.2 KB):
 * results alike in their fields must share one.
 */
test("a push's results alike in their fields share one hidden class", async () => {
  setFlagsFromString('--allow-natives-syntax');
  const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;
  await withSyncFixture(async (f) => {
    for (let i = 0; i < 30; i++) await f.write(`notes-${i % 3}/note-${i}.md`, `# Note ${i}\n\nSome text for note ${i}.\n`);
    const report = await push(f);
    assert.equal(report.counts['pushed'], 30);
    const byFields = new Map<string, unknown[]>();
    for (const result of report.results) {
      const fields = Object.keys(result).join(',');
      byFields.set(fields, [...(byFields.get(fields) ?? []), result]);
    }
    for (const [fields, alike] of byFields) {
      const [first, ...rest] = alike;
      assert.equal(rest.filter((result) => !sameShape(first, result)).length, 0, `results with ${fields}: one hidden class`);
    }
  });
});
