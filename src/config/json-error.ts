/**
 * Finds where a JSON text stops being valid, for an error a person can act on ("line 4, column 3:
 * trailing comma"). Node's own JSON.parse message only sometimes carries a position.
 * Runs only after JSON.parse has failed.
 */
type JsonErrorLocation = { readonly line: number; readonly column: number; readonly problem: string };

class Fail extends Error {
  constructor(readonly offset: number, readonly problem: string) {
    super(problem);
  }
}

export function locateJsonError(text: string): JsonErrorLocation {
  let at = 0;
  const end = (): never => {
    throw new Fail(text.length, 'the file ends too early (is it half-written?)');
  };
  const unexpected = (): never => {
    const char = text[at];
    if (char === undefined) return end();
    if (char === '/' && (text[at + 1] === '/' || text[at + 1] === '*')) throw new Fail(at, 'comments are not allowed in JSON');
    throw new Fail(at, `unexpected ${JSON.stringify(char)}`);
  };
  const skipSpace = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at += 1;
  };
  const expect = (char: string): void => {
    skipSpace();
    if (text[at] !== char) unexpected();
    at += 1;
  };
  const string = (): void => {
    at += 1; // opening quote
    for (;;) {
      const char = text[at];
      if (char === undefined) end();
      if (char === '"') return void (at += 1);
      if (char !== undefined && char < ' ') throw new Fail(at, 'a line break or control character inside a string (escape it, e.g. \\n)');
      at += char === '\\' ? 2 : 1;
    }
  };
  const literal = (): void => {
    const match = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 64));
    if (!match) unexpected();
    at += match?.[0].length ?? 0;
  };
  const list = (close: string, item: () => void): void => {
    at += 1;
    skipSpace();
    if (text[at] === close) return void (at += 1);
    for (;;) {
      item();
      skipSpace();
      if (text[at] === close) return void (at += 1);
      if (text[at] !== ',') unexpected();
      const comma = at;
      at += 1;
      skipSpace();
      if (text[at] === close) throw new Fail(comma, `trailing comma before "${close}"`);
    }
  };
  const value = (): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') {
      list('}', () => {
        skipSpace();
        if (text[at] !== '"') unexpected();
        string();
        expect(':');
        value();
      });
    } else if (char === '[') list(']', value);
    else if (char === '"') string();
    else literal();
  };
  try {
    value();
    skipSpace();
    if (at < text.length) throw new Fail(at, `unexpected ${JSON.stringify(text[at])} after the end of the JSON value`);
    return { ...position(text, text.length), problem: 'invalid JSON' };
  } catch (error) {
    if (!(error instanceof Fail)) throw error;
    return { ...position(text, error.offset), problem: error.problem };
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
