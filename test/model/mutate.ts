import type { Nodes, Parents, Root, RootContent } from 'mdast';
import type { Random } from '../chaos/random.js';
import { parseMarkdown } from '../../src/emulator/markdown/parse.js';
import { phrase, type Author, type Tokens } from './tokens.js';

/**
 * The model's edits: one change to one Markdown construct of a real document, the way a person makes it in
 * an editor (a user on a workstation) or in the web editor (the colleague, who edits the document's Markdown
 * as the service holds it, formatting included). Each edit that adds text carries a fresh token and says
 * which exact text (a snippet) must from then on be found wherever that version of the document is.
 */
export type Snippet = {
  readonly token: string;
  /** The text as written: it must stand exactly so in the knowledge base once published (line endings aside). */
  readonly text: string;
  readonly kind: string;
  /**
   * A colleague's edit of plain words only: a machine that pulls it must come to hold exactly `pulled` in its
   * file (the block as the colleague left it), or say FORMATTING_SIMPLIFIED (invariant 4).
   */
  readonly pulled?: string;
  /** The block before the colleague's edit: a file that never held it so (one made from a plain reading) has no formatting to keep. */
  readonly original?: string;
};

export type Edit = { readonly text: string; readonly what: string; readonly snippets: readonly Snippet[] };

type Ctx = {
  readonly head: string;
  readonly body: string;
  readonly tree: Root;
  readonly eol: string;
  readonly rng: Random;
  readonly author: Author;
  readonly token: () => string;
  /** The heading the document's title comes from: never edited, so titles stay unique. */
  readonly titleHeading: Nodes | undefined;
};

type Mutation = (ctx: Ctx) => Edit | undefined;

const FRONT_MATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * A body as its editors (a colleague in the web editor, a user at a workstation) see it: CommonMark + GFM, the
 * service's reading. The emulator's parse is that reading, and it keeps the trees of the texts it parsed last,
 * which are often the texts edited next: a shared tree, read here, never changed.
 */
export const parse = (body: string): Root => parseMarkdown(body);

const start = (node: Nodes): number => node.position?.start.offset ?? 0;
const end = (node: Nodes): number => node.position?.end.offset ?? 0;

/** Every node with its parent, in document order. */
function walk(tree: Root): { node: Nodes; parent: Parents | undefined; depth: number }[] {
  const out: { node: Nodes; parent: Parents | undefined; depth: number }[] = [];
  const visit = (node: Nodes, parent: Parents | undefined, depth: number): void => {
    out.push({ node, parent, depth });
    if ('children' in node) for (const child of node.children) visit(child as Nodes, node, depth + 1);
  };
  visit(tree, undefined, 0);
  return out;
}

const nodesOf = <T extends Nodes['type']>(ctx: Ctx, type: T): Extract<Nodes, { type: T }>[] =>
  walk(ctx.tree)
    .map((entry) => entry.node)
    .filter((node): node is Extract<Nodes, { type: T }> => node.type === type && node.position !== undefined);

/** The body with `from`..`to` replaced. */
const splice = (ctx: Ctx, from: number, to: number, insert: string): string => ctx.head + ctx.body.slice(0, from) + insert + ctx.body.slice(to);

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number): number => {
  const newline = text.indexOf('\n', at);
  const end = newline < 0 ? text.length : newline;
  return text[end - 1] === '\r' ? end - 1 : end;
};

/** Text leaves of running text (paragraphs, headings, cells), written exactly as they read, outside the title and links. */
function textLeaves(ctx: Ctx, inside: ReadonlySet<string> = new Set(['paragraph', 'heading', 'emphasis', 'strong'])) {
  const title = ctx.titleHeading;
  return walk(ctx.tree).filter(({ node, parent }) => {
    if (node.type !== 'text' || !parent || !inside.has(parent.type) || !node.position) return false;
    if (title && start(node) >= start(title) && end(node) <= end(title)) return false;
    return ctx.body.slice(start(node), end(node)) === node.value && /\S/.test(node.value);
  });
}

