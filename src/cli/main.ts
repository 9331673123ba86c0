import { runCommandLine } from './command-line.js';
import { processInvocation } from '../invocation.js';

/** The one place kbsync ends its process at once; everything else returns (with an exit code) or throws. */
function exit(code: number): never {
  process.exit(code);
}

// `kbsync status | head` closes the pipe early: that is the reader's choice, not an error to crash on.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit(Number(process.exitCode ?? 0));
    throw error;
  });
}

// The bundle is a script (no top-level await); runCommandLine() settles every error itself.
void runCommandLine(process.argv, processInvocation, exit).then((code) => {
  process.exitCode = code;
});
