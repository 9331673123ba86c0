import type { Code, Definition, Html, Image, ImageReference, Root } from 'mdast';
import { visit } from 'unist-util-visit';
import { destinationSpan, unescapeDestination } from '../links/destination.js';
import type { Span } from '../links/types.js';
import { factOf } from '../markdown/parse.js';

/** An image a Markdown body shows from a URL: where the URL is written, so a push can replace just it. */
export type FoundImage = {
  readonly kind: 'image';
  readonly url: string;
  /** 1-based line in the body. */
  readonly line: number;
  /** The URL's characters in the source; undefined when they cannot be told apart (an unusual escape). */
  readonly span: Span | undefined;
  /** Written as Markdown (`![alt](url)`, a definition), not as HTML (`<img src>`, whose text the service shows). */
  readonly markdown: boolean;
};

/** A fenced code block in a diagram language: the whole block is replaced by its rendered image on push. */
export type FoundDiagram = {
  readonly kind: 'diagram';
  readonly language: string;
  readonly source: string;
  readonly line: number;
  readonly span: Span;
};

export type Found = FoundImage | FoundDiagram;

/** `<img … src="x" …>`, with the value's quotes (or none). */
const IMG_SRC = /<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/**
 * Every image of a body, in source order: inline images, reference-style images (through the definition
 * that holds their URL), `<img src>` in HTML, and (for `diagramLanguages`) fenced diagram sources.
 */
export function findImages(body: string, diagramLanguages: readonly string[] = []): Found[] {
  const diagrams = new Set(diagramLanguages.map((language) => language.toLowerCase()));
  return foundIn(body).filter((found) => found.kind === 'image' || diagrams.has(found.language.toLowerCase()));
}

/** Every image of a body, and every fenced code block with a language (a diagram if its language is one). */
const foundIn = factOf((tree, body): Found[] => {
  const viaDefinition = imageDefinitionIds(tree);
  const found: Found[] = [];
  visit(tree, (node) => {
    switch (node.type) {
      case 'image':
        found.push(imageAt(body, node as Image));
        return;
      case 'definition':
        if (viaDefinition.has((node as Definition).identifier)) found.push(imageAt(body, node as Definition));
        return;
      case 'html':
        found.push(...htmlImages(body, node as Html));
        return;
      case 'code': {
        const code = node as Code;
        const start = code.position?.start.offset;
        const end = code.position?.end.offset;
        if (code.lang && start !== undefined && end !== undefined) {
          found.push({ kind: 'diagram', language: code.lang, source: code.value, line: code.position?.start.line ?? 1, span: { start, end } });
        }
        return;
      }
      default:
        return;
    }
  });
  // In document order: the tree is walked in source order.
  return found;
});

/**
 * The identifiers of definitions that only images use (`![alt][shot]` … `[shot]: img/shot.png`): their URL is an
 * image's, not a link's. A definition that a link uses too stays the links' (it cannot be both).
 */
export function imageDefinitionIds(tree: Root): Set<string> {
  const images = new Set<string>();
  const links = new Set<string>();
  visit(tree, (node) => {
    if (node.type === 'imageReference') images.add((node as ImageReference).identifier);
    else if (node.type === 'linkReference') links.add((node as { identifier: string }).identifier);
  });
  for (const id of links) images.delete(id);
  return images;
}

function imageAt(body: string, node: Image | Definition): FoundImage {
  const span = destinationSpan(body, node);
  const written = span && unescapeDestination(body.slice(span.start, span.end)) === node.url ? span : undefined;
  return { kind: 'image', url: node.url, line: node.position?.start.line ?? 1, span: written, markdown: true };
}

function htmlImages(body: string, node: Html): FoundImage[] {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return [];
  const raw = body.slice(start, end);
  const line = node.position?.start.line ?? 1;
  return [...raw.matchAll(IMG_SRC)].map((match) => {
    const value = match[1] ?? match[2] ?? match[3] ?? '';
    const valueAt = start + (match.index ?? 0) + match[0].length - value.length - (match[3] === undefined ? 1 : 0);
    const linesBefore = raw.slice(0, match.index ?? 0).split('\n').length - 1;
    // A value with a character reference (`&amp;`) differs from the URL it stands for: where to write the URL is unknown.
    const plain = !/&[#A-Za-z0-9]+;/.test(value);
    return { kind: 'image', url: plain ? value : decodeEntities(value), line: line + linesBefore, span: plain ? { start: valueAt, end: valueAt + value.length } : undefined, markdown: false };
  });
}

/** The entities an attribute value of a path carries in practice (for the report; such a URL is not rewritten). */
const decodeEntities = (value: string): string => value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
