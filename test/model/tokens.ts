import type { Random } from '../chaos/random.js';

/**
 * Every edit the model makes carries a fresh token, so that each piece of text anyone wrote can be found
 * again, and its absence proved, by plain substring search. A token is a letter for who wrote it (`u` a
 * user on a workstation, `c` the colleague in the web editor), a number, and `z`: no token is a substring of
 * another (`u1z` is not in `u11z`), and none holds a character Markdown could read as syntax.
 */
export type Author = 'user' | 'colleague';

export const TOKEN = /\b[uc]\d+z\b/g;

export class Tokens {
  #next = 0;

  take(author: Author): string {
    return `${author === 'user' ? 'u' : 'c'}${++this.#next}z`;
  }
}

/** The tokens in a text, in order of appearance. */
export const tokensIn = (text: string): string[] => text.match(TOKEN) ?? [];

const WORDS = ['river', 'stone', 'lamp', 'orbit', 'maple', 'quartz', 'ember', 'delta', 'harbor', 'violet', 'cobalt', 'signal'];
const CJK = ['同步', '文档', '知识库', '编辑', '段落', 'テスト', '確認', '변경'];

/** A few plain words around a token: letters and spaces only, or (now and then) CJK. */
export function phrase(rng: Random, token: string): string {
  if (rng.chance(0.15)) return `${rng.pick(CJK)}${token}${rng.pick(CJK)}`;
  const words = Array.from({ length: rng.int(0, 2) }, () => rng.pick(WORDS));
  words.splice(rng.int(0, words.length), 0, token);
  return words.join(' ');
}
