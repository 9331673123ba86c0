import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Random } from '../chaos/random.js';
import { documentTitle } from '../../src/sync/content/document-text.js';

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

/**
 * A corpus document as a vault note: links to other documents by name (some with a label or a heading), an
 * embed of a note and of an image, and a callout, placed after its first paragraph and at its end. Names are
 * other corpus files' (they may not be in a seed's world: then the links are broken, and reported).
 */
function asVaultNote(doc: CorpusDoc, index: number, all: readonly CorpusDoc[]): CorpusDoc {
  const name = (k: number): string => (all[(index + k) % all.length] as CorpusDoc).name.replace(/\.md$/, '');
  const see = `See [[${name(1)}]], [[${name(2)}|the ${name(2)} notes]] and [[${name(3)}#Install]]; ![[${name(4)}]] says more.`;
  const callout =
    index % 4 === 1
      ? `:::tip Related\nRead [[${name(5)}]] first, then ![[diagram.png|300]].\n:::`
      : `> [!note]${index % 2 === 0 ? '-' : ''} Related\n> Read [[${name(5)}]] first, then ![[diagram.png|300]].`;
  const blocks = doc.text.split(/\n\n/);
  const at = Math.min(2, blocks.length);
  return { ...doc, text: [...blocks.slice(0, at), see, callout, ...blocks.slice(at)].join('\n\n').replace(/\n*$/, `\n\n${index % 3 === 0 ? '[[' + name(6) + ']] closes it.' : 'The end.'}\n`) };
}

/** The documents a seed's world starts from, and the pool later creates draw from: disjoint, shuffled by the seed. */
export function draw(rng: Random, count: number, vault = false): { readonly start: CorpusDoc[]; readonly pool: CorpusDoc[] } {
  const all = vault ? corpus().map((doc, i, docs) => asVaultNote(doc, i, docs)) : [...corpus()];
  for (let i = all.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [all[i], all[j]] = [all[j] as CorpusDoc, all[i] as CorpusDoc];
  }
  return { start: all.slice(0, count), pool: all.slice(count) };
}
