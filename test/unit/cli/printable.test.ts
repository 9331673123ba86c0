import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createLogger } from '../../../src/log.js';
import { InputError } from '../../../src/errors.js';
import { oneLine, printable, printableLine, printableLines, quoted } from '../../../src/printable.js';
import { createTerminal } from '../../../src/terminal.js';

// Everything a terminal could obey: C0 but tab and line feed, DEL, C1, bidi marks, embeddings, overrides and isolates, line and paragraph separators.
// eslint-disable-next-line no-control-regex -- raw control characters are what must not be there
const STEERING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const ESC = '\x1b';

/** Text a hostile title, workspace name or service message may hold: sequences that retitle, clear, move, fake a line. */
const HOSTILE = `Notes\x1b]0;pwned\x07\x1b[2J\x1b[1A\r✓ all synced\u202etxt.exe\x9b31m\x00\x7f`;

test('printable escapes every steering character visibly, keeps line breaks and tabs, and changes nothing else', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      const shown = printable(text);
      assert.doesNotMatch(shown, STEERING);
      assert.equal(shown.split('\n').length, text.split('\n').length, 'line breaks stay');
      if (!STEERING.test(text)) assert.equal(shown, text);
      // The escapes are JSON's: text without a backslash of its own comes back from them exactly.
      if (!text.includes('\\')) assert.equal(JSON.parse(`"${shown.replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`), text);
    }),
  );
  assert.equal(printable(HOSTILE), 'Notes\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[1A\\u000d✓ all synced\\u202etxt.exe\\u009b31m\\u0000\\u007f');
});

test('oneLine escapes line breaks and tabs too; quoted cuts long text at a character boundary, with an ellipsis', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.integer({ min: 1, max: 50 }), (text, max) => {
      assert.doesNotMatch(oneLine(text), /[\n\t]/);
      assert.doesNotMatch(oneLine(text), STEERING);
      const cut = quoted(text, max);
      assert.doesNotMatch(cut, /[\n\t]/);
      if ([...text].length <= max) assert.equal(cut, oneLine(text));
      else assert.ok(cut.endsWith('…'));
    }),
  );
  assert.equal(quoted('😀😀😀', 2), '😀😀…');
});

/** A terminal over fake streams; what each stream received. */
function fake(tty: boolean, env: NodeJS.ProcessEnv = {}) {
  const written = { out: '', err: '' };
  const stream = (name: 'out' | 'err') => ({ isTTY: tty, columns: 80, write: (text: string) => ((written[name] += text), true) });
  return { written, terminal: createTerminal(stream('out'), stream('err'), env) };
}

test('printableLine makes any text one line: every control character but tab shown escaped, JSON\'s escapes', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      const shown = printableLine(text);
      assert.doesNotMatch(shown, STEERING);
      assert.ok(!shown.includes('\n'), 'one line');
      assert.equal(shown.split('\t').length, text.split('\t').length, 'tabs stay');
      if (!text.includes('\\')) assert.equal(JSON.parse(`"${shown.replace(/"/g, '\\"').replace(/\t/g, '\\t')}"`), text);
    }),
  );
  assert.equal(printableLines(['a\nb', 'c']), 'a\\u000ab\nc');
});

test("the terminal prints lines: each argument one line, whatever it quotes, and never a raw control character", () => {
  const { written, terminal } = fake(false);
  terminal.out(`↓ a\n✓ FAKE: everything synced ${HOSTILE}`, 'second line\tafter a tab');
  terminal.err(`kbsync: the service said ${HOSTILE} [API_BAD_REQUEST]`);
  terminal.log(`\x1b[33mWARN\x1b[39m: ${HOSTILE}`);
  assert.doesNotMatch(written.out + written.err, STEERING);
  const [first, second, end] = written.out.split('\n');
  assert.ok(first?.startsWith('↓ a\\u000a✓ FAKE: everything synced Notes\\u001b'), first);
  assert.deepEqual([second, end], ['second line\tafter a tab', '']);
  // Not a terminal: no colour at all, so even the logger's colour sequences are shown, not obeyed.
  assert.ok(written.err.includes('\\u001b[33mWARN'));
});

test('a coloured log line keeps its own colour sequences and nothing else', () => {
  const { written, terminal } = fake(true);
  terminal.log(`\x1b[33mWARN\x1b[39m: ${HOSTILE}`);
  assert.ok(written.err.startsWith('\r\x1b[2K\x1b[33mWARN\x1b[39m: Notes\\u001b]0;pwned\\u0007'), JSON.stringify(written.err));
  const afterErase = written.err.slice('\r\x1b[2K'.length).replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
  assert.ok(!afterErase.includes(ESC), JSON.stringify(afterErase));
});

test('log lines made by pino-pretty (a person at a terminal) show hostile values escaped; JSON lines stay valid JSON', () => {
  for (const pretty of [true, false]) {
    const { written, terminal } = fake(true);
    const logger = createLogger({ level: 'debug', pretty, terminal });
    logger.warn({ title: HOSTILE, path: `a\n✓ b.md` }, `a document titled ${HOSTILE} was found in a\n✓ FAKE: everything synced`);
    const text = written.err.replace(/\r\x1b\[2K/g, '').replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    assert.ok(!text.includes(ESC), `${pretty ? 'pretty' : 'JSON'}: ${JSON.stringify(text)}`);
    assert.doesNotMatch(text, STEERING);
    assert.ok(!text.split('\n').some((line) => line.trimStart().startsWith('✓ FAKE')), `no line of its own: ${JSON.stringify(text)}`);
    if (!pretty) {
      const record = JSON.parse(text) as { msg: string; title: string };
      assert.equal(record.title, HOSTILE, 'the JSON line means exactly what was logged');
    }
  }
});

test("an error's lines are its message, its details and its hint: a line break inside a value stays in its line", () => {
  const one = new InputError('FILE_NOT_UTF8', 'a\n✓ FAKE.md is not UTF-8.', { hint: 'Save it as UTF-8.' });
  assert.deepEqual(one.lines, ['a\n✓ FAKE.md is not UTF-8. Save it as UTF-8.']);
  const listed = new InputError('CONFIG_INVALID', 'sync.config.json is not valid:', { details: ['  root: expected a folder path', '  layot: unknown key'], hint: 'Fix the keys above.' });
  assert.deepEqual(listed.lines, ['sync.config.json is not valid:', '  root: expected a folder path', '  layot: unknown key', 'Fix the keys above.']);
  assert.equal(listed.message, listed.lines.join('\n'), 'the message (a log line, JSON) holds the same text');
});