/** Offsets inside a leaf where a space stands: a word boundary, where words can go without joining others. */
function spacesIn(ctx: Ctx, node: Nodes): number[] {
  const out: number[] = [];
  for (let at = start(node) + 1; at < end(node) - 1; at++) if (ctx.body[at] === ' ' && ctx.body[at - 1] !== ' ' && ctx.body[at + 1] !== ' ') out.push(at);
  return out;
}

/** A space between two words of a paragraph, drawn at random (undefined: none). */
function spaceInParagraph(ctx: Ctx): number | undefined {
  const leaves = textLeaves(ctx, new Set(['paragraph']));
  if (leaves.length === 0) return undefined;
  const spaces = spacesIn(ctx, ctx.rng.pick(leaves).node);
  return spaces.length === 0 ? undefined : ctx.rng.pick(spaces);
}

/** The top-level block holding an offset. */
const blockAt = (ctx: Ctx, offset: number): RootContent | undefined => ctx.tree.children.find((node) => start(node) <= offset && offset < end(node));

/** A snippet a pull must reproduce exactly: the whole block, when nothing in it reads differently once published (relative links, images). */
function pulledBlock(ctx: Ctx, text: string, offset: number): Pick<Snippet, 'pulled' | 'original'> {
  if (ctx.author !== 'colleague') return {};
  const block = blockAt(ctx, offset);
  if (!block || block.type === 'list' || block.type === 'table') return {};
  const kinds = walk({ type: 'root', children: [block] }).map((entry) => entry.node);
  if (kinds.some((node) => node.type === 'image' || node.type === 'imageReference' || node.type === 'html' || node.type === 'footnoteReference' || (node.type === 'link' && !/^https?:/i.test(node.url)))) return {};
  if (kinds.some((node) => node.type === 'break')) return {};
  const bodyStart = ctx.head.length;
  const delta = text.length - (ctx.head.length + ctx.body.length);
  return { pulled: text.slice(bodyStart + start(block), bodyStart + end(block) + delta), original: ctx.body.slice(start(block), end(block)) };
}

