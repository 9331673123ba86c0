import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

export async function tempDir(t: TestContext): Promise<string> {
  const dir = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'kbsync-config-')));
  t.after(() => fsp.rm(dir, { recursive: true, force: true }));
  return dir;
}

export const minimal = {
  workspaceId: 'ws-1',
  service: { baseUrl: 'http://127.0.0.1:8787', operatorId: 'union-1' },
};

export async function writeConfig(dir: string, content: unknown, name = 'sync.config.json', mode = 0o600): Promise<string> {
  const file = path.join(dir, name);
  await fsp.writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2), { mode });
  await fsp.chmod(file, mode);
  return file;
}
