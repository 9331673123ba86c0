import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `systemd-analyze` is installed here (Debian's systemd package has it; a container may not). */
export const systemdAnalyzeAvailable = (): boolean => spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * `systemd-analyze --user verify UNIT`: the unit's syntax, every setting known, its executables there. A
 * user manager is not needed: a private runtime folder stands in for the session's.
 */
export function verifyUserUnit(unit: string): { readonly status: number | null; readonly output: string } {
  const runtime = mkdtempSync(join(tmpdir(), 'kbsync-runtime-'));
  try {
    const result = spawnSync('systemd-analyze', ['--user', 'verify', unit], { encoding: 'utf8', env: { ...process.env, XDG_RUNTIME_DIR: runtime } });
    return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
  } finally {
    rmSync(runtime, { recursive: true, force: true });
  }
}
