import type { Nodes, RootContent } from 'mdast';
import type { CorpusDoc } from '../model/corpus.js';
import { parse } from '../model/mutate.js';

/**
 * The two kinds of page the soak's rule tells apart. A *prose* page is one whose every block a read of the
 * service shows (headings, paragraphs, list items, quotes): a colleague's edit of it is known exactly, but for
 * inline formatting. An *opaque* page holds something reads hide (code blocks, tables, images, HTML and other
 * blocks the service reads as `unknown`): a hidden change can ride along with a visible one in the same save.
 */

const FRONT_MATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

/** Nodes a read of the service does not show, wherever they stand. */
const HIDDEN: ReadonlySet<string> = new Set(['code', 'table', 'html', 'image', 'imageReference', 'definition', 'footnoteDefinition', 'thematicBreak', 'math', 'yaml']);
/** Top-level blocks the service reads as themselves (with their text). */
const SHOWN_BLOCKS: ReadonlySet<string> = new Set(['heading', 'paragraph', 'list', 'blockquote']);
/** Inline nodes dropped from a kept block to make it prose: images (badges) and inline HTML. */
const INLINE_HIDDEN: ReadonlySet<string> = new Set(['image', 'imageReference', 'html']);

const descendants = (node: Nodes): Nodes[] => ('children' in node ? (node.children as Nodes[]).flatMap((child) => [child, ...descendants(child)]) : []);

/** Does the page hold anything a read of the service hides? */
export function isOpaque(markdown: string): boolean {
  const body = markdown.slice(FRONT_MATTER.exec(markdown)?.[0].length ?? 0);
  const tree = parse(body);
  return tree.children.some((block) => !SHOWN_BLOCKS.has(block.type) || onlyImages(block)) || descendants(tree).some((node) => HIDDEN.has(node.type));
}

/** A paragraph of nothing but images is an image block to the service. */
const onlyImages = (block: RootContent): boolean =>
  block.type === 'paragraph' && block.children.every((child) => INLINE_HIDDEN.has(child.type) || (child.type === 'text' && child.value.trim() === '') || child.type === 'break');

/**
 * A corpus document made a prose page: the blocks a read shows (headings, paragraphs, lists and quotes with no
 * code or table inside), each without its images and inline HTML (badge links go with their image); the rest
 * (code, tables, HTML, rules, link definitions) is left out. Real writing, on a page the service shows whole.
 */
export function proseVariant(doc: CorpusDoc): CorpusDoc {
  const head = FRONT_MATTER.exec(doc.text)?.[0] ?? '';
  const body = doc.text.slice(head.length);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const blocks = parse(body)
    .children.filter((block) => SHOWN_BLOCKS.has(block.type) && !descendants(block).some((node) => HIDDEN.has(node.type) && !INLINE_HIDDEN.has(node.type)))
    .map((block) => withoutInlineHidden(body, block))
    .filter((text) => /\p{L}/u.test(text) && !isOpaque(text));
  return { ...doc, text: `${head}${blocks.join(eol + eol)}${eol}` };
}

/** A block's source with its images and inline HTML cut out (a link around nothing but an image goes too). */
function withoutInlineHidden(body: string, block: RootContent): string {
  const from = block.position?.start.offset ?? 0;
  const spans = descendants(block)
    .filter((node) => INLINE_HIDDEN.has(node.type) || (node.type === 'link' && node.children.length > 0 && node.children.every((child) => INLINE_HIDDEN.has(child.type))))
    .map((node) => [(node.position?.start.offset ?? 0) - from, (node.position?.end.offset ?? 0) - from] as const);
  // The outermost spans only (an image inside a cut link goes with it), from the end so offsets stay true.
  const cuts = spans.filter(([s, e]) => !spans.some(([s2, e2]) => s2 <= s && e <= e2 && (s2 !== s || e2 !== e))).sort((a, b) => b[0] - a[0]);
  let text = body.slice(from, block.position?.end.offset ?? from);
  for (const [start, end] of cuts) text = text.slice(0, start) + text.slice(end);
  return text;
}
