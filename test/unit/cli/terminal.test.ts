import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTerminal } from '../../../src/terminal.js';

const ERASE = '\r\x1b[2K';

/** Two fake streams writing into one transcript, as a terminal shows them: [which stream, text]. */
function streams(tty: boolean, columns = 80) {
  const transcript: [string, string][] = [];
  const stream = (name: string) => ({ isTTY: tty, columns, write: (text: string) => transcript.push([name, text]) > 0 });
  return { transcript, stdout: stream('out'), stderr: stream('err') };
}

test('a line printed under a status line: the status is erased first and drawn again after, on its own stream', () => {
  const { transcript, stdout, stderr } = streams(true);
  const terminal = createTerminal(stdout, stderr, {});
  terminal.status('syncing 1/3');
  terminal.out('↑ a.md');
  terminal.err('[12:00:00] WARN: something\n');
  terminal.status(undefined);
  terminal.out('Synced: 3 pushed.');
  assert.deepEqual(transcript, [
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['out', '↑ a.md\n'],
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['err', '[12:00:00] WARN: something\n'], // its own newline, not a second one
    ['err', `${ERASE}syncing 1/3`],
    ['err', ERASE],
    ['err', ERASE],
    ['out', 'Synced: 3 pushed.\n'],
  ]);
});

test('a status line is cut to the terminal width (a wrapped one could not be erased), and a width of 0 means 80', () => {
  const narrow = streams(true, 20);
  createTerminal(narrow.stdout, narrow.stderr, {}).status('listing the knowledge base: 12 of ~40 folders');
  assert.deepEqual(narrow.transcript, [['err', `${ERASE}listing the knowle…`]], 'one column short of the width: no wrap');
  const unsized = streams(true, 0);
  createTerminal(unsized.stdout, unsized.stderr, {}).status('x'.repeat(100));
  assert.equal(unsized.transcript[0]?.[1].length, ERASE.length + 79);
});

test('not a terminal: no status line and no escape sequence at all, only the lines', () => {
  const { transcript, stdout, stderr } = streams(false);
  const terminal = createTerminal(stdout, stderr, {});
  terminal.status('syncing 1/3');
  terminal.out('↑ a.md');
  terminal.err('warning');
  assert.deepEqual(transcript, [
    ['out', '↑ a.md\n'],
    ['err', 'warning\n'],
  ]);
  assert.equal(terminal.live, false);
  assert.equal(terminal.color, false);
});

test('colour only on a terminal, and never with NO_COLOR set', () => {
  const tty = streams(true);
  assert.equal(createTerminal(tty.stdout, tty.stderr, {}).color, true);
  assert.equal(createTerminal(tty.stdout, tty.stderr, { NO_COLOR: '1' }).color, false);
});
