// The Markdown side of kbsync: front matter, the block outline a body should read back as, Markdown for
// blocks, and the three-way block merge that makes two-way sync safe.
export { parseDocument, serializeDocument, type ParsedDocument } from './frontmatter.js';
export type { FrontMatter } from './frontmatter.js';
export { outline } from './outline.js';
export type { OutlineNode } from './outline.js';
export { blocksToMarkdown, hasPlaceholders, PLACEHOLDER_PREFIX, placeholdersBeyond } from './to-markdown.js';
export { contentKey, contentOfBlock, normaliseForCompare, sameContent, toPushMarkdown } from './normalise.js';
export { normaliseText } from './text.js';
export { align } from './align.js';
export type { Alignment } from './align.js';
export { merge3 } from './merge.js';
export type { Conflict, MergeResult } from './merge.js';
export { appendOnlyChange } from './append.js';
export type { AppendChange } from './append.js';
export { blocksHash, contentHash } from './hash.js';
export { isPrediction, predictedBlocks } from './predict.js';
export { headingTitle } from './heading-title.js';
export { sameMarkdown } from './same-markdown.js';
