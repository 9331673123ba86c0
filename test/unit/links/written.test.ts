import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { linkLine, summariseLinks, type LinkProblem } from '../../../src/links/index.js';
import { applyEdits, editOrigins, type SpanEdit } from '../../../src/links/rewrite.js';
import { asWritten, columnAt } from '../../../src/links/written.js';

/** A body and edits of it that do not overlap (insertions included), as a lowering makes them. */
const edited = fc
  .tuple(fc.string({ minLength: 1, maxLength: 60 }), fc.array(fc.tuple(fc.nat(), fc.nat(6), fc.string({ maxLength: 12 })), { maxLength: 6 }))
  .map(([body, raw]) => {
    const edits: SpanEdit[] = [];
    let from = 0;
    for (const [skip, length, url] of [...raw].sort((a, b) => a[0] - b[0])) {
      const start = Math.min(body.length, from + (skip % 8));
      const end = Math.min(body.length, start + length);
      if (start < from) continue;
      edits.push({ span: { start, end }, url });
      // An edit that inserts is followed by at least one character, so the next cannot begin at the same place.
      from = end + (end === start ? 1 : 0);
    }
    return { body, edits };
  });

test('where a span of an edited body was written: untouched text maps to itself, an edit\'s text to what it replaced', () => {
  fc.assert(
    fc.property(edited, ({ body, edits }) => {
      const out = applyEdits(body, edits);
      const source = editOrigins(edits);
      let shift = 0;
      let previous = 0;
      for (const edit of [...edits].sort((a, b) => a.span.start - b.span.start)) {
        // The text between edits, whole: it is what was written there.
        const between = { start: previous + shift, end: edit.span.start + shift };
        if (between.end > between.start) {
          const back = source(between);
          assert.equal(body.slice(back.span.start, back.span.end), out.slice(between.start, between.end));
          assert.equal(back.made, false);
        }
        const at = { start: edit.span.start + shift, end: edit.span.start + shift + edit.url.length };
        if (edit.url.length > 0) assert.deepEqual(source(at), { span: edit.span, made: true });
        shift += edit.url.length - (edit.span.end - edit.span.start);
        previous = edit.span.end;
      }
    }),
  );
});

test('a link is quoted on one line and cut when it runs on; its column counts from its line\'s start', () => {
  assert.equal(asWritten('[a long\n   label](x.md)'), '[a long label](x.md)');
  assert.equal(asWritten(`[${'x'.repeat(300)}](y.md)`).length, 161);
  assert.equal(columnAt('first\nsee [x](y)', 10), 5);
  assert.equal(columnAt('[x](y)', 0), 1);
});

const problem = (path: string, line: number, written: string, reason: LinkProblem['reason'], message: string): LinkProblem => ({ path, line, column: 3, target: written, written, reason, message });

test('a long list of broken links is summarised: counts per reason, the same link grouped across files, the most frequent first', () => {
  const copies = Array.from({ length: 5 }, (_, i) => problem(`n${i}.md`, 2, '![[ben#Sponsor]]', 'anchor-missing', 'ben.md has no heading with the anchor #sponsor'));
  const others = [problem('a.md', 4, '[[Gone]]', 'missing', 'no note is named Gone'), problem('a.md', 9, '[x](y.md)', 'missing', 'there is no file y.md'), problem('b.md', 1, '[[Gone]]', 'missing', 'no note is named Gone')];
  const summary = summariseLinks([...others, ...copies], 2);
  assert.deepEqual(summary.byReason, [
    ['anchor-missing', 5],
    ['missing', 3],
  ]);
  assert.equal(summary.total, 8);
  assert.equal(summary.files, 7);
  assert.deepEqual(
    summary.sample.map((group) => [group.first.path, group.first.written, group.count, group.files]),
    [
      ['n0.md', '![[ben#Sponsor]]', 5, 5],
      ['a.md', '[[Gone]]', 2, 2],
    ],
  );
  assert.equal(summary.left, 1, 'the link the sample leaves out');
  assert.equal(linkLine(others[1] as LinkProblem), 'a.md:9:3: broken link [x](y.md): there is no file y.md');
});
