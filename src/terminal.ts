import { invocation, type Invocation } from './invocation.js';
import { oneLine, printable, printableLine } from './printable.js';

/**
 * Every line kbsync prints for a person goes through here: results on stdout, log lines and warnings on
 * stderr, and one transient status line (a progress bar, "listing the knowledge base…") at the bottom of
 * a terminal. It prints lines, not text: each argument of `out` and `err` is one line, and what it holds
 * from outside (a file name, a title, the service's message) can neither steer the terminal nor start a
 * line of its own: every control character but tab, line breaks included, is written as a visible escape
 * (printable.ts). Several lines are several arguments.
 * Before any line is written the status line is erased, and it is drawn again after, so a warning in the
 * middle of a run is never overwritten and no fragment of the bar is left on screen.
 * The status line uses only carriage return and erase-line: no saved cursor positions, which go wrong
 * as soon as the screen scrolls.
 */
export type Terminal = {
  /** Lines on stdout, one per argument. */
  out(...lines: readonly string[]): void;
  /** Lines on stderr, one per argument. */
  err(...lines: readonly string[]): void;
  /**
   * One log line on stderr, as the logger made it: its values already made printable, coloured by the
   * logger when colour is allowed. Colour (SGR) sequences pass; any other control character is escaped.
   */
  log(line: string): void;
  /** Shows (or, with undefined, removes) the status line; a no-op unless stderr is a terminal. */
  status(text: string | undefined): void;
  /** Can a status line be drawn (stderr is a terminal)? */
  readonly live: boolean;
  /** May output be coloured: a terminal, and neither NO_COLOR nor --no-color. */
  readonly color: boolean;
};

type Stream = Pick<NodeJS.WriteStream, 'write'> & { readonly isTTY?: boolean; readonly columns?: number };

const ERASE_LINE = '\r\x1b[2K';
/** A colour or style sequence (SGR): the only escape a coloured log line may carry. */
// eslint-disable-next-line no-control-regex -- the escape character is what this finds
const SGR = /(\x1b\[[0-9;]*m)/;
/** Redrawing a status line more often than this only costs time: a person cannot read it. */
const REDRAW_MS = 50;

/** NO_COLOR (https://no-color.org): any non-empty value turns colour off; `--no-color` sets it. */
const colorAllowed = (env: NodeJS.ProcessEnv, stream: Stream): boolean => Boolean(stream.isTTY) && !env['NO_COLOR'];

export function createTerminal(stdout: Stream, stderr: Stream, env: NodeJS.ProcessEnv = invocation().env): Terminal {
  const live = Boolean(stderr.isTTY);
  let wanted: string | undefined;
  let drawn = false;
  let lastDraw = 0;
  let timer: NodeJS.Timeout | undefined;

  // A status line longer than the terminal wraps, and erase-line then clears only its last row.
  const fit = (text: string): string => {
    const width = Math.max(10, (stderr.columns || 80) - 1); // a pseudo-terminal without a size says 0
    return text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  // Also when no status line is drawn: the terminal itself may have echoed something there (the `^C` of a Ctrl+C).
  const erase = (): void => {
    if (live) stderr.write(ERASE_LINE);
    drawn = false;
  };
  const draw = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (wanted === undefined) return erase();
    stderr.write(`${ERASE_LINE}${fit(oneLine(wanted))}`);
    drawn = true;
    lastDraw = Date.now();
  };
  const write = (stream: Stream, text: string): void => {
    erase();
    stream.write(text);
    if (wanted !== undefined) draw();
  };
  const lines = (stream: Stream, texts: readonly string[]): void => write(stream, texts.map((text) => `${printableLine(text)}\n`).join(''));
  // Split at the colour sequences (kept, as the split's odd parts) and escape the rest.
  const coloured = (text: string): string => text.split(SGR).map((part, i) => (i % 2 === 1 ? part : printable(part))).join('');
  // A status line left behind would mix with the shell's prompt.
  if (live) process.once('exit', () => drawn && erase());

  return {
    live,
    get color() {
      return colorAllowed(env, stderr);
    },
    out: (...texts) => lines(stdout, texts),
    err: (...texts) => lines(stderr, texts),
    // Laid out by the logger from values it made one line (log.ts): its own line breaks stay.
    log: (text) => {
      const shown = colorAllowed(env, stderr) ? coloured(text) : printable(text);
      write(stderr, shown.endsWith('\n') ? shown : `${shown}\n`);
    },
    status(text) {
      if (!live) return;
      wanted = text;
      if (text === undefined || Date.now() - lastDraw >= REDRAW_MS) return draw();
      timer ??= setTimeout(draw, REDRAW_MS).unref();
    },
  };
}

const terminals = new WeakMap<Invocation, Terminal>();
/** The terminal of the invocation the caller runs for: one per command, made at its first line. */
const current = (): Terminal => {
  const now = invocation();
  let made = terminals.get(now);
  if (!made) terminals.set(now, (made = createTerminal(now.stdout, now.stderr, now.env)));
  return made;
};

/**
 * The command's terminal (the process's, in a `kbsync` process): the CLI's output and the logger share it,
 * so their lines never overwrite each other.
 */
export const terminal: Terminal = {
  get live() {
    return current().live;
  },
  get color() {
    return current().color;
  },
  out: (...lines) => current().out(...lines),
  err: (...lines) => current().err(...lines),
  log: (text) => current().log(text),
  status: (text) => current().status(text),
};
