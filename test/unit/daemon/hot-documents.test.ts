import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HotDocuments } from '../../../src/daemon/hot-documents.js';

describe('HotDocuments: recently changed documents for the probes', () => {
  test('the first probe only takes a baseline; a different modifiedTime later is a change', () => {
    const hot = new HotDocuments(60_000);
    hot.touch('a.md', 0);
    assert.equal(hot.observe('a.md', '2025-01-01T10:00Z'), false);
    assert.equal(hot.observe('a.md', '2025-01-01T10:00Z'), false);
    assert.equal(hot.observe('a.md', '2025-01-01T10:01Z'), true);
    hot.resetBaselines();
    assert.equal(hot.observe('a.md', '2025-01-01T10:02Z'), false);
  });

  test('documents cool down after the window and are forgotten', () => {
    const hot = new HotDocuments(60_000);
    hot.touch('a.md', 0);
    hot.touch('b.md', 30_000);
    assert.deepEqual(hot.paths(50_000), ['a.md', 'b.md']);
    assert.deepEqual(hot.paths(70_000), ['b.md']);
    assert.equal(hot.observe('a.md', 'x'), false);
    hot.forget('b.md');
    assert.equal(hot.size, 0);
  });

  test('memory stays bounded: only the most recent 200 are kept', () => {
    const hot = new HotDocuments(60_000);
    for (let i = 0; i < 1000; i++) hot.touch(`n${i}.md`, i);
    assert.equal(hot.size, 200);
    assert.equal(hot.paths(1000)[0], 'n800.md');
  });
});
