import { createRequire } from 'node:module';
import type { Root } from 'mdast';
import type * as FromMarkdown from 'mdast-util-from-markdown';
import type * as MdastGfm from 'mdast-util-gfm';
import type * as MicromarkGfm from 'micromark-extension-gfm';

type Parser = (markdown: string) => Root;

/**
 * The parser (micromark, mdast and their GFM extensions) is loaded on the first parse, not at
 * startup: a run that reads no document (a no-op sync of an unchanged folder, --help) would spend a
 * tenth of a second loading it for nothing. Synchronous require of these ES modules is supported from
 * Node 20.19 on (kbsync's minimum).
 */
let parser: Parser | undefined;

function load(): Parser {
  const require = createRequire(import.meta.url);
  const { fromMarkdown } = require('mdast-util-from-markdown') as typeof FromMarkdown;
  const { gfmFromMarkdown } = require('mdast-util-gfm') as typeof MdastGfm;
  const { gfm } = require('micromark-extension-gfm') as typeof MicromarkGfm;
  const options: FromMarkdown.Options = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
  return (markdown) => fromMarkdown(markdown, options);
}

/** CommonMark + GFM with source offsets: the reading the service's importer applies to a pushed body. */
export function parseMarkdown(markdown: string): Root {
  parser ??= load();
  return parser(markdown);
}
