import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createLogger } from '../../../src/log.js';
import { oneLine, printable, quoted } from '../../../src/printable.js';
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

test("the terminal's lines never carry a raw control character, whatever they quote", () => {
  const { written, terminal } = fake(false);
  terminal.out(`↓ ${HOSTILE}\nsecond line\tafter a tab`);
  terminal.err(`kbsync: the service said ${HOSTILE} [API_BAD_REQUEST]`);
  terminal.log(`\x1b[33mWARN\x1b[39m: ${HOSTILE}`);
  assert.doesNotMatch(written.out + written.err, STEERING);
  assert.match(written.out, /\nsecond line\tafter a tab\n$/);
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
    logger.warn({ title: HOSTILE, path: `a\n✓ b.md` }, `a document titled ${HOSTILE} was found`);
    const text = written.err.replace(/\r\x1b\[2K/g, '').replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    assert.ok(!text.includes(ESC), `${pretty ? 'pretty' : 'JSON'}: ${JSON.stringify(text)}`);
    assert.doesNotMatch(text, STEERING);
    if (!pretty) {
      const record = JSON.parse(text) as { msg: string; title: string };
      assert.equal(record.title, HOSTILE, 'the JSON line means exactly what was logged');
    }
  }
});
