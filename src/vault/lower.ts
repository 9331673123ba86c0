import { posix } from 'node:path';
import GithubSlugger from 'github-slugger';
import { encodeLinkPath, linkUses, type LinkProblem, type LoweringProblem, type SourceOf } from '../links/index.js';
import { applyEdits, editOrigins, type SpanEdit } from '../links/rewrite.js';
import { decode, isExternal, splitUrl } from '../links/url.js';
import { findImages } from '../images/find.js';
import { isImageFile } from '../images/media-type.js';
import { factOf } from '../markdown/parse.js';
import { escapeInPlace } from '../markdown/text.js';
import { wikiSyntaxIn } from '../markdown/wiki-syntax.js';
import { embedsImage, wikiText, type WikiRef } from '../markdown/wiki/links.js';
import type { VaultNames } from './names.js';

/*
 * A vault's note as the CommonMark the service reads (the push sends this; the file keeps what it has):
 *   [[Note#Heading|label]]  → [label](Note.md#heading)    (then the links step makes it the document's URL)
 *   ![[diagram.png|300]]    → ![diagram.png](Attachments/diagram.png)   (then the images step uploads it)
 *   ![[Note]]               → [Note](Note.md)             (the service cannot transclude: a link, said once)
 *   > [!tip] Title          → > **Tip:** Title
 *   [[Missing]]             → Missing                     (reported: LINK_BROKEN)
 * Each is replaced in place by text that reads as exactly what the file's own reading shows
 * (wiki-syntax.ts), on the same line: the outline of the file and of what is sent agree, and every line
 * number a report gives is the file's. Markdown links and images the editor resolves by name (`![](shot.png)`
 * with the file in the attachments folder) get the path that reaches the file.
 */

/** A body as sent: its wiki syntax lowered; the links that reach nothing, reported (lines of the body); where each part was written. */
type LoweredBody = {
  readonly markdown: string;
  readonly problems: readonly LoweringProblem[];
  readonly source?: SourceOf;
  /** Embeds of notes, sent as links to them: the run says so once. */
  readonly noteEmbeds: number;
};

type LoweringInput = {
  readonly names: VaultNames;
  /** The Markdown files this run syncs: only they have documents to link to. */
  readonly synced: ReadonlySet<string>;
  /** Why a note that is there is not synced (refused, `publish: false`, a template, excluded...). */
  readonly unsynced?: (path: string) => string;
};

/**
 * A body's wiki syntax, kept by text with the other facts of its parse (src/markdown/parse.ts factOf): a push
 * lowers each body for its links, its anchors, its send and its stale check, often after its tree has given way
 * to other pages' (in the model test's note vaults, a third of the parses were of bodies parsed before).
 */
const wikiSyntaxOf = factOf((tree) => wikiSyntaxIn(tree));

export function lowerBody(body: string, from: string, input: LoweringInput): LoweredBody {
  const { refs, callouts, admonitions, hidden } = wikiSyntaxOf(body);
  const edits: SpanEdit[] = callouts.map((callout) => ({ span: callout, url: bold(callout.label) }));
  // Where an admonition's lines start, what quotes them: a `> ` put in front, or the indentation replaced by it.
  const quoted: number[] = [];
  const indents: SpanEdit[] = [];
  for (const admonition of admonitions) {
    if (admonition.indented) {
      const [marker, ...lines] = indentedAdmonition(body, admonition);
      edits.push(marker as SpanEdit);
      indents.push(...lines);
    } else {
      const fenced = fencedAdmonition(body, admonition);
      edits.push(...fenced.edits);
      quoted.push(...fenced.quoted);
    }
  }
  // What the editor does not show goes (a comment, a block id); its line breaks stay, so every line keeps its
  // number, and a line an admonition quotes inside it is quoted all the same.
  const within = (at: number): boolean => hidden.some((span) => span.start < at && at < span.end);
  const quotes = new Set([...quoted, ...indents.map((edit) => edit.span.start)].filter(within));
  for (const span of hidden) {
    const breaks = [...body.slice(span.start, span.end).matchAll(/\n/g)].map((found) => `\n${quotes.has(span.start + found.index + 1) ? '> ' : ''}`);
    edits.push({ span, url: span.sent ?? breaks.join('') });
  }
  edits.push(...indents.filter((edit) => !within(edit.span.start)));
  const problems: LoweringProblem[] = [];
  let noteEmbeds = 0;
  for (const ref of refs) {
    const lowered = lowerRef(ref, from, input);
    edits.push({ span: ref, url: lowered.markdown });
    if (lowered.problem) problems.push({ line: ref.line, offset: ref.start, target: body.slice(ref.start, ref.end), ...lowered.problem });
    if (lowered.noteEmbed) noteEmbeds += 1;
  }
  edits.push(...byName(body, from, input));
  if (edits.length === 0) return { markdown: body, problems, noteEmbeds };
  const all = withQuotedLines(edits, quoted.filter((at) => !within(at)));
  return { markdown: applyEdits(body, all), problems, noteEmbeds, source: editOrigins(all) };
}

const bold = (label: string): string => `**${escapeInPlace(label, false)}**`;

type Admonition = ReturnType<typeof wikiSyntaxIn>['admonitions'][number];