const MUTATIONS: Readonly<Record<string, { readonly weight: Readonly<Record<Author, number>>; readonly vaultOnly?: true; readonly run: Mutation }>> = {
  'code-line': {
    weight: { user: 4, colleague: 4 },
    run(ctx) {
      const code = nodesOf(ctx, 'code');
      if (code.length === 0) return undefined;
      const node = ctx.rng.pick(code);
      const source = ctx.body.slice(start(node), end(node));
      const fenced = /^[ \t]*(```|~~~)/.test(source);
      // Line starts within the block; a new line goes after the opening fence or any content line, never after the closing fence.
      const starts = [start(node)];
      for (let at = ctx.body.indexOf('\n', start(node)); at >= 0 && at + 1 < end(node); at = ctx.body.indexOf('\n', at + 1)) starts.push(at + 1);
      const count = fenced ? Math.max(1, starts.length - 1) : starts.length;
      const after = ctx.rng.int(0, count - 1);
      const lineAt = starts[after] ?? start(node);
      const indent = /^[ \t]*/.exec(ctx.body.slice(fenced ? start(node) : lineAt))?.[0] ?? '';
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      const at = lineEnd(ctx.body, lineAt);
      return { text: splice(ctx, at, at, `${ctx.eol}${indent}${words}`), what: `code line "${words}"`, snippets: [{ token, text: words, kind: 'code' }] };
    },
  },
  'fence-info': {
    weight: { user: 1.5, colleague: 1 },
    run(ctx) {
      const fenced = nodesOf(ctx, 'code').filter((node) => /^[ \t]*(```|~~~)/.test(ctx.body.slice(start(node), end(node))));
      if (fenced.length === 0) return undefined;
      const node = ctx.rng.pick(fenced);
      const open = /^([ \t]*)(`{3,}|~{3,})([^\r\n]*)/.exec(ctx.body.slice(start(node)));
      if (!open) return undefined;
      const token = ctx.token();
      const lang = (open[3] ?? '').trim().split(/\s+/)[0] || 'text';
      const info = `${lang} title=${token}`;
      const from = start(node) + (open[1] ?? '').length + (open[2] ?? '').length;
      const to = start(node) + open[0].length;
      return { text: splice(ctx, from, to, info), what: `fence info "${info}"`, snippets: [{ token, text: `${open[2]}${info}`, kind: 'fence' }] };
    },
  },
  'table-cell': {
    weight: { user: 3, colleague: 3 },
    run(ctx) {
      const tables = nodesOf(ctx, 'table');
      if (tables.length === 0) return undefined;
      const table = ctx.rng.pick(tables);
      const rows = table.children.slice(1).filter((row) => {
        const text = ctx.body.slice(start(row), end(row));
        return !text.includes('\\|') && !text.includes('`') && !text.includes('\n');
      });
      if (rows.length === 0) return undefined;
      const row = ctx.rng.pick(rows);
      const cells = row.children.filter((cell) => cell.position && end(cell) > start(cell));
      if (cells.length === 0) return undefined;
      const cell = ctx.rng.pick(cells);
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      // At the end of the cell's text: a cell's source runs from its pipe to the next one.
      const source = ctx.body.slice(start(cell), end(cell));
      const at = start(cell) + source.replace(/\|?\s*$/, '').length;
      const inserted = source.trim().replace(/^\|/, '').trim() === '' ? ` ${words}` : ` ${words}`;
      return { text: splice(ctx, at, at, inserted), what: `table cell "${words}"`, snippets: [{ token, text: words, kind: 'table' }] };
    },
  },
  'link-url': {
    weight: { user: 2, colleague: 1 },
    run(ctx) {
      const links = nodesOf(ctx, 'link').filter((node) => /^https?:/i.test(node.url) && ctx.body.slice(start(node), end(node)).endsWith(')'));
      const candidates = links.filter((node) => ctx.body.slice(start(node), end(node)).includes(`](${node.url}`));
      if (candidates.length === 0) return undefined;
      const node = ctx.rng.pick(candidates);
      const source = ctx.body.slice(start(node), end(node));
      const token = ctx.token();
      const url = `https://example.com/${token}`;
      const at = start(node) + source.indexOf(`](${node.url}`) + 2;
      return { text: splice(ctx, at, at + node.url.length, url), what: `link URL ${url}`, snippets: [{ token, text: `(${url}`, kind: 'link-url' }] };
    },
  },
  'add-format': {
    weight: { user: 3, colleague: 2 },
    run(ctx) {
      const leaves = textLeaves(ctx, new Set(['paragraph']));
      if (leaves.length === 0) return undefined;
      const { node } = ctx.rng.pick(leaves);
      const spaces = spacesIn(ctx, node);
      const at = spaces.length > 0 ? ctx.rng.pick(spaces) + 1 : start(node);
      const token = ctx.token();
      const [open, close] = ctx.rng.pick([['**', '**'], ['*', '*'], ['`', '`'], ['~~', '~~']] as const);
      const text = `${open}${phrase(ctx.rng, token)}${close}`;
      return { text: splice(ctx, at, at, `${text} `), what: `formatted "${text}"`, snippets: [{ token, text, kind: 'format' }] };
    },
  },
  html: {
    weight: { user: 1.5, colleague: 1 },
    run(ctx) {
      const blocks = ctx.tree.children.filter((node) => node.type === 'html' && node.position);
      if (blocks.length === 0) return undefined;
      const node = ctx.rng.pick(blocks);
      const token = ctx.token();
      const inserted = `<!-- ${phrase(ctx.rng, token)} -->`;
      const at = lineEnd(ctx.body, start(node));
      return { text: splice(ctx, at, at, ` ${inserted}`), what: `HTML "${inserted}"`, snippets: [{ token, text: inserted, kind: 'html' }] };
    },
  },
  words: {
    weight: { user: 5, colleague: 6 },
    run(ctx) {
      const leaves = textLeaves(ctx);
      if (leaves.length === 0) return undefined;
      const { node, parent } = ctx.rng.pick(leaves);
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      // Inside running text, or right outside the formatting next to it (a colleague typing after a bold word).
      const siblings = parent && 'children' in parent ? (parent.children as Nodes[]) : [];
      const formatted = siblings.filter((sibling) => sibling !== node && ['emphasis', 'strong', 'inlineCode', 'delete'].includes(sibling.type) && sibling.position);
      let at: number;
      let inserted: string;
      if (formatted.length > 0 && ctx.rng.chance(0.4)) {
        const target = ctx.rng.pick(formatted);
        const after = ctx.rng.chance(0.6);
        at = after ? end(target) : start(target);
        inserted = after ? ` ${words}` : `${words} `;
      } else {
        const spaces = spacesIn(ctx, node);
        if (spaces.length === 0) return undefined;
        at = ctx.rng.pick(spaces);
        inserted = ` ${words}`;
      }
      const text = splice(ctx, at, at, inserted);
      return { text, what: `words "${words}"`, snippets: [{ token, text: words, kind: 'words', ...pulledBlock(ctx, text, at) }] };
    },
  },
  escape: {
    weight: { user: 1, colleague: 1 },
    run(ctx) {
      const at = spaceInParagraph(ctx);
      if (at === undefined) return undefined;
      const token = ctx.token();
      const text = `\\[${token}\\]`;
      const after = splice(ctx, at, at, ` ${text}`);
      return { text: after, what: `escaped "${text}"`, snippets: [{ token, text, kind: 'escape', ...pulledBlock(ctx, after, at) }] };
    },
  },
  'reference-link': {
    weight: { user: 1, colleague: 0 },
    run(ctx) {
      const definitions = nodesOf(ctx, 'definition');
      const leaves = textLeaves(ctx, new Set(['paragraph']));
      if (definitions.length === 0 || leaves.length === 0) return undefined;
      const definition = ctx.rng.pick(definitions);
      const { node } = ctx.rng.pick(leaves);
      const spaces = spacesIn(ctx, node);
      if (spaces.length === 0) return undefined;
      const at = ctx.rng.pick(spaces);
      const token = ctx.token();
      const label = definition.label ?? definition.identifier;
      const text = `[${phrase(ctx.rng, token)}][${label}]`;
      return { text: splice(ctx, at, at, ` ${text}`), what: `reference link ${text}`, snippets: [{ token, text, kind: 'reference' }] };
    },
  },
  autolink: {
    weight: { user: 0.7, colleague: 0.3 },
    run(ctx) {
      const at = spaceInParagraph(ctx);
      if (at === undefined) return undefined;
      const token = ctx.token();
      const text = `<https://example.com/${token}>`;
      return { text: splice(ctx, at, at, ` ${text}`), what: `autolink ${text}`, snippets: [{ token, text, kind: 'autolink' }] };
    },
  },
  'nested-item': {
    weight: { user: 1.5, colleague: 1 },
    run(ctx) {
      const items = nodesOf(ctx, 'listItem').filter((item) => item.children[0]?.type === 'paragraph');
      if (items.length === 0) return undefined;
      const item = ctx.rng.pick(items);
      const first = item.children[0] as Nodes;
      const contentColumn = start(first) - lineStart(ctx.body, start(first));
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      const at = end(first);
      const line = `${' '.repeat(contentColumn)}- ${words}`;
      return { text: splice(ctx, at, at, `${ctx.eol}${ctx.eol}${line}`), what: `nested item "${words}"`, snippets: [{ token, text: `- ${words}`, kind: 'nested-item' }] };
    },
  },
  append: {
    weight: { user: 3, colleague: 1 },
    run(ctx) {
      const last = ctx.tree.children.at(-1);
      if (last?.type !== 'paragraph') return undefined;
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      const at = end(last);
      return { text: splice(ctx, at, at, ` ${words}`), what: `appended "${words}"`, snippets: [{ token, text: words, kind: 'append' }] };
    },
  },
  // A note editor's comment, in a paragraph or a block of its own: a vault never sends it, and keeps it in the file
  // whatever a colleague does around it. Drawn in a vault only (weight 0 elsewhere leaves every other seed's draws as they were).
  comment: {
    weight: { user: 3, colleague: 0 },
    vaultOnly: true,
    run(ctx) {
      const paragraphs = ctx.tree.children.filter((node) => node.type === 'paragraph' && node.position && node !== ctx.titleHeading);
      const token = ctx.token();
      const comment = `%%${phrase(ctx.rng, token)}%%`;
      if (paragraphs.length > 0 && ctx.rng.chance(0.6)) {
        const leaves = textLeaves(ctx, new Set(['paragraph']));
        const spaces = leaves.length > 0 ? spacesIn(ctx, ctx.rng.pick(leaves).node) : [];
        const at = spaces.length > 0 ? ctx.rng.pick(spaces) : end(ctx.rng.pick(paragraphs));
        return { text: splice(ctx, at, at, ` ${comment}`), what: `comment "${comment}"`, snippets: [{ token, text: comment, kind: 'comment' }] };
      }
      const blocks = ctx.tree.children.filter((node) => node.position && node !== ctx.titleHeading);
      const at = blocks.length > 0 ? end(ctx.rng.pick(blocks)) : ctx.body.length;
      return { text: splice(ctx, at, at, `${ctx.eol}${ctx.eol}${comment}${ctx.eol}`), what: `comment block "${comment}"`, snippets: [{ token, text: comment, kind: 'comment' }] };
    },
  },
  'new-paragraph': {
    weight: { user: 3, colleague: 3 },
    run(ctx) {
      const blocks = ctx.tree.children.filter((node) => node.position && node !== ctx.titleHeading);
      const after = blocks.length > 0 && ctx.rng.chance(0.9) ? ctx.rng.pick(blocks) : undefined;
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      const paragraph =
        ctx.author === 'colleague' && ctx.rng.chance(0.6)
          ? ctx.rng.pick([`**${words}** and more`, `See [${words}](https://example.com/${token}) now`, `Run \`${words}\` first`, `*${words}* said so`])
          : `New ${words} here.`;
      const at = after ? end(after) : 0;
      const text = after ? splice(ctx, at, at, `${ctx.eol}${ctx.eol}${paragraph}`) : splice(ctx, 0, 0, `${paragraph}${ctx.eol}${ctx.eol}`);
      return { text, what: `new paragraph "${paragraph}"`, snippets: [{ token, text: paragraph, kind: 'paragraph' }] };
    },
  },
  'new-code': {
    weight: { user: 1, colleague: 1 },
    run(ctx) {
      const blocks = ctx.tree.children.filter((node) => node.position && node.type !== 'list');
      if (blocks.length === 0) return undefined;
      const after = ctx.rng.pick(blocks);
      const token = ctx.token();
      const words = phrase(ctx.rng, token);
      const fence = ['```sh', words, '```'].join(ctx.eol);
      const at = end(after);
      return { text: splice(ctx, at, at, `${ctx.eol}${ctx.eol}${fence}`), what: `new code block "${words}"`, snippets: [{ token, text: words, kind: 'code' }] };
    },
  },
  'delete-block': {
    weight: { user: 2, colleague: 1.5 },
    run(ctx) {
      const blocks = ctx.tree.children.filter((node) => node.position && node !== ctx.titleHeading && node.type !== 'definition');
      if (blocks.length < 3) return undefined;
      const node = ctx.rng.pick(blocks);
      const index = ctx.tree.children.indexOf(node);
      const next = ctx.tree.children[index + 1];
      const to = next ? start(next) : ctx.body.length;
      const from = next ? start(node) : lineStart(ctx.body, start(node));
      const text = next ? splice(ctx, from, to, '') : ctx.head + ctx.body.slice(0, from).replace(/\s+$/, '') + ctx.eol;
      return { text, what: `deleted a ${node.type}`, snippets: [] };
    },
  },
  'front-matter': {
    weight: { user: 1, colleague: 0 },
    run(ctx) {
      const token = ctx.token();
      if (ctx.head === '') return { text: `---${ctx.eol}tags: [model, ${token}]${ctx.eol}---${ctx.eol}${ctx.body}`, what: 'front matter added', snippets: [{ token, text: token, kind: 'front-matter' }] };
      const close = ctx.head.search(/\r?\n---[ \t]*(?:\r?\n|$)/);
      if (close < 0) return undefined;
      const text = `${ctx.head.slice(0, close)}${ctx.eol}note: ${token}${ctx.head.slice(close)}${ctx.body}`;
      return { text, what: 'front matter line', snippets: [{ token, text: token, kind: 'front-matter' }] };
    },
  },
  'line-endings': {
    weight: { user: 0.7, colleague: 0 },
    run(ctx) {
      const lf = (ctx.head + ctx.body).replace(/\r\n/g, '\n');
      const kind = ctx.rng.pick(['crlf', 'lf', 'mixed'] as const);
      if (kind === 'lf') return { text: lf, what: 'line endings LF', snippets: [] };
      if (kind === 'crlf') return { text: lf.replace(/\n/g, '\r\n'), what: 'line endings CRLF', snippets: [] };
      // Some lines CRLF, some LF: a file edited on two systems.
      const lines = lf.split('\n');
      return { text: lines.map((line, i) => (i < lines.length - 1 ? line + (ctx.rng.chance(0.5) ? '\r\n' : '\n') : line)).join(''), what: 'line endings mixed', snippets: [] };
    },
  },
  rewrap: {
    weight: { user: 1, colleague: 0 },
    run(ctx) {
      const leaves = textLeaves(ctx, new Set(['paragraph']));
      const candidates = leaves.filter(({ node }) => spacesIn(ctx, node).length > 0);
      if (candidates.length === 0) return undefined;
      const { node } = ctx.rng.pick(candidates);
      const at = ctx.rng.pick(spacesIn(ctx, node));
      const indent = ' '.repeat(Math.max(0, start(blockAt(ctx, at) ?? node) - lineStart(ctx.body, start(blockAt(ctx, at) ?? node))));
      const paragraphIndent = /^[ \t]*/.exec(ctx.body.slice(lineStart(ctx.body, at)))?.[0] ?? '';
      const continuation = paragraphIndent.length > indent.length ? paragraphIndent : indent;
      return { text: splice(ctx, at, at + 1, `${ctx.eol}${continuation}`), what: 'rewrapped a line', snippets: [] };
    },
  },
};

