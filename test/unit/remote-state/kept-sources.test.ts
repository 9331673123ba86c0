import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KbClient } from '../../../src/api/index.js';
import { KeptSources } from '../../../src/remote-state/sources.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** Nothing is read in these tests: a text asked for and not kept has nothing to be read from. */
const noContext = async (): Promise<never> => assert.fail('nothing should be read');
const sources = (): KeptSources => new KeptSources({ client: {} as KbClient, key: undefined });

test('a kept text is known and given back without reading, but never for a hash it does not have', async () => {
  const kept = sources();
  const text = '# Note\n\nKept by the run that wrote it.\n';
  kept.keep({ hash: sha256(text), text });
  kept.keep({ hash: sha256('another text'), text: 'not that text' });
  assert.equal(kept.has(sha256(text)), true);
  const found = await kept.texts(new Set([sha256(text), sha256('another text')]), noContext);
  assert.deepEqual([...found], [[sha256(text), text]], 'a text that is not what its hash names is not given');
});

test('keeping the texts a first push writes costs little more than the texts themselves', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const texts = Array.from({ length: 20_000 }, (_, i) => `# Note ${i}\n\nThis note talks about note ${i}.\n`);
  const hashes = texts.map(sha256);
  const kept = sources();
  gc();
  const before = process.memoryUsage().heapUsed;
  texts.forEach((text, i) => kept.keep({ hash: hashes[i] as string, text }));
  gc();
  const held = process.memoryUsage().heapUsed - before;
  // Kept deflated (a chunk object and a Buffer each), they held 6 MB of heap here, their bytes besides; now 0.8 MB.
  assert.ok(held < 2 * 1024 * 1024, `keeping 20,000 short texts held ${(held / 1024).toFixed(0)} KB`);
  assert.equal(kept.has(hashes[19_999] as string), true);
});
