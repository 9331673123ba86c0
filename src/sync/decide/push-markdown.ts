import type { Block } from '../../model/blocks.js';
import { contentOfBlock, outline, PLACEHOLDER_PREFIX, sameContent, toPushMarkdown } from '../../markdown/index.js';
import { linksToUrls, type UrlOfPath } from '../content/links.js';

/**
 * Exactly the Markdown an overwrite sends for a file's body: push-normalised, and with `urlOf`, relative
 * links to synced files as document URLs. The run, `diff` and every preview compute it here.
 */
export function pushMarkdown(body: string, path: string, urlOf: UrlOfPath | undefined): string {
  const normalised = toPushMarkdown(body);
  return urlOf ? linksToUrls(normalised, path, urlOf) : normalised;
}

/**
 * The outline kbsync expects the service to make of `markdown`, compared block by block with what it holds.
 * A kbsync placeholder (a block the service never showed, written into a pulled file) stands for that hidden
 * block: it agrees with a table or an unknown block, so a read-back after an append is not a false alarm.
 */
export function agrees(markdown: string, blocks: readonly Block[]): boolean {
  const expected = outline(markdown);
  return (
    expected.length === blocks.length &&
    expected.every((node, i) => {
      const block = blocks[i] as Block;
      if (sameContent(node, contentOfBlock(block))) return true;
      const placeholder = node.type === 'unknown' && markdown.slice(node.source.start, node.source.end).startsWith(PLACEHOLDER_PREFIX);
      return placeholder && (block.type === 'table' || block.type === 'unknown');
    })
  );
}

/** `agrees` for blocks predicted from a body (markdown/predict.ts) that reads held no placeholder: block by block. */
export const readsAs = (predicted: readonly Block[], blocks: readonly Block[]): boolean =>
  predicted.length === blocks.length && predicted.every((block, i) => sameContent(contentOfBlock(block), contentOfBlock(blocks[i] as Block)));
