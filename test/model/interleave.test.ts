import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random } from '../chaos/random.js';
import { isFirstBodyOfNew, isStateWrite, recordPublish } from './holds.js';
import { Interleaver, isBodyWrite, overwrittenUnread, type Hold, type Turn } from './interleave.js';
import { World } from './world.js';

type Machine = World['machines'][number];

/** Two machines that synced one.md, which A has edited since, while B made two.md: where each test's runs start. */
async function editedOnBoth(keyed: boolean): Promise<{ world: World; a: Machine; b: Machine }> {
  const world = await World.create(1, 2, keyed);
  try {
    const [a, b] = world.machines as [Machine, Machine];
    await a.write('one.md', '# One\n\nFirst.\n');
    assert.equal((await a.sync()).error, undefined);
    assert.equal((await b.sync()).error, undefined);
    await a.write('one.md', '# One\n\nFirst, edited on A.\n');
    await b.write('two.md', '# Two\n\nMade on B.\n');
    return { world, a, b };
  } catch (error) {
    await world.close();
    throw error;
  }
}

// Two machines' runs at once are interleaved call by call in the seed's order, whatever the event loop's timing.
test('model: two machines syncing at once take turns in the order the seed draws, the same every time', async () => {
  const turns = async (): Promise<string[]> => {
    const { world, a, b } = await editedOnBoth(true);
    try {
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


// What happens between the runs' calls (a colleague's save, a minute passing) happens between the same two calls
// every time, drawn from a stream of its own: the seed's turns are the same with it as without.
test("model: what happens between two runs' calls comes between the same calls every time", async () => {
  const interleave = async (meanwhile: boolean): Promise<{ turns: string[]; between: number[] }> => {
    const world = await World.create(1, 2, false);
    try {
      const [a, b] = world.machines as [World['machines'][number], World['machines'][number]];
      await a.write('one.md', '# One\n\nFirst.\n');
      await a.write('two.md', '# Two\n\nSecond.\n');
      assert.equal((await a.sync()).error, undefined);
      assert.equal((await b.sync()).error, undefined);
      await a.write('one.md', '# One\n\nFirst, edited on A.\n');
      await b.write('two.md', '# Two\n\nSecond, edited on B.\n');
      const between: number[] = [];
      const act = (): Promise<void> => {
        between.push(interleaver.calls.length);
        world.tick(1);
        return Promise.resolve();
      };
      const interleaver: Interleaver = new Interleaver(new Random(7), ['A', 'B'], meanwhile ? { rng: new Random(11), chance: 0.3, act } : undefined);
      const outcomes = await world.together([a, b].map((machine) => ({ machine, run: (via: string) => machine.sync('two-way', false, via) })), interleaver);
      assert.deepEqual(outcomes.map((outcome) => outcome.error), [undefined, undefined]);
      return { turns: interleaver.turns, between };
    } finally {
      await world.close();
    }
  };
  const first = await interleave(true);
  assert.ok(first.between.some((at) => at > 0 && at < first.turns.length), `between two calls: ${first.between.join(', ')} of ${first.turns.length}`);
  assert.deepEqual(await interleave(true), first);
  const plain = await interleave(false);
  assert.deepEqual(plain.between, []);
  assert.deepEqual(plain.turns.slice(0, 3), first.turns.slice(0, 3), 'the turns are drawn as without');
});

// README's stated window, as the model reads it from the calls: a save between a run's look at a document and its write of it.
test("model: a save is in the read-and-write window unless the run that wrote the document read it (its blocks or its node) after the save", () => {
  const call = (name: string, method: string, path: string): Turn => ({ name, method, path });
  const read = (name: string) => call(name, 'GET', '/v1.0/doc/suites/documents/D1/blocks?startIndex=0');
  const write = (name: string) => call(name, 'POST', '/v1.0/doc/suites/documents/D1/overwriteContent');
  const other = call('A', 'GET', '/v2.0/wiki/nodes?parentNodeId=root');
  assert.equal(overwrittenUnread([read('A'), other, write('A')], ['D1'], 1, true), true, 'read before the save, written after it');
  assert.equal(overwrittenUnread([read('A'), read('A'), write('A')], ['D1'], 1, true), false, 'read again after the save: the run saw it');
  assert.equal(overwrittenUnread([read('A'), call('A', 'GET', '/v2.0/wiki/nodes/D1?operatorId=u'), write('A')], ['D1'], 1, true), false, "its time asked after the save: the run saw it (a save inside code shows only there)");
  assert.equal(overwrittenUnread([read('A'), call('A', 'GET', '/v2.0/wiki/nodes/D1?operatorId=u'), write('A')], ['D1'], 1, false), true, 'a save that kept the time the run knew: its look at the node cannot tell it');
  assert.equal(overwrittenUnread([read('A'), read('A'), write('A')], ['D1'], 1, false), false, '... but a read of its blocks after it can');
  assert.equal(overwrittenUnread([other, write('A')], ['D1'], 1, true), true, 'written on a listing before the save, unread since');
  assert.equal(overwrittenUnread([read('A'), read('B'), write('A')], ['D1'], 1, true), true, "another run's read after the save is not the writer's");
  assert.equal(overwrittenUnread([read('A'), write('A')], ['D1'], 2, true), false, 'written before the save');
  assert.equal(overwrittenUnread([read('A'), call('A', 'DELETE', '/v1.0/doc/workspaces/W/docs/N1')], ['D1', 'N1'], 1, true), true, 'a delete by its creation id is a write');
  assert.equal(isBodyWrite(write('A')) && !isBodyWrite(call('A', 'POST', '/v1.0/doc/workspaces/W/docs')) && !isBodyWrite(read('A')), true);
});

// Holds (issue 44): a run's record waits for the other run to end and for what `then` does; a new page's first body
// waits for the other run to end or be held. The order is the same every time.
test("model: a held record goes on after the other machine's run and what happens while it waits; a held first body after the other run", async () => {
  const hold = async (): Promise<{ turns: string[]; stateWriteAt: number; thenAt: number; bodyAt: number; bLast: number }> => {
    const { world, a, b } = await editedOnBoth(false);
    try {
      let thenAt = -1;
      const nodes = () => world.em.admin.dump().nodes;
      const holds: Hold[] = [
        { name: 'A', at: recordPublish(nodes), then: () => Promise.resolve(void (thenAt = interleaver.calls.length)) },
        { name: 'B', at: (request) => isFirstBodyOfNew(request, nodes) },
      ];
      const interleaver: Interleaver = new Interleaver(new Random(3), ['A', 'B'], undefined, holds);
      const outcomes = await world.together([a, b].map((machine) => ({ machine, run: (via: string) => machine.sync('two-way', false, via) })), interleaver);
      assert.deepEqual(outcomes.map((outcome) => outcome.error), [undefined, undefined]);
      assert.ok(holds.every((h) => interleaver.met(h)), 'both runs came to their holds');
      const stateWriteAt = interleaver.calls.findIndex((call) => call.name === 'A' && isStateWrite({ ...call, body: '' }, nodes));
      const bodyAt = interleaver.calls.findIndex((call) => call.name === 'B' && isBodyWrite(call));
      return { turns: interleaver.turns, stateWriteAt, thenAt, bodyAt, bLast: interleaver.calls.findLastIndex((call) => call.name === 'B') };
    } finally {
      await world.close();
    }
  };
  const first = await hold();
  assert.ok(first.bLast < first.thenAt && first.thenAt === first.stateWriteAt, `A's record after B's last call and after \`then\`: ${JSON.stringify(first)}`);
  // B's first body waited until A's run waited at its record: every call of A's before its record came before it.
  assert.ok(first.bodyAt > 0 && first.turns.slice(first.bodyAt, first.stateWriteAt).every((name) => name === 'B'), `A's calls came between B's create and its first body: ${first.turns.join('')}`);
  assert.deepEqual(await hold(), first);
});
