import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

const options = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** CommonMark + GFM with source offsets: the reading the service's importer applies to a pushed body. */
export function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, options);
}
