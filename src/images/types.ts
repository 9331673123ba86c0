/** Where images go (the config's `images`): see ImagesSchema for what each setting means. */
export type ImageSettings = {
  readonly upload: string | null;
  readonly baseUrl: string | null;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly diagrams: { readonly command: string | null; readonly languages: readonly string[]; readonly format: 'svg' | 'png' };
};

export const NO_IMAGES: ImageSettings = { upload: null, baseUrl: null, timeoutMs: 60_000, maxBytes: 10 * 1024 * 1024, diagrams: { command: null, languages: [], format: 'svg' } };

/**
 * One image a document was sent with: what the ledger and the shared state remember, so a changed image
 * (same Markdown, new bytes) is sent again and an unchanged one never is.
 */
export type SentImage = {
  /** The image file, relative to the synced root; for a diagram, its language. */
  readonly p: string;
  /** The cache key of what was sent: `sha256:<hex>` of the file, `diagram:<hex>` of the source, or `url:` for a mapped path. */
  readonly h: string;
  /** The URL the document received ('' when none yet). */
  readonly u: string;
  /** Set for a diagram (its source is in the file, so a change of it is a change of the file). */
  readonly d?: 1;
  /** The file's size and mtime when hashed (this machine only: the ledger keeps them, the shared state does not). */
  readonly s?: number;
  readonly m?: number;
};

export type ImageProblemReason = 'not-configured' | 'missing' | 'outside-root' | 'too-large' | 'malformed' | 'no-upload' | 'hidden' | 'excluded' | 'not-an-image';

/** A local image the knowledge base will not show (IMAGE_NOT_PUBLISHED): sent as written, said with file and line. */
export type ImageProblem = {
  readonly path: string;
  /** 1-based line in the file (front matter included). */
  readonly line: number;
  readonly target: string;
  readonly reason: ImageProblemReason;
  readonly message: string;
};

/** Image URLs by cache key, remembered across runs (the ledger) and machines (the shared state). */
export type ImageUrlCache = {
  get(key: string): string | undefined;
  put(key: string, url: string): void;
};
