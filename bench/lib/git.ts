import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runChecked } from './proc.js';

const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/**
 * Commits the tree at `root` in a git repository right there, the way a docs-as-code user has it
 * (kbsync never syncs .git). Its state folder is excluded, so `git status` sees exactly the notes.
 */
export async function commitTree(root: string, stateDir: string): Promise<void> {
  await runChecked('git', ['init', '-q', root], { env: GIT_ENV });
  await appendFile(join(root, '.git', 'info', 'exclude'), `${stateDir}/\n`);
  await runChecked('git', ['add', '-A'], { cwd: root, env: GIT_ENV });
  await runChecked('git', ['commit', '-q', '-m', 'notes'], { cwd: root, env: GIT_ENV });
}

/** `git status --porcelain` as a user runs it; throws if the tree is not clean (the comparison would be off). */
export async function gitStatusMs(root: string): Promise<number> {
  const done = await runChecked('git', ['status', '--porcelain'], { cwd: root, env: GIT_ENV });
  if (done.stdout.trim() !== '') throw new Error(`git status found changes in the benchmark tree:\n${done.stdout.slice(0, 500)}`);
  return done.ms;
}
