import { readFileSync } from 'node:fs';

/** A pid reused by an unrelated process started this long after the lock was written is not our holder. */
const PID_REUSE_SLACK_MS = 60_000;
/** USER_HZ: the unit of /proc/<pid>/stat times; 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Whether the process that wrote a lock at `lockedAt` is still running on this host.
 * When unsure the answer is "alive": wrongly taking over a live lock is far worse than asking the user.
 */
export function isProcessAlive(pid: number, lockedAt?: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  if (lockedAt === undefined) return true;
  const startedAt = linuxProcessStartMs(pid);
  return startedAt === undefined || startedAt <= lockedAt + PID_REUSE_SLACK_MS;
}

/** Start time of a process in ms since epoch on Linux, undefined elsewhere or when unreadable. */
function linuxProcessStartMs(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]); // field 22 of the whole line
    const bootLine = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!bootLine?.[1] || !Number.isFinite(startTicks)) return undefined;
    return Number(bootLine[1]) * 1000 + (startTicks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return undefined;
  }
}
