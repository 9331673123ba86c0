// Loaded into each test file's process when KBSYNC_TEST_TIMES names a file (node scripts/run-tests.mjs
// passes it on): at exit, appends the file's wall time and CPU time, its own plus that of every child it
// waited for (CLI runs, daemons), as a tab-separated line. CPU time is the figure to compare on a machine
// shared with other work; wall time there depends on the neighbours. Linux only (/proc).
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const out = process.env.KBSYNC_TEST_TIMES;
const started = Date.now() - performance.now();
if (out) {
  process.on('exit', () => {
    // Fields after the command name: utime, stime, cutime, cstime are the 12th to 15th, in clock ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
    const file = relative(process.cwd(), process.argv[1] ?? '?');
    appendFileSync(out, `${file}\t${((Date.now() - started) / 1000).toFixed(1)}\t${(ticks / 100).toFixed(1)}\n`);
  });
}
