import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { outline } from '../../../src/markdown/index.js';
import { contentOf, gapOf, segmentBody } from '../../../src/markdown/segments.js';
import { documentParts, join } from './helpers/documents.js';

describe('outline', () => {
  test('one node per expected block, with flattened text and the source of each', () => {
    const body = '# Hi *there*\n\nA [link](u) and `code`.\n\n1. one\n   - nested\n2. two\n\n> q1\n>\n> q2\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx\n```\n\n![i](i.png)\n';
    const nodes = outline(body);
    assert.deepEqual(
      nodes.map((n) => [n.type, n.text, n.level ?? null]),
      [
        ['heading', 'Hi there', 1],
        ['paragraph', 'A link and code.', null],
        ['orderedList', 'one', 1],
        ['unorderedList', 'nested', 2],
        ['orderedList', 'two', 1],
        ['blockquote', 'q1\nq2', null],
        ['table', '', null],
        ['unknown', '', null],
        ['unknown', '', null],
      ],
    );
    assert.equal(nodes[2]?.listId, nodes[4]?.listId);
    assert.notEqual(nodes[2]?.listId, nodes[3]?.listId);
    assert.deepEqual([nodes[6]?.cols, nodes[6]?.rows, nodes[6]?.cells], [2, 2, [['a', 'b'], ['1', '2']]]);
    assert.equal(body.slice(nodes[0]!.source.start, nodes[0]!.source.end), '# Hi *there*');
    assert.equal(body.slice(nodes[3]!.source.start, nodes[3]!.source.end), '- nested');
  });

  test('segments cut any body into lead + (content + whitespace gap) pieces that rebuild it exactly', () => {
    fc.assert(
      fc.property(fc.oneof(documentParts.map(join), fc.string({ unit: fc.constantFrom('a', ' ', '\n', '-', '#', '>', '1.', '  ', '*', '`', '|') })), (body) => {
        const { lead, segments } = segmentBody(body);
        assert.equal(lead + segments.map((s) => contentOf(body, s) + gapOf(body, s)).join(''), body);
        for (const s of segments) assert.equal(gapOf(body, s).trim(), '');
      }),
      { numRuns: 300 },
    );
  });
});
