import { resolveLink } from './resolve.js';
import { applyEdits, linkProblems, linkUses, problemAt, rewriteLinks, type LinkUse, type SpanEdit } from './rewrite.js';
import { localTree, type LocalTreeInput } from './tree.js';
import type { SentImage } from '../images/types.js';
import type { LinkProblem, LinkSite } from './types.js';

/** What a link check covered (`kbsync sync --check-links`): files and links read, those to other sites (left alone), and the broken ones. */
export type LinkCheck = { readonly files: number; readonly links: number; readonly external: number; readonly problems: LinkProblem[] };

export type LinkerInput = LocalTreeInput & {
  readonly site: LinkSite;
  /** The URL of a synced file's document, when it has one. */
  readonly urlOf: (path: string) => string | undefined;
  /** Rewrite links to synced files (config `links`); false leaves them as written. */
  readonly links?: boolean;
  /** The run's images: a pushed body's local images become their published URLs. */
  readonly images?: BodyImages;
};

/** What the linker asks of src/images' publisher: its edits of the same body, applied with the links' in one pass. */
export type BodyImages = {
  edits(body: string, path: string): SpanEdit[];
  sentImages(path: string): readonly SentImage[] | undefined;
};

/**
 * The links of one run: rewrites each body sent (a relative or site-absolute link to a synced file
 * becomes its document's URL), remembers which targets had no document yet, and reports the links
 * that cannot work. The service reads a body back as plain text, so a link's URL never shows in a
 * comparison: a body sent before its targets had documents must be sent again by name (`resend`).
 */
export type Linker = {
  rewrite(body: string, path: string): string;
  /** The images the last rewrite of this path's body carries (undefined: images are not published this run). */
  sentImages(path: string): readonly SentImage[] | undefined;
  /** Send this file's body even though the service's plain-text reading of it agrees. */
  mustResend(path: string): boolean;
  /** The synced files the last rewrite of this path's body linked to that had no document yet. */
  waitingFor(path: string): ReadonlySet<string>;
  /** The same links with `paths` marked to be sent again. */
  resending(paths: ReadonlySet<string>): Linker;
  /**
   * Files whose document holds links that were, or may have been, sent before their target had a
   * document: their own rewrite found a target waiting, or they link to a file whose URL is `fresh` and
   * their body was not `sent` with that URL in this run (not sent, or sent with the URL the file had then).
   */
  stale(fresh: ReadonlySet<string>, sent: (path: string) => boolean): string[];
  /** The broken links of these files (front matter lines counted). */
  problems(paths: Iterable<string>): LinkProblem[];
  /** The links of these files checked: how many files and links, and the broken ones (problems). */
  check(paths: Iterable<string>): LinkCheck;
  /** Links of the synced files to `gone` (files whose documents this run deletes): they die with the document. */
  orphaned(gone: ReadonlySet<string>): LinkProblem[];
};

