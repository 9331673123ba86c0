/**
 * Where a link's destination is written in the source: the characters to replace (inside `<…>` if pointy).
 * Here, not beside the parser that finds it, so the declarations of the link API need no Markdown syntax tree types.
 */
export type Span = { readonly start: number; readonly end: number };

/**
 * How the docs site the files were written for addresses them. Site-absolute links (`/guide/setup`)
 * start from `root`; `basePath` is the URL path the site is served under, stripped first.
 */
export type LinkSite = {
  /** The site's root folder relative to the synced root, POSIX (`''` is the synced root itself; may start with `../`). */
  readonly root: string;
  /** Always starts and ends with `/` (`/` when the site is served at the top of its host). */
  readonly basePath: string;
};

/** What a resolver knows of the local tree; paths are relative to the synced root, POSIX. */
export type LinkTree = {
  /** The Markdown files this run syncs: the only targets that become document URLs. */
  readonly synced: ReadonlySet<string>;
  /** Is there anything at this path (inside the synced root) at all: an image, an excluded file? */
  readonly exists: (path: string) => boolean;
  /**
   * The anchors of a synced file's headings: the id a docs site gives each heading → the id the
   * knowledge base's page gives it. Undefined when the file cannot be read (the anchor is then not checked).
   */
  readonly anchors: (path: string) => ReadonlyMap<string, string> | undefined;
  /** Why a file that is there is not synced (refused, `publish: false`, excluded...), for the report of a link to it. */
  readonly unsynced?: (path: string) => string;
};

export type BrokenReason =
  /** Nothing at the path the link names. */
  | 'missing'
  /** Something is there, but kbsync does not publish it (an image, an excluded or unpublished file). */
  | 'not-synced'
  /** The path leaves the synced folder, or the site's base path. */
  | 'outside-root'
  /** The file is there, the heading the `#anchor` names is not. */
  | 'anchor-missing'
  /** Not a usable URL (bad percent-encoding, a destination kbsync cannot find in the source). */
  | 'malformed';

/** What one link's URL means. Every link is exactly one of these: resolved, left alone, or reported. */
export type LinkOutcome =
  /** Another site (a scheme such as https: or mailto:, or `//host`): left as written. */
  | { readonly kind: 'external' }
  /** A synced file (`path`), and the knowledge base's anchor of the heading named, if one was. */
  | { readonly kind: 'file'; readonly path: string; readonly anchor?: string }
  /** An anchor in the linking file itself. */
  | { readonly kind: 'self'; readonly anchor: string }
  | {
      readonly kind: 'broken';
      readonly reason: BrokenReason;
      readonly detail: string;
      /** For `anchor-missing` in another file: the synced file the link still reaches (sent without the anchor). */
      readonly path?: string;
    };

/** One reported link: LINK_BROKEN, with where it is written and why it cannot work in the knowledge base. */
export type LinkProblem = {
  /** The linking file, relative to the synced root. */
  readonly path: string;
  /** 1-based line in the file (front matter included). */
  readonly line: number;
  /** 1-based column of the link's first character in its line, where known. */
  readonly column?: number;
  /** The destination as written (the URL); for a note vault's wiki link, the link as written (`[[Note#Heading]]`). */
  readonly target: string;
  /** The whole link as written in the file (`[the guide](../guide.md)`, `![[Note#Heading]]`): on one line, at most WRITTEN_CHARS. */
  readonly written: string;
  readonly reason: BrokenReason;
  readonly message: string;
};

/** A link the lowering of a body could not make (lines of the body); `offset`: where in the body it starts, when known. */
export type LoweringProblem = Omit<LinkProblem, 'path' | 'column' | 'written'> & { readonly offset?: number };

/**
 * A body written in a dialect the service does not read (a note vault's wiki links, src/vault), as the
 * CommonMark it is sent as, on the same lines; with the links it could not lower (lines of the body), and
 * where a span of the sent text was written in the body (`source`; see editOrigins): a report quotes the
 * link the user wrote, not the one kbsync made of it.
 */
export type Lowering = (body: string, path: string) => { readonly markdown: string; readonly problems: readonly LoweringProblem[]; readonly source?: SourceOf };

/** Where the text at a span of a lowered body was written in the body; `made`: the lowering wrote it (a wiki link's Markdown). */
export type SourceOf = (span: Span) => { readonly span: Span; readonly made: boolean };
