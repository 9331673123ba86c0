import type { Random } from '../chaos/random.js';
import { editDocument, type Edit } from '../model/mutate.js';
import { tokensIn, type Author, type Tokens } from '../model/tokens.js';
import { isOpaque } from './pages.js';

/** Who wrote something: a machine's user (by the machine's name) or the colleague in the web editor. */
export type Side = string;
export const COLLEAGUE: Side = 'colleague';

/**
 * What the colleague does in the web editor: word edits in paragraphs, new paragraphs (some with bold, a link or
 * inline code), deleted blocks, list items, and on pages that have them, lines inside code blocks.
 */
const COLLEAGUE_KINDS = { words: 6, 'new-paragraph': 3, 'delete-block': 1, 'nested-item': 1.5, append: 0.5, 'code-line': 2 } as const;
/**
 * What a user does to a prose page in their editor: its words, paragraphs and formatting, its front matter and
 * line endings, but no code block or table (those would make it another kind of page). On any other page, every
 * edit the model knows (mutate.ts), code, tables and HTML included.
 */
const PROSE_USER_KINDS = { words: 5, 'new-paragraph': 3, append: 2, 'delete-block': 1.5, 'nested-item': 1.5, 'add-format': 2, escape: 0.7, autolink: 0.5, rewrap: 0.7, 'front-matter': 0.7, 'line-endings': 0.5 } as const;

/**
 * One edit of a page by `author`: for the colleague a kind from their repertoire (code only where the page has
 * some), for a user any kind on an opaque page and a prose kind on a prose page. Words in a paragraph when the
 * kind drawn has nothing to act on; undefined when not even that does.
 */
export function editFor(text: string, author: Author, rng: Random, tokens: Tokens): Edit | undefined {
  const opaque = isOpaque(text);
  if (author === 'user' && opaque) return editDocument(text, 'user', rng, tokens);
  const kinds: Readonly<Record<string, number>> = author === 'user' ? PROSE_USER_KINDS : { ...COLLEAGUE_KINDS, 'code-line': opaque ? COLLEAGUE_KINDS['code-line'] : 0 };
  return editDocument(text, author, rng, tokens, rng.weighted(kinds)) ?? editDocument(text, author, rng, tokens, 'words');
}

/** Everything written during a soak, by whom, and what was taken out again (by its own author or anyone else). */
export class EditLog {
  /** Each token written, with its author and the kind of edit that wrote it. */
  readonly written = new Map<string, { readonly author: Side; readonly kind: string }>();
  /** Tokens someone removed on purpose (a deleted paragraph, a deleted file): not expected anywhere afterwards. */
  readonly removed = new Set<string>();
  /** Operations by side and kind (`edit:words`, `create`, `rename`…). */
  readonly ops = new Map<Side, Map<string, number>>();

  count(side: Side, op: string): void {
    const byKind = this.ops.get(side) ?? new Map<string, number>();
    byKind.set(op, (byKind.get(op) ?? 0) + 1);
    this.ops.set(side, byKind);
  }

  /** `side` changed `before` into `after` with `edit` (undefined: a delete or a move, which writes nothing). */
  record(side: Side, before: string, after: string, edit?: Edit): void {
    for (const snippet of edit?.snippets ?? []) this.written.set(snippet.token, { author: side, kind: snippet.kind });
    for (const token of tokensIn(before)) if (!after.includes(token)) this.removed.add(token);
  }

  /** The tokens that must be found after settling: written, and not removed by anyone since. */
  expected(): string[] {
    return [...this.written.keys()].filter((token) => !this.removed.has(token));
  }

  /** Operations of a side (all kinds, or those whose name starts with `prefix`). */
  total(side: Side, prefix = ''): number {
    let sum = 0;
    for (const [op, n] of this.ops.get(side) ?? []) if (op.startsWith(prefix)) sum += n;
    return sum;
  }
}