/** One random edit of a document (undefined when none of the drawn kinds applies to it). */
export function editDocument(text: string, author: Author, rng: Random, tokens: Tokens, only?: string, vault = false): Edit | undefined {
  const head = FRONT_MATTER.exec(text)?.[0] ?? '';
  const body = text.slice(head.length);
  const tree = parse(body);
  const crlf = (body.match(/\r\n/g) ?? []).length;
  const lf = (body.match(/\n/g) ?? []).length - crlf;
  const titleHeading = tree.children.find((node) => node.type === 'heading');
  const ctx: Ctx = { head, body, tree, eol: crlf > lf ? '\r\n' : '\n', rng, author, token: () => tokens.take(author), titleHeading };
  const weights = Object.fromEntries(Object.entries(MUTATIONS).map(([kind, m]) => [kind, (only === undefined || only === kind) && (vault || !m.vaultOnly) ? m.weight[author] : 0]));
  for (let attempt = 0; attempt < 6; attempt++) {
    const kind = rng.weighted(weights);
    if ((weights[kind] ?? 0) === 0) return undefined;
    const edit = MUTATIONS[kind]?.run(ctx);
    if (edit && edit.text !== text) return { ...edit, what: `${kind}: ${edit.what}` };
  }
  return undefined;
}

export const MUTATION_KINDS = Object.keys(MUTATIONS);
