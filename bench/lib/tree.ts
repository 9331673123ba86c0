import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A tree of Markdown notes in nested folders: `top` folders × `sub` folders × `perFolder` files.
 * Every file has a distinct first heading (its title) and a few kinds of blocks.
 */
export type TreeShape = { readonly top: number; readonly sub: number; readonly perFolder: number; readonly notes?: NoteSize };

export type Tree = {
  readonly shape: TreeShape;
  /** Relative POSIX paths of every file. */
  readonly files: readonly string[];
  /** Relative POSIX paths of every folder, parents first. */
  readonly folders: readonly string[];
};

export const fileCount = (shape: TreeShape): number => shape.top * shape.sub * shape.perFolder;

export function planTree(shape: TreeShape): Tree {
  const folders: string[] = [];
  const files: string[] = [];
  for (let t = 0; t < shape.top; t++) {
    const top = `area-${pad(t, 2)}`;
    folders.push(top);
    for (let s = 0; s < shape.sub; s++) {
      const sub = `${top}/topic-${pad(s, 2)}`;
      folders.push(sub);
      for (let f = 0; f < shape.perFolder; f++) files.push(`${sub}/note-${pad(f, 3)}.md`);
    }
  }
  return { shape, files, folders };
}

/**
 * The fewest listNodes calls that can see the whole remote tree: one page of up to 50 per folder
 * (the root included), an empty folder still needing one.
 */
export function minListingCalls(shape: TreeShape, pageSize = 50): number {
  const pages = (children: number): number => Math.max(1, Math.ceil(children / pageSize));
  return pages(shape.top) + shape.top * pages(shape.sub) + shape.top * shape.sub * pages(shape.perFolder);
}

/**
 * A note's text. `full`: a heading, paragraphs and a list (about 400 bytes, six blocks), for the
 * trees whose push is measured. `short`: a heading and one paragraph, for the 10,000-note tree,
 * whose rows measure no-op checks, one-file edits and idle cost, and whose build should be quick.
 * Both carry the revision in a sentence the benchmark looks for.
 */
export function noteText(path: string, revision = 0, size: NoteSize = 'full'): string {
  const title = path.replace(/\.md$/, '').replaceAll('/', ' ');
  const lead = `This note was written for revision ${revision} and talks about ${path}.`;
  if (size === 'short') return `# ${title}\n\n${lead}\n`;
  const lines = [
    `# ${title}`,
    '',
    `${lead} It is part of the benchmark tree.`,
    '',
    '## Details',
    '',
    '- the first point, with **bold** text',
    '- the second point, with a [link](https://example.com)',
    '- the third point',
    '',
    `A closing paragraph for revision ${revision}.`,
    '',
  ];
  return lines.join('\n');
}

export type NoteSize = 'full' | 'short';

/** Writes every file of `tree` under `root`, a few hundred at a time. */
export async function writeTree(root: string, tree: Tree): Promise<void> {
  for (const folder of tree.folders) await mkdir(join(root, folder), { recursive: true });
  const batch = 256;
  for (let i = 0; i < tree.files.length; i += batch) {
    await Promise.all(tree.files.slice(i, i + batch).map((file) => writeFile(join(root, file), noteText(file, 0, tree.shape.notes))));
  }
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
