import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import { minuteByMinute, publishedOnBoth, reported, withGatedPair } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 502: machine A listed a document B had just made, before B's record of it came, and pulled it under a
 * name made from its title. B's record came while A's run was under way, so A's record of that name, published
 * after it, stood over B's path by its later stamp: B's own file was renamed to the title on B.
 */
const PAGE = '# semver(1) -- The semantic versioner for npm\n\nSome words.\n';
const TITLED = 'ref/semver(1) -- The semantic versioner for npm.md';

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`a document pulled by its title before its creator's record came takes its creator's path on both (${team})`, async () => {
    // A's append of its records waits for B's run, which publishes B's record of the document first.
    const gate = onceAt((request) => request.path.includes('appendText'));
    await withGatedPair(keyless, gate.hooks, async (em, b, a) => {
      const { sync } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'intro.md': '# Intro\n\nHello.\n' });
      await b.write('ref/semver.md', PAGE);
      const killed = await b.sync([], { KBSYNC_CRASH_AT: 'before-id-append' });
      assert.notEqual(killed.code, 0, 'B is killed between its create and its record');
      gate.arm(() => reported(b));
      const first = await sync(a);
      assert.ok(gate.fired, "B's record came during A's run");
      assert.deepEqual(
        first.results.filter((r) => r.path.endsWith('.md')).map((r) => r.path),
        [TITLED],
        'A pulls it by its title, knowing no record of it',
      );
      for (const f of [b, a, b, a]) await sync(f);
      assert.equal(await b.read('ref/semver.md'), PAGE, 'B keeps its file where it made it');
      assert.equal(await a.read('ref/semver.md'), PAGE, "A follows the creator's path");
      assert.equal(await a.exists(TITLED), false);
      assert.equal(await b.exists(TITLED), false);
      assert.equal(em.admin.dump().nodes.filter((node) => node.title === 'semver(1) -- The semantic versioner for npm').length, 1, 'one document');
      const settled = await sync(a);
      assert.deepEqual(settled.callsByEndpoint.appendText ?? 0, 0, 'nothing is published again once both agree');
    });
  });
}
