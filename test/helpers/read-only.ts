import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';

/**
 * Makes a file or folder unwritable for this process, the way a user's mistake would: by its mode for an
 * ordinary user, by the immutable attribute for root (whom modes do not stop). Returns the undo, or
 * undefined when this machine offers neither (then the caller skips).
 */
export function makeUnwritable(path: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(path, 0o555);
    return () => chmodSync(path, 0o755);
  }
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
    return () => execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
}
