import type { BlockContent, ListItem, RootContent } from 'mdast';
import { textMayBeMissing } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import { factOf } from './parse.js';

/**
 * Whether a read of a body shows all of it but inline formatting: every top-level block is one whose words the
 * service returns (a heading, a paragraph, a list item, a quote of paragraphs), so a change anywhere in it but
 * in formatting (emphasis, a link's address, inline code) shows in a read. Anything else hides content a
 * read cannot show, and where a colleague edits that, nothing in the reading says so:
 * - code blocks, HTML, images, math and footnotes read as `unknown`, tables as their size;
 * - a link reference definition (`[x]: https://…`) is an address and nothing else;
 * - a list item shows only its first paragraph (a second paragraph or a code block in it is hidden), and
 *   never its task box (`[x]`);
 * - a quote shows its text flattened: one of anything but paragraphs (a list, code) hides its structure.
 */
export const readsShowAll = factOf((tree): boolean => tree.children.every(shownWhole));

function shownWhole(node: RootContent): boolean {
  switch (node.type) {
    case 'heading':
      return true;
    case 'paragraph':
      // A paragraph of images alone is an image block to the service (unknown).
      return node.children.some((child) => child.type !== 'image' && child.type !== 'imageReference' && child.type !== 'break' && !(child.type === 'text' && child.value.trim() === ''));
    case 'list':
      return node.children.every(itemShownWhole);
    case 'blockquote':
      return node.children.every((child: BlockContent | RootContent) => child.type === 'paragraph');
    default:
      return false;
  }
}

/** An item shows its first paragraph; nested lists are blocks of their own. */
function itemShownWhole(item: ListItem): boolean {
  if (item.checked !== null && item.checked !== undefined) return false;
  const [first, ...rest] = item.children;
  if (first !== undefined && first.type !== 'paragraph') return false;
  return rest.every((child) => child.type === 'list' && child.children.every(itemShownWhole));
}

/**
 * Whether every block of a reading is one that shows its words: no `unknown` (code, images, what the service
 * does not model), no table, and no list item or quote read without its text (some reads return it empty:
 * real-service-notes), which would hide whatever changed in it.
 */
export const readingShowsAll = (blocks: readonly Block[]): boolean =>
  blocks.every((block) => block.type !== 'unknown' && block.type !== 'table' && !(textMayBeMissing(block.type) && block.text.trim() === ''));
