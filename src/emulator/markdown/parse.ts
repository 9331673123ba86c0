import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import type { Root } from 'mdast';
import { TextKeyed } from '../../text-keyed.js';

const processor = unified().use(remarkParse).use(remarkGfm);

/** Parses run and parses answered from the recent trees (the tests count them). */
export const emulatorParseCounts = { parsed: 0, reused: 0 };

/**
 * The trees of the texts parsed last, by text: the same body is read again when it is rendered as HTML, when a
 * write sends the text the service already holds, and by a test's web editor (test/model/mutate.ts) about to
 * edit the document it just stored. Bounded as kbsync's own recent trees are (src/markdown/parse.ts: each tree
 * charged ~1 KB besides its text, ~8 MB at most).
 */
const recent = new TextKeyed<Root>(256 * 1024, 1024);

/**
 * CommonMark + GFM, as the service's importer reads it; front matter is nothing special to the service. The tree
 * may be shared with other callers that parsed the same text: read it, never change it.
 */
export function parseMarkdown(markdown: string): Root {
  const reused = recent.get(markdown);
  if (reused) {
    emulatorParseCounts.reused += 1;
    return reused;
  }
  emulatorParseCounts.parsed += 1;
  const tree = processor.parse(markdown);
  recent.set(markdown, tree);
  return tree;
}