export function createLinker(input: LinkerInput): Linker {
  const tree = localTree(input);
  const linking = input.links !== false;
  const uses = new Map<string, LinkUse[]>();
  const usesOf = (path: string, body: string): LinkUse[] => linkUses(body, (url) => resolveLink(url, path, tree, input.site));
  /** Per file rewritten this run: the targets whose URL went in, and that URL. */
  const linked = new Map<string, ReadonlyMap<string, string>>();
  const waiting = new Map<string, ReadonlySet<string>>();
  /** Every file's links read and resolved once (cached with the rewrites'), the broken ones reported. */
  const check = (paths: Iterable<string>): LinkCheck => {
    const checked = { files: 0, links: 0, external: 0, problems: [] as LinkProblem[] };
    if (!linking) return checked;
    for (const path of paths) {
      const file = tree.bodyOf(path);
      if (!file) continue;
      const found = fileUses(uses, path, () => usesOf(path, file.body));
      checked.files += 1;
      // A link the lowering could not make (a wiki link to nothing) is a link written, sent as its words.
      checked.links += found.length + file.unlowered.length;
      checked.external += found.filter((use) => use.outcome.kind === 'external').length;
      checked.problems.push(...file.unlowered.map((problem) => ({ ...problem, path, line: problem.line + file.lineOffset })));
      checked.problems.push(...linkProblems(path, found, file.lineOffset, file.writtenAs));
    }
    return checked;
  };
  const make = (resend: ReadonlySet<string>): Linker => ({
    rewrite(written, path) {
      const body = input.lower ? input.lower(written, path).markdown : written;
      // One parse of the body serves both: the images' edits and the links' are applied together.
      const imageEdits = input.images?.edits(body, path) ?? [];
      if (!linking) return applyEdits(body, imageEdits);
      const result = rewriteLinks(body, usesOf(path, body), input.urlOf, imageEdits);
      // Kept only for a body that links somewhere: most link nowhere, and an empty map and set per file
      // were 0.3-0.4 KB a file, 3 MB through a first push of 10,000 notes. Nothing kept reads as nothing linked.
      keepUnlessEmpty(linked, path, result.linked);
      keepUnlessEmpty(waiting, path, new Set(result.waiting));
      return result.markdown;
    },
    sentImages: (path) => input.images?.sentImages(path),
    mustResend: (path) => resend.has(path),
    waitingFor: (path) => waiting.get(path) ?? NONE,
    resending: (paths) => make(paths),
    stale(fresh, sent) {
      if (!linking) return [];
      const out = new Set<string>();
      for (const [path, targets] of waiting) if ([...targets].some((target) => input.urlOf(target) !== undefined)) out.add(path);
      if (fresh.size === 0) return [...out];
      for (const path of input.synced) {
        if (out.has(path)) continue;
        const file = tree.bodyOf(path);
        if (!file) continue;
        const withUrl = sent(path) ? linked.get(path) : undefined;
        const targets = fileTargets(uses, path, () => usesOf(path, file.body));
        if (targets.some((target) => fresh.has(target) && withUrl?.get(target) !== input.urlOf(target))) out.add(path);
      }
      return [...out].sort();
    },
    orphaned(gone) {
      if (gone.size === 0 || !linking) return [];
      // Resolved as if the gone files were still there, to find the links that pointed at them.
      const before = { ...tree, synced: new Set([...input.synced, ...gone]) };
      const out: LinkProblem[] = [];
      for (const path of input.synced) {
        const file = tree.bodyOf(path);
        if (!file) continue;
        for (const use of linkUses(file.body, (url) => resolveLink(url, path, before, input.site))) {
          if (use.outcome.kind !== 'file' || !gone.has(use.outcome.path)) continue;
          out.push({ ...problemAt(path, use, file.lineOffset, file.writtenAs), reason: 'missing', message: `${use.outcome.path} was deleted, and its document with it` });
        }
      }
      return out;
    },
    problems: (paths) => check(paths).problems,
    check,
  });
  return make(new Set());
}

const NONE: ReadonlySet<string> = new Set();

/** `value` kept at `path`, or nothing kept there when it is empty (a rewrite again may empty it). */
function keepUnlessEmpty<T extends { readonly size: number }>(kept: Map<string, T>, path: string, value: T): void {
  if (value.size > 0) kept.set(path, value);
  else kept.delete(path);
}

function fileUses(cache: Map<string, LinkUse[]>, path: string, compute: () => LinkUse[]): LinkUse[] {
  let found = cache.get(path);
  if (!found) cache.set(path, (found = compute()));
  return found;
}

const fileTargets = (cache: Map<string, LinkUse[]>, path: string, compute: () => LinkUse[]): string[] =>
  fileUses(cache, path, compute).flatMap((use) => (use.outcome.kind === 'file' || (use.outcome.kind === 'broken' && use.outcome.path) ? [use.outcome.path as string] : []));
