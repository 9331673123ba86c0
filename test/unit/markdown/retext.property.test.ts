import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { outline } from '../../../src/markdown/outline.js';
import { respaced, retext } from '../../../src/markdown/retext.js';
import { normaliseText } from '../../../src/markdown/text.js';
import { renderParagraph } from '../../../src/markdown/to-markdown.js';

/** A word of a paragraph and how it is written: the formatting is what a pulled edit must not lose. */
type Part = { readonly word: string; readonly style: 'plain' | 'em' | 'strong' | 'code' | 'link' };
const write = (part: Part): string =>
  ({ plain: part.word, em: `*${part.word}*`, strong: `**${part.word}**`, code: `\`${part.word}\``, link: `[${part.word}](https://example.com/${part.word})` })[part.style];

const word = fc.stringMatching(/^[a-z]{2,8}$/);
const part = fc.record({ word, style: fc.constantFrom<Part['style']>('plain', 'plain', 'plain', 'em', 'strong', 'code', 'link') });
const plainOf = (markdown: string): string => normaliseText(outline(markdown).map((node) => node.text).join(' '));

test('a remote edit of a paragraph\'s plain text: the result reads as the remote text, and the formatting outside the edit is kept', () => {
  fc.assert(
    fc.property(fc.array(part, { minLength: 2, maxLength: 12 }), fc.nat(), fc.nat(3), fc.array(word, { maxLength: 3 }), (parts, at, removed, inserted) => {
      const source = parts.map(write).join(' ');
      const words = parts.map((p) => p.word);
      const start = at % words.length;
      const end = Math.min(words.length, start + removed);
      const edited = [...words.slice(0, start), ...inserted, ...words.slice(end)];
      fc.pre(edited.length > 0);
      const remote = edited.join(' ');
      const kept = retext(source, remote)?.markdown;
      const result = kept ?? renderParagraph(remote);
      assert.equal(plainOf(result), normaliseText(remote), 'the result reads as the remote text');
      if (kept === undefined) {
        // Written plain only when the edit touched markup it could not write around.
        assert.ok(parts.slice(start, Math.max(end, start + 1)).some((p) => p.style === 'code') || removed > 0 || inserted.length > 0);
        return;
      }
      // Every formatted word the edit did not touch is still written exactly as it was.
      for (const [i, p] of parts.entries()) {
        if (p.style === 'plain' || (i >= start - 1 && i <= end)) continue;
        assert.ok(kept.includes(write(p)), `${write(p)} kept in ${kept}`);
      }
    }),
    { numRuns: 1000 },
  );
});

// Model seed 38: a colleague typed words between a link and an emphasis that touch. The plain reading
// (`backerstone u19z`) cannot tell where; the word diff put them inside the emphasis, which they were not.
test('words typed where two formatted runs touch go between them, not into either', () => {
  const source = 'Help us. [[Become a backer](https://example.com/backer)*stone u19z* ]';
  assert.equal(retext(source, 'Help us. [Become a backerstone c29z stone u19z ]')?.markdown, 'Help us. [[Become a backer](https://example.com/backer)stone c29z *stone u19z* ]');
});

test('a plain word typed before a formatted one, even the same word, keeps every formatted word as written', () => {
  const formatted = fc.record({ word, style: fc.constantFrom<Part['style']>('em', 'strong', 'code', 'link') });
  fc.assert(
    fc.property(fc.array(formatted, { minLength: 2, maxLength: 6 }), fc.nat(), fc.option(word, { nil: undefined }), (parts, at, other) => {
      const i = 1 + (at % (parts.length - 1));
      // The colleague's word, plain, right before part i: a new word, or the same word again (the diff cannot tell which copy is new).
      const added = other ?? (parts[i] as Part).word;
      const source = parts.map(write).join(' ');
      const colleague = parts.map((p, k) => `${k === i ? `${added} ` : ''}${write(p)}`).join(' ');
      const kept = retext(source, plainOf(colleague))?.markdown;
      assert.ok(kept !== undefined, 'a plain word between formatted ones can be written in place');
      assert.equal(plainOf(kept), plainOf(colleague), 'reads as the colleague left it');
      for (const p of parts) assert.ok(kept.includes(write(p)), `${write(p)} kept in ${kept}`);
    }),
    { numRuns: 1000 },
  );
});

