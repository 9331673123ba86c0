import type { Block } from '../../model/blocks.js';
import { contentOfBlock, outline, sameContent, toPushMarkdown } from '../../markdown/index.js';
import { linksToUrls, type UrlOfPath } from '../links.js';

/**
 * Exactly the Markdown an overwrite sends for a file's body: push-normalised, and with `urlOf`, relative
 * links to synced files as document URLs. The run, `diff` and every preview compute it here.
 */
export function pushMarkdown(body: string, path: string, urlOf: UrlOfPath | undefined): string {
  const normalised = toPushMarkdown(body);
  return urlOf ? linksToUrls(normalised, path, urlOf) : normalised;
}

/** The outline kbsync expects the service to make of `markdown`, compared block by block with what it holds. */
export function agrees(markdown: string, blocks: readonly Block[]): boolean {
  const expected = outline(markdown);
  return expected.length === blocks.length && expected.every((node, i) => sameContent(node, contentOfBlock(blocks[i] as Block)));
}
