import { posix } from 'node:path';
import { visit } from 'unist-util-visit';
import { parseMarkdown } from '../markdown/parse.js';

/** Finds the web URL of the synced document at a relative path, if there is one. */
export type UrlOfPath = (path: string) => string | undefined;

/**
 * Relative links between synced files mean nothing in the knowledge base, so on push they become
 * the target document's URL. Only the URL text is replaced, by source offsets, so every other byte
 * of the file stays as written; on pull the local source of unchanged blocks keeps the relative link.
 */
export function linksToUrls(body: string, fromPath: string, urlOf: UrlOfPath): string {
  const edits: { start: number; end: number; url: string }[] = [];
  // The same reading as everywhere else (CommonMark + GFM, loaded on first use).
  visit(parseMarkdown(body), (node) => {
    if (node.type !== 'link' && node.type !== 'definition') return;
    const target = resolveTarget(node.url, fromPath);
    const url = target && urlOf(target.path);
    if (!url || !node.position) return;
    const start = node.position.start.offset ?? 0;
    const source = body.slice(start, node.position.end.offset);
    // The URL appears verbatim in the node's source; replace its last occurrence (the link text comes first).
    const at = source.lastIndexOf(node.url);
    if (at < 0) return;
    edits.push({ start: start + at, end: start + at + node.url.length, url: url + target.hash });
  });
  let out = body;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.url + out.slice(edit.end);
  return out;
}

function resolveTarget(url: string, fromPath: string): { path: string; hash: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('/') || url.startsWith('#')) return undefined;
  const [pathPart = '', ...rest] = url.split('#');
  if (!/\.md$/i.test(pathPart)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    return undefined;
  }
  const path = posix.normalize(posix.join(posix.dirname(fromPath), decoded));
  if (path.startsWith('../')) return undefined;
  return { path, hash: rest.length > 0 ? `#${rest.join('#')}` : '' };
}
