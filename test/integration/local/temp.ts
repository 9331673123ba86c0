import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** A fresh temp folder, removed after the test. */
export async function tempDir(t: TestContext, prefix = 'kbsync-local-'): Promise<string> {
  const dir = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), prefix)));
  t.after(async () => {
    await fsp.chmod(dir, 0o700).catch(() => undefined);
    await fsp.rm(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes files given as { 'relative/path': content }, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, ...rel.split('/'));
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.writeFile(abs, content);
  }
}

export const isRoot = process.getuid?.() === 0;
