/**
 * Markdown conversion speed on real-world documents (the READMEs and docs under node_modules): documents
 * per second for outline, blocksToMarkdown and merge3, each beside a plain remark parse of the same
 * documents measured in the same run. A merge parses two bodies and aligns three sequences, so about a
 * third of a parse's speed is what to expect; anything far below means a quadratic path woke up.
 *
 * Run alone: node --import tsx bench/conversion.ts
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { blocksToMarkdown, merge3, outline, parseDocument, toPushMarkdown, type OutlineNode } from '../src/markdown/index.js';
import { forgetParses } from '../src/markdown/parse.js';
import type { Block } from '../src/model/blocks.js';
import { asBlockId } from '../src/model/ids.js';
import { realWorldMarkdown } from '../test/integration/markdown/real-world-fixtures.js';
import { makeRow, type Row } from './lib/row.js';

/** The blocks the service would read back (the outline is its prediction), with ids as a read has them. */
function asBlocks(nodes: readonly OutlineNode[], prefix: string): Block[] {
  return nodes.map((node, index): Block => {
    const base = { id: asBlockId(`${prefix}-${index}`), index };
    switch (node.type) {
      case 'heading':
        return { ...base, type: 'heading', level: node.level ?? 1, text: node.text };
      case 'unorderedList':
      case 'orderedList':
        return { ...base, type: node.type, text: node.text, listId: node.listId ?? '', level: node.level ?? 1 };
      case 'table':
        return { ...base, type: 'table', cols: node.cols ?? 0, rows: node.rows ?? 0 };
      case 'unknown':
        return { ...base, type: 'unknown', kind: 'unknown' };
      default:
        return { ...base, type: node.type, text: node.text };
    }
  });
}

type Case = { readonly body: string; readonly blocks: Block[]; readonly remote: Block[]; readonly local: string };

/** A pull with work to do: the remote edited its last paragraph, the local side appended to its first. */
function caseOf(body: string): Case {
  const nodes = outline(body);
  const blocks = asBlocks(nodes, 'b');
  const last = blocks.findLastIndex((block) => block.type === 'paragraph');
  const remote = blocks.map((block, k) => (k === last && block.type === 'paragraph' ? { ...block, text: `${block.text} (edited online)` } : block));
  const first = nodes.find((node) => node.type === 'paragraph');
  const local = first ? body.slice(0, first.source.end) + ' Appended locally.' + body.slice(first.source.end) : body;
  return { body, blocks, remote, local };
}

/** Documents per second for `run` over all cases, repeated until at least `ms` have passed. */
function docsPerSecond<T>(cases: readonly T[], run: (item: T) => unknown, ms: number): number {
  for (const item of cases) run(item); // warm-up
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (const item of cases) run(item);
    done += cases.length;
  }
  return done / ((performance.now() - started) / 1000);
}

export async function benchConversion(options: { readonly documents?: number; readonly ms?: number } = {}): Promise<{ rows: Row[] }> {
  const ms = options.ms ?? 1000;
  const bodies = realWorldMarkdown(options.documents ?? 60).flatMap((fixture) => {
    try {
      const body = parseDocument(fixture.text).body;
      return toPushMarkdown(body) === '' ? [] : [body];
    } catch {
      return [];
    }
  });
  const cases = bodies.map(caseOf);
  const processor = unified().use(remarkParse).use(remarkGfm);
  const parse = docsPerSecond(bodies, (body) => processor.parse(body), ms);
  const baselineIs = `remark parse (CommonMark + GFM) of the same ${bodies.length} real-world documents`;
  const row = (id: string, metric: string, ours: number, atLeast: number): Row =>
    makeRow({ id, metric, ours, baseline: parse, unit: 'docs/s', baselineIs, target: { on: 'ratio', op: '>=', value: atLeast } });
  return {
    rows: [
      // Each operation on a cold parse: kbsync keeps the trees of recent texts, and the same documents go round
      // many times here, so without forgetting them every parse after the first would be a lookup.
      row('markdown.outline', 'markdown: outline (parse + expected blocks)', docsPerSecond(bodies, (body) => (forgetParses(), outline(body)), ms), 0.5),
      row('markdown.blocksToMarkdown', 'markdown: blocksToMarkdown (new remote document)', docsPerSecond(cases, (c) => blocksToMarkdown(c.blocks), ms), 1),
      row('markdown.merge3', 'markdown: merge3 (both sides edited one paragraph)', docsPerSecond(cases, (c) => (forgetParses(), merge3({ base: c.body, remoteBase: c.blocks, remote: c.remote, local: c.local })), ms), 0.2),
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { rows } = await benchConversion();
  console.table(rows.map((r) => ({ metric: r.metric, ours: r.ours, baseline: r.baseline, unit: r.unit, ratio: r.ratio, target: r.target, met: r.met })));
}
