import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseMarkdown, useMarkdownDialect } from '../../../src/markdown/parse.js';
import { wikiSyntaxIn } from '../../../src/markdown/wiki-syntax.js';
import { lowerBody } from '../../../src/vault/lower.js';
import type { VaultNames } from '../../../src/vault/names.js';

/*
 * Wherever a wiki link stands among Markdown's inline constructs (emphasis around it or in its label, an
 * autolink, code or HTML beside it, a table cell, a list item, a quote, a callout, a wrapped line), it is
 * read as the link the editor shows, and sent as a link or reported: never left as its brackets.
 */

const FILES = ['Home.md', 'guides/Setup.md', 'Setup (old).md', 'a b.md', 'Attachments/diagram.png', 'Attachments/x.png', 'Attachments/talk.mp4', 'Templates/Daily.md'];
const SYNCED = new Set(FILES.filter((file) => file.endsWith('.md') && !file.startsWith('Templates/')));
const names: VaultNames = {
  exists: (path) => FILES.includes(path),
  resolve: (target) => FILES.find((file) => [file, file.replace(/\.md$/, '')].some((name) => name === target || name.endsWith(`/${target}`))),
};

type Wiki = { readonly embed: boolean; readonly target: string; readonly fragment: string; readonly label: string | undefined };

const LABELS = ['label', 'two words', 'Readwise _Community_', '*em* words', '**strong**', '`code`', '~~gone~~', 'a _b_ `c` d', 'x.png', 'Markdown syntax'];
const wiki: fc.Arbitrary<Wiki> = fc.record({
  embed: fc.boolean(),
  target: fc.constantFrom('Home', 'guides/Setup', 'Setup (old)', 'a b', 'Missing', 'x.png', 'diagram.png', 'talk.mp4', 'Daily'),
  fragment: fc.constantFrom('', '#Install', '#Install#Linux', '#^b15695'),
  label: fc.option(fc.constantFrom(...LABELS), { nil: undefined }),
});

/** As written; in a table cell the bar is escaped, as the editor wants it there. */
const written = (w: Wiki, bar: string): string => `${w.embed ? '!' : ''}[[${w.target}${w.fragment}${w.label === undefined ? '' : `${bar}${w.label}`}]]`;

/** Formatting around a link: never the marker its label uses (`*[[a|*b*]]*` reads otherwise in CommonMark and in the editor alike). */
const AROUND = [
  ['', ''],
  ['*', '*'],
  ['_', '_'],
  ['**', '**'],
  ['~~', '~~'],
  ['**x ', ' y**'],
  ['(', ')'],
  ['"', '",'],
] as const;
const around = fc.constantFrom(...AROUND);
const usable = (w: Wiki, [open]: readonly [string, string]): boolean => open === '' || !(w.label ?? '').includes(open.trim().charAt(0));

/** Words beside the links: autolinks of every kind, code, HTML, an entity, formatting, a Markdown link. */
const beside = fc.constantFrom('text', '<www.example.com>', 'www.example.com', '<https://example.com/a>', 'https://example.com/b', 'mail@example.com', '`code`', '<span>html</span>', '&amp;', '**bold**', '_em_', '[md](Home.md)');

type Piece = { readonly wiki?: Wiki; readonly open: string; readonly close: string; readonly word?: string };
const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc
    .tuple(wiki, around)
    .filter(([w, a]) => usable(w, a))
    .map(([w, [open, close]]) => ({ wiki: w, open, close })),
  beside.map((word) => ({ word, open: '', close: '' })),
);
const line = fc.array(piece, { minLength: 1, maxLength: 5 }).filter((pieces) => pieces.some((p) => p.wiki));
const inline = (pieces: readonly Piece[], bar: string): string => pieces.map((p) => (p.wiki ? `${p.open}${written(p.wiki, bar)}${p.close}` : (p.word as string))).join(' ');

type Block = { readonly markdown: string; readonly wikis: readonly string[] };
const wikisOf = (pieces: readonly Piece[], bar: string): string[] => pieces.flatMap((p) => (p.wiki ? [written(p.wiki, bar)] : []));
const block: fc.Arbitrary<Block> = fc.oneof(
  ...[
    (text: string) => text,
    (text: string) => `# ${text}`,
    (text: string) => `- ${text}`,
    (text: string) => `1. item\n2. ${text}`,
    (text: string) => `> ${text}`,
    (text: string) => `> [!note] Title\n> ${text}`,
    (text: string) => `:::tip\n${text}\n:::`,
    (text: string) => `Before the break  \n${text}`,
    (text: string) => `A wrapped\n${text}`,
  ].map((shape) => line.map((pieces) => ({ markdown: shape(inline(pieces, '|')), wikis: wikisOf(pieces, '|') }))),
  fc.tuple(line, line).map(([a, b]) => ({ markdown: `| a | b |\n|---|---|\n| ${inline(a, '\\|')} | ${inline(b, '\\|')} |`, wikis: [...wikisOf(a, '\\|'), ...wikisOf(b, '\\|')] })),
  fc.tuple(line, line).map(([a, b]) => ({ markdown: `First | Second\n-- | --\n${inline(a, '\\|')} | ${inline(b, '\\|')}`, wikis: [...wikisOf(a, '\\|'), ...wikisOf(b, '\\|')] })),
);
const note = fc.array(block, { minLength: 1, maxLength: 4 }).map((blocks) => ({ markdown: `${blocks.map((b) => b.markdown).join('\n\n')}\n`, wikis: blocks.flatMap((b) => b.wikis) }));

describe('a wiki link among inline constructs', () => {
  beforeEach(() => useMarkdownDialect('wiki'));
  afterEach(() => useMarkdownDialect('gfm'));

  test('is read as a link wherever it stands, and sent as a link, an image or its words reported: never as brackets', () => {
    fc.assert(
      fc.property(note, ({ markdown, wikis }) => {
        const refs = wikiSyntaxIn(parseMarkdown(markdown)).refs;
        assert.deepEqual(
          refs.map((ref) => markdown.slice(ref.start, ref.end)),
          wikis,
        );
        const lowered = lowerBody(markdown, 'Page.md', { names, synced: SYNCED });
        assert.ok(!lowered.markdown.includes('[['), `no brackets sent: ${lowered.markdown}`);
        // What reaches no synced note is reported, once each; the rest is sent as a link or an image.
        const unreached = refs.filter((ref) => {
          const found = ref.target === '' ? 'Page.md' : names.resolve(ref.target, 'Page.md');
          const image = ref.embed && /\.png$/.test(ref.target);
          return !image && (found === undefined || !SYNCED.has(found));
        });
        assert.deepEqual(
          lowered.problems.map((problem) => problem.target),
          unreached.map((ref) => markdown.slice(ref.start, ref.end)),
        );
      }),
      { numRuns: Number(process.env['KBSYNC_FC_RUNS'] ?? 300) },
    );
  });

  test('the cases a real vault left as brackets', () => {
    const cases: [string, string][] = [
      ['The [[obsidian-readwise|Readwise _Community_]] Plugin', '[[obsidian-readwise|Readwise _Community_]]'],
      ['See [[Patreon]] at <www.patreon.com>.', '[[Patreon]]'],
      ['First column | Second column\n-- | --\n[[Basic formatting syntax\\|Markdown syntax]] | ![[Engelbart.jpg\\|200]]', '[[Basic formatting syntax\\|Markdown syntax]]'],
    ];
    for (const [markdown, link] of cases) assert.ok(wikiSyntaxIn(parseMarkdown(markdown)).refs.some((ref) => markdown.slice(ref.start, ref.end) === link), markdown);
  });
});