// Model seed 110047: a colleague's words at the start of a quote's second line, before `_must_`, were written
// before that line's `> ` (the text ending the first line ended there), the proof failed, and the quote was
// written plain. A wrapped list item's indentation is the same case.
test('words typed at the start of a wrapped line of a quote or a list item, before formatting, keep the line prefix and every formatted word', () => {
  const formatted = fc.record({ word, style: fc.constantFrom<Part['style']>('em', 'strong', 'code', 'link') });
  const line = fc.tuple(fc.array(part, { maxLength: 3 }), formatted).map(([lead, first]) => [first, ...lead]);
  fc.assert(
    fc.property(fc.array(line, { minLength: 2, maxLength: 4 }), fc.constantFrom('> ', '- ', '1. '), fc.nat(), word, (lines, marker, at, added) => {
      const i = 1 + (at % (lines.length - 1));
      const continuation = marker === '> ' ? '> ' : ' '.repeat(marker.length);
      const written = (extra: string | undefined) =>
        lines.map((parts, k) => `${k === 0 ? marker : continuation}${k === i && extra !== undefined ? `${extra} ` : ''}${parts.map(write).join(' ')}`).join('\n');
      const source = written(undefined);
      const colleague = outline(written(added))[0]?.text ?? '';
      const kept = retext(source, colleague)?.markdown;
      assert.ok(kept !== undefined, `written in place: ${source}`);
      assert.equal(normaliseText(outline(kept)[0]?.text ?? ''), normaliseText(colleague), 'reads as the colleague left it');
      const count = (text: string, piece: string): number => text.split(piece).length - 1;
      for (const p of lines.flat().filter((p) => p.style !== 'plain')) assert.equal(count(kept, write(p)), count(source, write(p)), `${write(p)} kept in ${kept}`);
      assert.ok(kept.split('\n').slice(1).every((l) => l.startsWith(continuation)), `every line keeps its prefix: ${kept}`);
      // A new word (not one the line already has) goes exactly where it was typed.
      if (!lines.flat().some((p) => p.word === added)) assert.equal(kept, written(added));
    }),
    { numRuns: 500 },
  );
});

// Model seed 140149: a colleague typed words between a code span and the letter glued to it (`` `id`s ``). The
// word diff saw `ids` rewritten as `id lamp c41z harbors`, and the code span was written plain with it.
test('words typed between a formatted word and the letters glued to it keep the formatting; a word renamed inside formatting stays inside it', () => {
  assert.equal(retext('to add `id`s on headings.', 'to add id lamp c41z harbors on headings.')?.markdown, 'to add `id` lamp c41z harbors on headings.');
  assert.equal(retext('See **API**s and more.', 'See API and SDKs and more.')?.markdown, 'See **API** and SDKs and more.');
  assert.equal(retext('a **foo** bar', 'a food bar')?.markdown, 'a **food** bar');
  assert.equal(retext('a **foo** bar baz', 'a bar baz')?.markdown, 'a bar baz', 'a formatted word deleted goes with its formatting');
});

// Issue 44's property (retext-spans.property.test.ts): a `!` typed right before a link made it an image, the
// proof failed, and the block was written plain.
test('a `!` typed right before a link is written escaped: the link stays a link', () => {
  assert.equal(retext('Done [here](https://example.org/x).', 'Done !here.')?.markdown, 'Done \\![here](https://example.org/x).');
  assert.equal(retext('Done `it` [here](https://example.org/x).', 'Done it! here.')?.markdown, 'Done `it`! [here](https://example.org/x).');
});

// Soak seed 703: another machine rewrapped a line; the read showed the line break, and the merge, seeing past
// spacing, kept the file's one line. The file must read as the document, spacing and all, formatting kept.
test('a reading spaced anew is written into the source, every formatted run kept as written', () => {
  type Run = { readonly words: readonly string[]; readonly style: Part['style'] };
  const run = fc.record({ words: fc.array(word, { minLength: 1, maxLength: 3 }), style: fc.constantFrom<Part['style']>('plain', 'plain', 'em', 'strong', 'code', 'link') });
  const gap = fc.constantFrom(' ', '\n');
  // A code span reads a line break in it as a space: its own words are spaced by the source alone.
  const spell = (r: Run, inner: readonly string[]): string => {
    const text = r.words.map((w, i) => (i === 0 ? w : `${r.style === 'code' ? ' ' : (inner[i] ?? ' ')}${w}`)).join('');
    return r.style === 'plain' ? text : write({ word: text, style: r.style });
  };
  const spelt = (runs: readonly Run[], gaps: readonly string[]): string => runs.map((r, i) => `${i === 0 ? '' : (gaps[i] ?? ' ')}${spell(r, gaps.slice(i * 3))}`).join('');
  fc.assert(
    fc.property(fc.array(run, { minLength: 1, maxLength: 6 }), fc.array(gap, { minLength: 24, maxLength: 24 }), fc.array(gap, { minLength: 24, maxLength: 24 }), (runs, before, after) => {
      const source = spelt(runs, before);
      const wanted = spelt(runs, after);
      const reading = outline(wanted)[0]?.text ?? '';
      const out = respaced(source, reading);
      assert.equal(outline(out)[0]?.text, reading, `reads exactly as the document: ${JSON.stringify(out)}`);
      assert.equal(out, wanted, 'each line break or space written where the reading has it, the markup as written');
    }),
    { numRuns: 500 },
  );
  // Words that changed are no spacing: left to retext, which says what it could not keep.
  assert.equal(respaced('one **two** three', 'one two four'), 'one **two** three');
});