/** MkDocs's: the marker line becomes the label and title; the body's four-space indent, the quote's `> `; a blank line in it, `>`. */
function indentedAdmonition(body: string, admonition: Admonition): SpanEdit[] {
  const title = /"([^"\n]*)"\s*$/.exec(body.slice(admonition.start, admonition.markerEnd))?.[1]?.trim() ?? '';
  const edits: SpanEdit[] = [{ span: { start: admonition.start, end: admonition.markerEnd }, url: `> ${bold(admonition.label)}${title === '' ? '' : ` ${escapeInPlace(title, false)}`}` }];
  for (let at = admonition.markerEnd + 1; at < admonition.end; at = body.indexOf('\n', at) === -1 ? admonition.end : body.indexOf('\n', at) + 1) {
    const indent = /^( {4}|\t)/.exec(body.slice(at, at + 4))?.[0].length ?? 0;
    edits.push({ span: { start: at, end: at + indent }, url: indent === 0 ? '>' : '> ' });
  }
  return edits;
}

/**
 * `:::`'s: the opening marker becomes the label, the closing line a quote's empty line, and every line between
 * is quoted (`quoted`: where those lines start, given their `> ` once the other edits are known).
 */
function fencedAdmonition(body: string, admonition: Admonition): { readonly edits: SpanEdit[]; readonly quoted: number[] } {
  const quoted: number[] = [];
  for (let at = body.indexOf('\n', admonition.start) + 1; at > 0 && at < admonition.closeStart; at = body.indexOf('\n', at) + 1) quoted.push(at);
  return {
    edits: [
      { span: { start: admonition.start, end: admonition.markerEnd }, url: `> ${bold(admonition.label)}` },
      { span: { start: admonition.closeStart, end: admonition.end }, url: '>' },
    ],
    quoted,
  };
}

/** Each quoted line's `> `; a line that starts with another edit (a link) gets it in front of that edit's text, so edits never overlap. */
function withQuotedLines(edits: readonly SpanEdit[], quoted: readonly number[]): SpanEdit[] {
  const out = [...edits];
  for (const at of quoted) {
    const there = out.findIndex((edit) => edit.span.start === at && edit.span.end > at);
    if (there === -1) out.push({ span: { start: at, end: at }, url: '> ' });
    else out[there] = { span: (out[there] as SpanEdit).span, url: `> ${(out[there] as SpanEdit).url}` };
  }
  return out;
}

type LoweredRef = { readonly markdown: string; readonly problem?: Pick<LinkProblem, 'reason' | 'message'>; readonly noteEmbed?: true };

function lowerRef(ref: WikiRef, from: string, input: LoweringInput): LoweredRef {
  const shown = wikiText(ref);
  // Words that could open a block (`# x`, `1. x`) are escaped wherever they stand: a list item's or a quote's line starts after its marker.
  const text = ref.markup ? shown : escapeInPlace(shown, true);
  const linkTo = (url: string): string => `[${ref.markup ? shown : escapeInPlace(shown, false)}](${url})`;
  const heading = headingOf(ref.fragment);
  if (ref.target === '') return heading === undefined ? { markdown: text } : { markdown: linkTo(`#${heading}`) };
  const found = input.names.resolve(ref.target, from);
  const relative = found === undefined ? undefined : encodeLinkPath(posix.relative(posix.dirname(from), found));
  if (embedsImage(ref)) {
    // Through the images step either way: it uploads the file, or reports why it cannot (a missing one too).
    return { markdown: `![${escapeInPlace(shown, false)}](${relative ?? encodeLinkPath(ref.target)})` };
  }
  if (found === undefined) {
    return { markdown: text, problem: { reason: 'missing', message: `no note or file in the vault is named ${ref.target}${isImageFile(ref.target) || /\.[^./]+$/.test(ref.target) ? '' : ' (nor has it as an alias)'}` } };
  }
  if (!input.synced.has(found)) {
    const why = /\.md$/i.test(found) ? `${found} is not published: ${input.unsynced?.(found) ?? 'it is not one of the synced notes'}` : `${found} is an attachment, and the knowledge base takes no attachments (only images are published, when embedded)`;
    return { markdown: text, problem: { reason: 'not-synced', message: why } };
  }
  return { markdown: linkTo(`${relative ?? ''}${heading === undefined ? '' : `#${heading}`}`), ...(ref.embed ? { noteEmbed: true as const } : {}) };
}

/** The anchor of a heading fragment (`H1#H2`: the last heading named); none for a block (`^id`), whose page is linked. */
function headingOf(fragment: string | undefined): string | undefined {
  const last = fragment?.split('#').filter((part) => part.trim() !== '').at(-1);
  return last === undefined || last.startsWith('^') ? undefined : new GithubSlugger().slug(last);
}

/**
 * Markdown links and images whose relative path reaches nothing, but whose file the editor finds by name
 * (it writes `![](shot.png)` for an attachment kept in another folder): given the path that reaches it.
 */
function byName(body: string, from: string, input: LoweringInput): SpanEdit[] {
  const written = [
    ...findImages(body).flatMap((found) => (found.kind === 'image' && found.markdown && found.span ? [{ url: found.url, span: found.span }] : [])),
    ...linkUses(body, () => ({ kind: 'external' })).flatMap((use) => (use.span ? [{ url: use.url, span: use.span }] : [])),
  ];
  return written.flatMap(({ url, span }) => {
    const { path, fragment } = splitUrl(url.trim());
    const decoded = decode(path);
    if (isExternal(url.trim()) || decoded === undefined || decoded === '' || decoded.startsWith('/') || /^\.\.?\//.test(decoded)) return [];
    const there = posix.normalize(posix.join(posix.dirname(from), decoded));
    if (input.names.exists(there) || input.names.exists(`${there}.md`)) return [];
    const found = input.names.resolve(decoded, from);
    if (found === undefined) return [];
    return [{ span, url: `${encodeLinkPath(posix.relative(posix.dirname(from), found))}${fragment === undefined ? '' : `#${fragment}`}`, destination: true as const }];
  });
}
