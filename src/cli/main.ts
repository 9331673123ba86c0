import { runCommandLine } from './command-line.js';
import { processInvocation } from '../invocation.js';
import { outputClosed } from '../output-closed.js';

/** The one place kbsync ends its process at once; everything else returns (with an exit code) or throws. */
function exit(code: number): never {
  process.exit(code);
}

// `kbsync status | head` closes the pipe early: that is the reader's choice, not an error to crash on. The
// daemon outlives its output, so it takes the news itself (output-closed.ts); its writes after the first fail too.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    if (!outputClosed()) exit(Number(process.exitCode ?? 0));
  });
}

// The bundle is a script (no top-level await); runCommandLine() settles every error itself.
void runCommandLine(process.argv, processInvocation, exit).then((code) => {
  process.exitCode = code;
});
