import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QUEUE_LENGTH_KEY, WorkGauge } from '../../../src/daemon/work-gauge.js';
import { tempLedger } from '../ledger/helpers.js';

describe('WorkGauge', () => {
  test('nothing is written between a save and its cycle; the count a second later, and the end of each cycle at once', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const ledger = tempLedger(t);
    const gauge = new WorkGauge(ledger);
    const written = () => ledger.meta.get(QUEUE_LENGTH_KEY);

    gauge.hinted(['a.md', 'b.md']);
    gauge.cycleStarted();
    gauge.planned(2);
    assert.equal(written(), undefined, 'no commit on the way from a save to its upload');
    assert.equal(gauge.length, 2);

    t.mock.timers.tick(1000);
    assert.equal(written(), 2, 'a second later, what is waiting then');

    gauge.done();
    gauge.hinted(['c.md']);
    assert.equal(written(), 2);
    gauge.cycleEnded();
    assert.equal(written(), 1, 'the cycle is over: only the file saved during it waits');

    t.mock.timers.tick(1000);
    assert.equal(written(), 1, 'no timer left behind');
  });

  test('a closed ledger is not written', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const ledger = tempLedger(t);
    const gauge = new WorkGauge(ledger);
    gauge.hinted(['a.md']);
    ledger.close();
    assert.doesNotThrow(() => t.mock.timers.tick(1000));
    assert.doesNotThrow(() => gauge.cycleEnded());
  });
});
