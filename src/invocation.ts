import { AsyncLocalStorage } from 'node:async_hooks';

/** A stream kbsync writes lines to: the process's stdout or stderr, or a test's buffer. */
export type OutputStream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
/** Where prompts and `resolve`'s answers come from. */
export type InputStream = NodeJS.ReadableStream & { readonly isTTY?: boolean };

/**
 * What one `kbsync` command runs with: its environment, working folder, standard streams and exit code.
 * In a `kbsync` process these are the process's own (processInvocation). The test suite runs most commands
 * in its own process instead (a process start costs more CPU than the command: issue 29), each with its own
 * invocation, so that code reads these through invocation() and never from `process` directly: a command
 * run in a test sees exactly the environment and folder a child process would have been given.
 */
export type Invocation = {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdin: InputStream;
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Set by a command that ends without throwing but not with success; what the entry exits with. */
  exitCode: number | undefined;
};

/** The process's own: every read and write goes straight to `process`, so a `kbsync` process behaves as it always did. */
export const processInvocation: Invocation = {
  get env() {
    return process.env;
  },
  get cwd() {
    return process.cwd();
  },
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get exitCode() {
    const code = process.exitCode;
    return code === undefined || code === null ? undefined : Number(code);
  },
  set exitCode(code) {
    process.exitCode = code;
  },
};

// Follows the command through every await, timer and callback it starts, so two commands run side by side
// in one process (two workstations racing, in a test) each see their own.
const current = new AsyncLocalStorage<Invocation>();

/** The invocation the calling code runs for. */
export const invocation = (): Invocation => current.getStore() ?? processInvocation;

/** Runs `fn` (a whole command) as `given`. */
export const withInvocation = <T>(given: Invocation, fn: () => Promise<T>): Promise<T> => current.run(given, fn);
