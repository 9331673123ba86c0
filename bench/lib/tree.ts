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
  if (size === 'realistic') return realisticNoteText(path, revision);
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

export type NoteSize = 'full' | 'short' | 'realistic';

/**
 * A note like a real docs page, about 3 KB: headings, paragraphs with inline code, emphasis and links
 * (to the web and to sibling notes), nested lists, a task list, a table, a fenced code block, a quote.
 * Parsing such pages, not 400-byte notes, is what an initial push of a docs folder spends its CPU on.
 */
export function realisticNoteText(path: string, revision = 0): string {
  const title = path.replace(/\.md$/, '').replaceAll('/', ' ');
  const sibling = path.replace(/note-(\d+)\.md$/, (_, n: string) => `note-${String((Number(n) + 1) % 50).padStart(3, '0')}.md`).split('/').pop();
  return [
    `# ${title}`,
    '',
    `This note was written for revision ${revision} and talks about ${path}. It explains how the **${title}** component`,
    'fits into the system, which `options` it takes, and where to look next: see the [overview](https://example.com/docs/overview)',
    `and the [next note](./${sibling}) for the details that did not fit here.`,
    '',
    '## Installation',
    '',
    '1. Install the package with your package manager of choice.',
    '2. Add the configuration file next to your project root:',
    '   - `config.json` for the defaults;',
    '   - `config.local.json` for the settings of this machine only.',
    '3. Run the command once to check that everything is in place.',
    '',
    '```ts',
    "import { connect } from './client.js';",
    '',
    'const client = await connect({ retries: 3, timeoutMs: 2_000 });',
    'for (const item of await client.list()) {',
    "  console.log(item.id, item.name ?? '(unnamed)');",
    '}',
    '```',
    '',
    '## Options',
    '',
    '| Option | Type | Default | What it does |',
    '| --- | --- | --- | --- |',
    '| `retries` | number | 3 | How often a failed request is tried again. |',
    '| `timeoutMs` | number | 2000 | How long one request may take. |',
    '| `verbose` | boolean | false | Log every request and its answer. |',
    '| `baseUrl` | string | — | Where the service lives; see [hosting](https://example.com/hosting). |',
    '',
    '> **Note:** changing `baseUrl` at run time is not supported; restart the process instead.',
    '',
    '## Checklist',
    '',
    '- [x] the configuration is committed',
    '- [ ] the secrets are in the vault, not in the repository',
    '- [ ] the on-call rota knows about the new component',
    '',
    '## How it works',
    '',
    'The component keeps a small cache in front of the service. A read first looks in the cache; a miss goes to the',
    'service, and the answer is kept for `cacheSeconds`. Writes always go to the service and then *invalidate* the',
    'cached entry, so a reader never sees a value older than its own write. In short:',
    '',
    '- reads:',
    '  - a hit is answered at once;',
    '  - a miss costs one request, and fills the cache;',
    '- writes:',
    '  - always one request;',
    '  - then the entry is dropped, never updated in place.',
    '',
    '```sh',
    'npx component check --config ./config.json',
    'npx component warm --keys users,teams --concurrency 4',
    '```',
    '',
    '## Troubleshooting',
    '',
    'If requests time out, first check the network: *most* timeouts come from a proxy that drops idle',
    'connections. Then raise `timeoutMs` a little, and only then `retries`. A request that fails with a',
    '4xx answer is never retried: fix the request instead. The [error reference](https://example.com/errors#codes)',
    'lists every code with its cause and what to do about it.',
    '',
    '### Known issues',
    '',
    'On some networks the first request after a long pause fails once with `ECONNRESET`: the connection was kept',
    'open by the client but closed by a proxy in between. The request is retried and succeeds; if it happens often,',
    'lower the keep-alive time with `keepAliveMs` (see the table above) so that idle connections are closed first.',
    '',
    `A closing paragraph for revision ${revision}, with a last link to the [changelog](https://example.com/changelog).`,
    '',
  ].join('\n');
}

/** Writes every file of `tree` under `root`, a few hundred at a time. */
export async function writeTree(root: string, tree: Tree): Promise<void> {
  for (const folder of tree.folders) await mkdir(join(root, folder), { recursive: true });
  const batch = 256;
  for (let i = 0; i < tree.files.length; i += batch) {
    await Promise.all(tree.files.slice(i, i + batch).map((file) => writeFile(join(root, file), noteText(file, 0, tree.shape.notes))));
  }
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
