import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Random } from '../chaos/random.js';
import { documentTitle } from '../../src/sync/document-text.js';

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));

export type CorpusDoc = { readonly name: string; readonly text: string; readonly title: string };

let loaded: CorpusDoc[] | undefined;

/** The corpus (see corpus/NOTICE.md), in a fixed order; documents whose title another one has are left out. */
export function corpus(): readonly CorpusDoc[] {
  if (!loaded) {
    const titles = new Set<string>();
    loaded = readdirSync(CORPUS)
      .filter((name) => name.endsWith('.md') && name !== 'NOTICE.md')
      .sort()
      .map((name) => {
        const text = readFileSync(join(CORPUS, name), 'utf8');
        return { name, text, title: documentTitle(text, name) };
      })
      .filter((doc) => (titles.has(doc.title) ? false : (titles.add(doc.title), true)));
  }
  return loaded;
}

/** The documents a seed's world starts from, and the pool later creates draw from: disjoint, shuffled by the seed. */
export function draw(rng: Random, count: number): { readonly start: CorpusDoc[]; readonly pool: CorpusDoc[] } {
  const all = [...corpus()];
  for (let i = all.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [all[i], all[j]] = [all[j] as CorpusDoc, all[i] as CorpusDoc];
  }
  return { start: all.slice(0, count), pool: all.slice(count) };
}
