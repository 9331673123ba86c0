import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from '../markdown/index.js';
import { headingAnchors } from './anchors.js';
import type { LinkUse } from './rewrite.js';
import type { LinkProblem, LinkTree, Lowering, LoweringProblem, SourceOf } from './types.js';
import { asWritten, columnAt, type WrittenAs } from './written.js';

export type LocalTreeInput = {
  /** The synced root, absolute. */
  readonly root: string;
  readonly synced: ReadonlySet<string>;
  /** A file's text when the caller has it already; otherwise it is read from disk. */
  readonly known?: (path: string) => string | undefined;
  /** A vault's bodies as they are sent (wiki links lowered to Markdown); without it, bodies are CommonMark already. */
  readonly lower?: Lowering;
  /** Why a file that is there is not synced, for the report of a link to it. */
  readonly unsynced?: (path: string) => string;
};

/**
 * A synced file split into the lines its front matter takes and its body as sent (`lower`), with the links
 * the lowering could not make (lines of the body), and what the file has where the body sent has a link.
 */
type FileBody = {
  readonly body: string;
  readonly lineOffset: number;
  readonly unlowered: readonly Omit<LinkProblem, 'path'>[];
  readonly writtenAs?: (use: LinkUse) => WrittenAs;
};

type LocalTree = LinkTree & { readonly bodyOf: (path: string) => FileBody | undefined };

/**
 * The resolver's view of a folder on disk. Paths reaching it are already normalised and inside the
 * root (the resolver rejects the rest), so nothing outside the root is ever looked at; files are read
 * only when a link names one of their anchors, and each once.
 */
export function localTree(input: LocalTreeInput): LocalTree {
  const bodies = new Map<string, FileBody | undefined>();
  const anchors = new Map<string, ReadonlyMap<string, string> | undefined>();
  const bodyOf = (path: string): FileBody | undefined => {
    if (!bodies.has(path)) bodies.set(path, lowered(split(input.known?.(path) ?? readOrUndefined(join(input.root, path))), path, input.lower));
    return bodies.get(path);
  };
  return {
    synced: input.synced,
    exists: (path) => !path.includes('\0') && existsSync(join(input.root, path)),
    ...(input.unsynced ? { unsynced: input.unsynced } : {}),
    anchors(path) {
      if (!anchors.has(path)) {
        const file = input.synced.has(path) ? bodyOf(path) : undefined;
        anchors.set(path, file && headingAnchors(file.body));
      }
      return anchors.get(path);
    },
    bodyOf,
  };
}

function lowered(file: FileBody | undefined, path: string, lower: Lowering | undefined): FileBody | undefined {
  if (!file || !lower) return file;
  const sent = lower(file.body, path);
  const written = file.body;
  return {
    ...file,
    body: sent.markdown,
    unlowered: sent.problems.map((problem) => asReported(written, problem)),
    ...(sent.source ? { writtenAs: writtenThrough(written, sent.source) } : {}),
  };
}

/** A link the lowering could not make, as reported: it is what was written. */
function asReported(body: string, { offset, ...problem }: LoweringProblem): Omit<LinkProblem, 'path'> {
  return { ...problem, ...(offset === undefined ? {} : { column: columnAt(body, offset) }), written: asWritten(problem.target) };
}

/** What the written body has where the lowered one has a link. */
const writtenThrough =
  (body: string, source: SourceOf) =>
  (use: LinkUse): WrittenAs => {
    const { span, made } = source(use.at);
    return { written: asWritten(body.slice(span.start, span.end)), column: columnAt(body, span.start), made };
  };

function split(text: string | undefined): FileBody | undefined {
  if (text === undefined) return undefined;
  try {
    const { frontMatterText, body } = parseDocument(text);
    return { body, lineOffset: frontMatterText.split('\n').length - 1, unlowered: [] };
  } catch {
    return undefined; // bad front matter: reported as that file's own problem, not as a link problem
  }
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
