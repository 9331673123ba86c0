import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTerminal } from '../../../src/terminal.js';

const ERASE = '\r\x1b[2K';

/** A terminal over two fake streams writing into one transcript, as a screen receives them: [which stream, text]. */
function fake(tty: boolean, columns = 80, env: NodeJS.ProcessEnv = {}) {
  const transcript: [string, string][] = [];
  const stream = (name: string) => ({ isTTY: tty, columns, write: (text: string) => transcript.push([name, text]) > 0 });
  return { transcript, terminal: createTerminal(stream('out'), stream('err'), env) };
}

test('a line printed under a status line: the status is erased first and drawn again after, on its own stream', () => {
  const { transcript, terminal } = fake(true);
  terminal.status('syncing 1/3');
  terminal.out('↑ a.md');
  terminal.err('[12:00:00] WARN: something');
  terminal.status(undefined);
  terminal.out('Synced: 3 pushed.');
  assert.deepEqual(transcript, [
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['out', '↑ a.md\n'],
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['err', '[12:00:00] WARN: something\n'],
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['err', ERASE],
    ['out', 'Synced: 3 pushed.\n'],
  ]);
});

test('a status line is cut to the terminal width (a wrapped one could not be erased), and a width of 0 means 80', () => {
  const narrow = fake(true, 20);
  narrow.terminal.status('listing the knowledge base: 12 of ~40 folders');
  assert.deepEqual(narrow.transcript, [['err', `${ERASE}listing the knowle…`]], 'one column short of the width: no wrap');
  const unsized = fake(true, 0);
  unsized.terminal.status('x'.repeat(100));
  assert.equal(unsized.transcript[0]?.[1].length, ERASE.length + 79);
});

test('not a terminal: no status line and no escape sequence at all, only the lines', () => {
  const { transcript, terminal } = fake(false);
  for (const step of [() => terminal.status('syncing 1/3'), () => terminal.out('↑ a.md'), () => terminal.err('warning')]) step();
  assert.deepEqual(transcript, [
    ['out', '↑ a.md\n'],
    ['err', 'warning\n'],
  ]);
  assert.equal(terminal.live, false);
  assert.equal(terminal.color, false);
});

test('colour only on a terminal, and never with NO_COLOR set', () => {
  assert.equal(fake(true).terminal.color, true);
  assert.equal(fake(true, 80, { NO_COLOR: '1' }).terminal.color, false);
});
