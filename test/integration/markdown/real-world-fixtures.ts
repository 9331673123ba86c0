import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type MarkdownFixture = { readonly path: string; readonly text: string };

/** Markdown files that ship inside installed packages, depth-limited (nested node_modules skipped). */
function findMarkdown(dir: string, depth: number): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return depth > 0 && entry.name !== 'node_modules' ? findMarkdown(path, depth - 1) : [];
    return entry.isFile() && /\.md$/i.test(entry.name) ? [path] : [];
  });
}

/**
 * Real-world READMEs and docs found at test time under node_modules, in a deterministic order and
 * spread over the whole sorted list, skipping files over the service's 50,000-character limit.
 */
export function realWorldMarkdown(count: number, root = 'node_modules'): MarkdownFixture[] {
  const all = findMarkdown(root, 4)
    .sort()
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    .filter((fixture) => fixture.text.trim().length > 0 && fixture.text.length <= 49_000);
  if (all.length <= count) return all;
  const step = all.length / count;
  return Array.from({ length: count }, (_, k) => all[Math.floor(k * step)] as MarkdownFixture);
}
