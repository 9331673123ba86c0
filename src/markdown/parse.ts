import { createRequire } from 'node:module';
import type { Root } from 'mdast';
import type * as FromMarkdown from 'mdast-util-from-markdown';
import type * as MdastGfm from 'mdast-util-gfm';
import type * as MicromarkGfm from 'micromark-extension-gfm';
import { TextKeyed } from '../text-keyed.js';
import { autolinkPositions } from './autolink-positions.js';
import { readWikiSyntax } from './wiki-syntax.js';

type Parser = (markdown: string) => Root;

/**
 * The parser (micromark, mdast and their GFM extensions) is loaded on the first parse, not at
 * startup: a run that reads no document (a no-op sync of an unchanged folder, --help) would spend a
 * tenth of a second loading it for nothing. Synchronous require of these ES modules is supported from
 * Node 20.19 on (kbsync's minimum). In the CLI's bundle the require is the bundle's own, which holds
 * the parser's modules and runs them on this first call (scripts/bundle.mjs).
 */
let parser: Parser | undefined;
const require = createRequire(import.meta.url);

function load(): Parser {
  const { fromMarkdown } = require('mdast-util-from-markdown') as typeof FromMarkdown;
  const { gfmFromMarkdown } = require('mdast-util-gfm') as typeof MdastGfm;
  const { gfm } = require('micromark-extension-gfm') as typeof MicromarkGfm;
  let reading = '';
  const positions = autolinkPositions(() => reading);
  const options: FromMarkdown.Options = { extensions: [gfm()], mdastExtensions: [positions.before, gfmFromMarkdown(), positions.after] };
  const read = (markdown: string): Root => {
    reading = markdown;
    return fromMarkdown(markdown, options);
  };
  return (markdown) => {
    const tree = read(markdown);
    if (dialect === 'wiki') readWikiSyntax(tree, markdown, read);
    return tree;
  };
}

/**
 * How the files are written: CommonMark + GFM (`gfm`), or with a note vault's wiki links, embeds and
 * callouts as well (`wiki`, wiki-syntax.ts). A run sets it for its folder (config `markdown.dialect`)
 * before it reads a file; every tree and fact made in the other dialect is dropped then.
 */
type MarkdownDialect = 'gfm' | 'wiki';
let dialect: MarkdownDialect = 'gfm';

export function useMarkdownDialect(wanted: MarkdownDialect): void {
  if (wanted === dialect) return;
  dialect = wanted;
  forgetParses();
}

/** Parses run and parses answered from the recent ones, for the benchmark's parses-per-document figure. */
export const parseCounts = { parsed: 0, reused: 0 };

/**
 * The trees of the texts parsed last, by text. One push reads the same body for its title, its links,
 * its anchors, the body it sends, the check that the service read it as expected and the alignment it
 * records: 14 parses per document, most of a push's CPU. Each step still asks for the text it has, and
 * gets the tree already made for the same text, or (factOf, below) what was made of it. Those steps of
 * one document run close together, so the trees of the last few dozen pages are enough (a push of 1,000
 * pages parses each once: bench/parse-count.ts). Bounded by characters, each tree charged ~1 KB more (a
 * tree takes ~30× its text, and a one-line note's still about a kilobyte: a budget by text alone kept
 * every tree of 10,000 short notes, 11 MB), so ~8 MB at most during a run, and dropped when a run ends.
 */
const recent = new TextKeyed<Root>(256 * 1024, 1024);

/**
 * Drops the recent trees: a run calls it when it ends, so an idle daemon holds none. The facts made of
 * them (factOf, below) stay: they are about the size of their texts and bounded, and a daemon's next
 * cycle asks them again of the same texts (the titles, anchors and links of the files a push resolves
 * against), which would otherwise be parsed again every cycle.
 */
export function forgetParseTrees(): void {
  recent.clear();
}

/** Drops the trees and every fact made of them: the next question of any text parses it (benchmarks, tests). */
export function forgetParses(): void {
  forgetParseTrees();
  known.clear();
  for (const forget of forgetting) forget();
}

/** Caches of what was made from the recent trees, dropped with them. */
const forgetting: (() => void)[] = [];
export const forgetWithParses = (forget: () => void): void => void forgetting.push(forget);

/**
 * CommonMark + GFM with source offsets: the reading the service's importer applies to a pushed body.
 * The tree may be shared with other callers that parsed the same text: read it, never change it.
 */
export function parseMarkdown(markdown: string): Root {
  const reused = recent.get(markdown);
  if (reused) {
    parseCounts.reused += 1;
    return reused;
  }
  parser ??= load();
  parseCounts.parsed += 1;
  const tree = parser(markdown);
  recent.set(markdown, tree);
  return tree;
}

/**
 * What a run keeps of a text once its tree is dropped. A push asks for a file's title when it observes,
 * for its links when it reports them, and for its links and outline again when it sends it, and a tree
 * takes ~30× its text, so a thousand pages' trees do not stay: each asked for its tree again (three
 * parses a page at 1,000 pages). So every fact registered here is worked out from the one parse, all at
 * once, and remembered by text: a fact is about the size of its text. Bounded by characters (about 10 MB
 * held at most), and kept when a run drops its trees. The facts may be shared: never change them.
 */
export function factOf<T>(derive: (tree: Root, text: string) => T): (text: string) => T {
  const index = facts.push(derive) - 1;
  return (text) => {
    const entry = known.get(text) ?? learn(text);
    if (!(index in entry)) entry[index] = derive(parseMarkdown(text), text);
    return entry[index] as T;
  };
}

const facts: ((tree: Root, text: string) => unknown)[] = [];
const known = new TextKeyed<unknown[]>(4 * 1024 * 1024);

function learn(text: string): unknown[] {
  const tree = parseMarkdown(text);
  const entry = facts.map((derive) => derive(tree, text));
  known.set(text, entry);
  return entry;
}
