import type { Random } from './random.js';

/**
 * Document texts for the chaos test: a heading and plain paragraphs. Every paragraph and every edit
 * carries a fresh token (`t17`), so that every version of every document is distinct and can be found
 * again by its body alone. The heading (the document's title) is never edited: titles are unique, so
 * a title that turns up twice remotely can only be a duplicate made by kbsync.
 */

const WORDS = ['river', 'stone', 'lamp', 'orbit', 'maple', 'quartz', 'ember', 'delta', 'harbor', 'violet', 'cobalt', 'meadow', 'signal', 'lattice'];

export class Texts {
  readonly #rng: Random;
  #token = 0;

  constructor(rng: Random) {
    this.#rng = rng;
  }

  token(): string {
    return `t${++this.#token}`;
  }

  paragraph(): string {
    const words = Array.from({ length: this.#rng.int(2, 6) }, () => this.#rng.pick(WORDS));
    const sentence = [...words, this.token()].join(' ');
    return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
  }

  /** A new document: heading, one to three paragraphs, now and then front matter (which is never synced as body). */
  document(title: string): string {
    const head = this.#rng.chance(0.2) ? `---\ntags: [chaos]\nnote: ${this.token()}\n---\n` : '';
    const paragraphs = Array.from({ length: this.#rng.int(1, 3) }, () => this.paragraph());
    return `${head}# ${title}\n\n${paragraphs.join('\n\n')}\n`;
  }

  /** One edit of a body: replace, append to the last paragraph, insert or remove a paragraph. Returns the new text and what was done. */
  edit(text: string): { readonly text: string; readonly what: string } {
    const head = /^---\n[\s\S]*?\n---\n/.exec(text)?.[0] ?? '';
    const blocks = text
      .slice(head.length)
      .trim()
      .split(/\n{2,}/)
      .filter((block) => block !== '');
    const paragraphs = blocks.length - 1; // blocks[0] is the heading
    const kind = this.#rng.weighted({ replace: 3, append: 3, insert: 2, remove: paragraphs > 1 ? 1 : 0 });
    let what: string;
    if (kind === 'append' && paragraphs > 0) {
      const token = this.token();
      blocks[blocks.length - 1] = `${(blocks.at(-1) ?? '').replace(/\.$/, '')} and ${token}.`;
      what = `append ${token}`;
    } else if (kind === 'remove') {
      const at = this.#rng.int(1, paragraphs);
      blocks.splice(at, 1);
      what = `remove paragraph ${at}`;
    } else if (kind === 'replace' && paragraphs > 0) {
      const at = this.#rng.int(1, paragraphs);
      blocks[at] = this.paragraph();
      what = `replace paragraph ${at}`;
    } else {
      const at = this.#rng.int(1, blocks.length);
      blocks.splice(at, 0, this.paragraph());
      what = `insert paragraph at ${at}`;
    }
    return { text: `${head}${blocks.join('\n\n')}\n`, what };
  }
}
