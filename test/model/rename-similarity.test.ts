import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { RENAME_SIMILARITY, shapeOf, similarity } from '../../src/sync/decide/similarity.js';
import { Random } from '../chaos/random.js';
import { editDocument } from './mutate.js';
import { Tokens } from './tokens.js';

/**
 * The rename threshold (src/sync/decide/similarity.ts) measured on real documents: every pair of unrelated
 * corpus documents keeps less of each other than it, and every document renamed with an edit keeps more. The
 * edits are the model's own (words, code, tables, links, a block deleted or added), ten to a document, of
 * which one in a hundred may fall under (a deleted table can be most of a document). The budget here is the
 * eight smallest documents, one seed each (the ones an edit changes most); KBSYNC_RENAME_SEEDS=N runs every
 * document with seeds 1…N (the figures in similarity.ts are N = 5: some six minutes, past the runner's five,
 * so run the file alone: `KBSYNC_RENAME_SEEDS=5 node --import tsx --test test/model/rename-similarity.test.ts`).
 * The corpus is read as files, not through corpus() (whose titles alone parse every document).
 */
const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));
const docs = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.md') && name !== 'NOTICE.md')
  .sort()
  .map((name) => ({ name, text: readFileSync(join(CORPUS, name), 'utf8') }));

const EDITS = 10;

test('unrelated documents keep less of each other than the rename threshold', () => {
  const scores = docs.flatMap((a, i) => docs.slice(i + 1).map((b) => ({ pair: `${a.name} ~ ${b.name}`, score: similarity(shapeOf(a.text), shapeOf(b.text)) })));
  scores.sort((x, y) => y.score - x.score);
  console.log(`unrelated pairs: ${scores.length}, the most alike: ${scores.slice(0, 3).map((s) => `${s.pair} ${(s.score * 100).toFixed(1)}%`).join(', ')}`);
  assert.deepEqual(scores.filter((s) => s.score >= RENAME_SIMILARITY), []);
});

test(`a document after ${EDITS} edits keeps more of itself than the rename threshold`, () => {
  const seeds = Number(process.env['KBSYNC_RENAME_SEEDS'] ?? 0);
  const measured = seeds > 0 ? docs.flatMap((doc) => Array.from({ length: seeds }, (_, i) => ({ doc, seed: i + 1 }))) : [...docs].sort((a, b) => a.text.length - b.text.length).slice(0, 8).map((doc) => ({ doc, seed: 1 }));
  const scores = measured.map(({ doc, seed }) => {
    const rng = new Random(seed);
    const tokens = new Tokens();
    let text = doc.text;
    for (let n = 0; n < EDITS; n++) text = editDocument(text, 'user', rng, tokens)?.text ?? text;
    return { what: `${doc.name} (seed ${seed})`, score: similarity(shapeOf(doc.text), shapeOf(text)) };
  });
  scores.sort((x, y) => x.score - y.score);
  const percentile = (p: number): string => `${((scores[Math.floor((scores.length - 1) * p)]?.score ?? 0) * 100).toFixed(1)}%`;
  console.log(`renamed with ${EDITS} edits: ${scores.length}, the least alike: ${scores.slice(0, 3).map((s) => `${s.what} ${(s.score * 100).toFixed(1)}%`).join(', ')}; 5th percentile ${percentile(0.05)}, median ${percentile(0.5)}`);
  // One in a hundred may fall under: ten edits can delete a table that was most of a document (dateformat, seed 5).
  assert.ok(scores.filter((s) => s.score < RENAME_SIMILARITY).length <= Math.floor(scores.length / 100), JSON.stringify(scores.slice(0, 5)));
});

test('moving paragraphs about, or a checkout writing CRLF, keeps a text whole; a larger text keeps at most its share of a smaller', () => {
  const text = '# Title\n\nFirst paragraph.\n\nSecond paragraph.\n';
  assert.equal(similarity(shapeOf(text), shapeOf('# Title\n\nSecond paragraph.\n\nFirst paragraph.\n')), 1);
  assert.equal(similarity(shapeOf(text), shapeOf(text.replaceAll('\n', '\r\n'))), 1);
  assert.ok(similarity(shapeOf(text), shapeOf(text + text)) <= 0.5);
  assert.equal(similarity(shapeOf(''), shapeOf('')), 1);
});
