import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The bare minimum a no-op check must do: list every folder and stat every Markdown file (skipping
 * dot-folders, as kbsync skips .git and its state folder). Two plain implementations, a synchronous
 * one and a parallel asynchronous one; the faster of them in the same run is the baseline. The same
 * source runs as a `node -e` process (what a user would time) and, imported, in this process.
 */
const SOURCE = `
import { readdirSync, lstatSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
export function walkSync(root) {
  let files = 0;
  const dirs = [root];
  while (dirs.length > 0) {
    const dir = dirs.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) dirs.push(abs);
      else if (entry.name.endsWith('.md')) { lstatSync(abs); files++; }
    }
  }
  return files;
}
export async function walkAsync(root) {
  let files = 0;
  async function visit(dir) {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    const work = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) work.push(visit(abs));
      else if (entry.name.endsWith('.md')) work.push(fsp.lstat(abs).then(() => { files++; }));
    }
    await Promise.all(work);
  }
  await visit(root);
  return files;
}
`;

export type Walker = 'sync' | 'async';
export type Walk = { readonly walkSync: (root: string) => number; readonly walkAsync: (root: string) => Promise<number> };

/** Writes the walker module into `dir`; returns it imported, and the `node -e` arguments that run it on `root`. */
export async function prepareWalk(dir: string): Promise<{ module: Walk; nodeArgs: (walker: Walker, root: string) => string[] }> {
  const file = join(dir, 'walk.mjs');
  await writeFile(file, SOURCE);
  const module = (await import(pathToFileURL(file).href)) as Walk;
  const nodeArgs = (walker: Walker, root: string): string[] => [
    '--input-type=module',
    '-e',
    `${SOURCE}\nconst n = ${walker === 'sync' ? 'walkSync' : 'await walkAsync'}(${JSON.stringify(root)});\nconsole.log(n);`,
  ];
  return { module, nodeArgs };
}
