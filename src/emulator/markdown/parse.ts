import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import type { Root } from 'mdast';

const processor = unified().use(remarkParse).use(remarkGfm);

/** CommonMark + GFM, as the service's importer reads it; front matter is nothing special to the service. */
export function parseMarkdown(markdown: string): Root {
  return processor.parse(markdown);
}
