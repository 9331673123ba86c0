import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random } from '../chaos/random.js';
import { Interleaver } from './interleave.js';
import { World } from './world.js';

// Two machines' runs at once are interleaved call by call in the seed's order, whatever the event loop's timing.
test('model: two machines syncing at once take turns in the order the seed draws, the same every time', async () => {
  const turns = async (): Promise<string[]> => {
    const world = await World.create(1, 2, true);
    try {
      const [a, b] = world.machines as [World['machines'][number], World['machines'][number]];
      await a.write('one.md', '# One\n\nFirst.\n');
      assert.equal((await a.sync()).error, undefined);
      assert.equal((await b.sync()).error, undefined);
      await a.write('one.md', '# One\n\nFirst, edited on A.\n');
      await b.write('two.md', '# Two\n\nMade on B.\n');
      const interleaver = new Interleaver(new Random(7), ['A', 'B']);
      const outcomes = await world.together([a, b].map((machine) => ({ machine, run: (via: string) => machine.sync('two-way', false, via) })), interleaver);
      assert.deepEqual(outcomes.map((outcome) => outcome.error), [undefined, undefined]);
      return interleaver.turns;
    } finally {
      await world.close();
    }
  };
  const first = await turns();
  assert.ok(first.includes('A') && first.includes('B') && first.join('').includes('AB') && first.join('').includes('BA'), `interleaved: ${first.join('')}`);
  assert.deepEqual(await turns(), first);
});

