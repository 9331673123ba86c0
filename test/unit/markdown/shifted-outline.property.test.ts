import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { outline, shiftOutline, type Replacement } from '../../../src/markdown/outline.js';
import { findImages } from '../../../src/images/find.js';
import { applyEdits, linkUses, type SpanEdit } from '../../../src/links/rewrite.js';

/** Pieces of real bodies around links and images: every block kind the outline knows, and destinations written every way. */
const destination = fc.constantFrom('b.md', '../up/c.md#part', '<a b.md>', 'x.md "title"', 'https://example.com/a_(b)', 'd.md?q=1', 'img/shot.png');
const inline = fc.oneof(
  fc.constantFrom('plain words', '**bold** and `code`', 'www.example.com', '&amp; entity', 'a_b_c', '<span>x</span>'),
  destination.map((d) => `[a link](${d})`),
  destination.map((d) => `![an image](${d})`),
  fc.constantFrom('[ref link][r]', '![ref image][i]'),
);
const line = fc.array(inline, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
const block = fc.oneof(
  line,
  line.map((l) => `# ${l}`),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((items) => items.map((i) => `- ${i}`).join('\n')),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((items) => items.map((i, n) => `${n + 1}. ${i}\n   - nested ${i}`).join('\n')),
  line.map((l) => `> ${l}\n> more`),
  fc.tuple(line, line).map(([a, b]) => `| ${a} | b |\n| --- | --- |\n| ${b} | c |`),
  fc.constantFrom('```\n[not](a.md)\n```', '[r]: r.md', '[i]: pic.png "t"', '<img src="x.png">'),
);
const body = fc.array(block, { minLength: 1, maxLength: 8 }).map((blocks) => blocks.join('\n\n') + '\n');
/** What a URL rewrite puts in: document URLs, anchors and published image URLs. */
const url = fc.stringMatching(/^(https:\/\/kb\.example\/[a-zA-Z0-9._~%-]{0,20}(#[a-z0-9-]{0,8})?|#[a-z0-9-]{1,10})$/);

test('a body rewritten only inside Markdown destinations reads as the same blocks, shifted: its outline needs no parse', () => {
  fc.assert(
    fc.property(body, fc.infiniteStream(fc.tuple(fc.boolean(), url)), (source, choices) => {
      const spans = [
        ...linkUses(source, () => ({ kind: 'external' })).flatMap((use) => (use.span ? [use.span] : [])),
        ...findImages(source).flatMap((found) => (found.kind === 'image' && found.markdown && found.span ? [found.span] : [])),
      ];
      const edits: SpanEdit[] = [];
      const pick = choices[Symbol.iterator]();
      for (const span of spans) {
        const [take, to] = pick.next().value as [boolean, string];
        if (take && !edits.some((e) => e.span.start === span.start)) edits.push({ span, url: to });
      }
      const replacements: Replacement[] = edits.map((e) => ({ start: e.span.start, end: e.span.end, length: e.url.length }));
      const rewritten = [...edits].sort((a, b) => b.span.start - a.span.start).reduce((text, e) => text.slice(0, e.span.start) + e.url + text.slice(e.span.end), source);
      assert.deepEqual(shiftOutline(outline(source), replacements), outline(rewritten));
    }),
    { numRuns: 300 },
  );
});

test('the push rewrite remembers the outline only when its edits keep the blocks', () => {
  const source = '# T\n\nSee [b](b.md) and <img src="x.png"> here.\n';
  const at = (s: string): { start: number; end: number } => ({ start: source.indexOf(s), end: source.indexOf(s) + s.length });
  const linkOnly = applyEdits(source, [{ span: at('b.md'), url: 'https://kb.example/doc/1', destination: true }]);
  assert.deepEqual(outline(linkOnly), shiftOutline(outline(source), [{ ...at('b.md'), length: 'https://kb.example/doc/1'.length }]));
  // The service shows an <img> tag's characters as text: its new src changes the paragraph's text, so it is parsed.
  const html = applyEdits(source, [{ span: at('x.png'), url: 'https://cdn.example/x.png' }]);
  assert.match(outline(html)[1]?.text ?? '', /cdn\.example/);
});
