import { createHash } from 'node:crypto';
import { join, posix } from 'node:path';
import { KbsyncError, messageOf } from '../errors.js';
import { createLimit } from '../local/limit.js';
import type { LinkSite } from '../links/types.js';
import { encodeLinkPath } from '../links/url.js';
import { applyEdits, type SpanEdit } from '../links/rewrite.js';
import type { FilterOptions } from '../local/index.js';
import { ImagePlaces } from './allowed.js';
import { findImages, type Found } from './find.js';
import { ImageFiles, NotAnImage, type ImageFile, type Located } from './locate.js';
import type { ImageProblem, ImageSettings, ImageUrlCache, SentImage } from './types.js';
import { renderAndUpload, uploadImage, UploadFailure } from './upload.js';
import { invocation } from '../invocation.js';

export type ImagePublisherDeps = {
  /** The synced root, absolute. */
  readonly root: string;
  readonly site: LinkSite;
  readonly settings: ImageSettings;
  readonly cache: ImageUrlCache;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * URLs other machines uploaded (the shared state), asked once, on the first image this machine's cache
   * does not know: a CI run or a second workstation then uploads nothing the team already has.
   */
  readonly shared?: () => Promise<ReadonlyMap<string, string>>;
  /** The images a file's document was last sent with (the ledger's or the shared state's record). */
  readonly sentBefore?: (path: string) => readonly SentImage[] | undefined;
  /** The configuration's state folder and excludes: no image is read from where kbsync does not sync (ImagePlaces). */
  readonly places?: Pick<FilterOptions, 'stateDir' | 'exclude'>;
  /** Aborted when kbsync stops: an upload or a render still running is stopped. */
  readonly signal?: AbortSignal;
};

/** One image of a body, resolved: what a push sends in its place, and what it stands for. */
type Resolved =
  | { readonly found: Found; readonly key: string; readonly url: string | undefined; readonly sent: SentImage; readonly kept?: Located & { kind: 'problem' } }
  | { readonly found: Found; readonly problem: Located & { kind: 'problem' } };

/** Unchanged size and mtime vouch for the hash sent: only a changed file is hashed again. */
const known = (image: SentImage, file: ImageFile): string | undefined =>
  image.s === file.size && image.m === file.mtimeMs && image.h.startsWith('sha256:') ? image.h.slice(7) : undefined;

/** Uploads run at once: a storage CLI is network-bound, and a folder of screenshots should not fork a crowd. */
const UPLOADS_AT_ONCE = 4;

/**
 * Publishes a body's local images where the knowledge base can show them, and rewrites the pushed Markdown
 * to their URLs while the file keeps its own references. Everything a decision asks (`rewrite`, `sentImages`,
 * `stale`) is synchronous and reads only the cache, so a preview shows what the run sends; `prepare` is the
 * run's step that uploads what the cache lacks, before any body is sent.
 */
export class ImagePublisher {
  readonly #files: ImageFiles;
  readonly #sent = new Map<string, SentImage[]>();
  readonly #inFlight = new Map<string, Promise<string>>();
  /** Asked once: concurrent prepares all wait for the same answer rather than upload what it would have given. */
  #sharedLearnt: Promise<void> | undefined;
  readonly #slot = createLimit(UPLOADS_AT_ONCE);
  #uploaded = 0;

  constructor(private readonly deps: ImagePublisherDeps) {
    this.#files = new ImageFiles(deps.root, deps.site, deps.settings.maxBytes, new ImagePlaces(deps.root, deps.places));
  }

  /** Images (and diagrams) this publisher uploaded. */
  get uploaded(): number {
    return this.#uploaded;
  }

  /** The images of this body a run would still upload (none known by URL yet): what a preview says. */
  toUpload(body: string, path: string): Set<string> {
    return new Set(this.#missing(body, path).map((r) => r.key));
  }

  /** The images of a body with no URL yet that an upload can give one (not those kept from an earlier send). */
  #missing(body: string, path: string): Extract<Resolved, { key: string }>[] {
    if (!this.uploads || !this.#mayHaveImages(body)) return [];
    return this.#resolve(body, path).filter((r): r is Extract<Resolved, { key: string }> => 'key' in r && r.url === undefined && !r.kept);
  }

  /** Does this run upload anything at all (else `prepare` has nothing to do)? */
  get uploads(): boolean {
    return this.deps.settings.upload !== null;
  }

  get #diagramLanguages(): readonly string[] {
    return this.deps.settings.diagrams.command ? this.deps.settings.diagrams.languages : [];
  }

  /** The body as pushed: each local image whose URL is known replaced by it, every other byte as written. */
  rewrite(body: string, path: string): string {
    return applyEdits(body, this.edits(body, path));
  }

  /** What `rewrite` replaces, for a caller that edits the same body too (the links); remembered as this path's images. */
  edits(body: string, path: string): SpanEdit[] {
    if (!this.#mayHaveImages(body)) {
      this.#sent.set(path, []);
      return [];
    }
    const resolved = this.#resolve(body, path);
    this.#sent.set(path, resolved.flatMap((r) => ('sent' in r ? [r.sent] : [])));
    return resolved.flatMap((r): SpanEdit[] => {
      if (!('url' in r) || r.url === undefined || !r.found.span) return [];
      if (r.found.kind === 'diagram') return [{ span: r.found.span, url: `![${r.found.language} diagram](${r.url})` }];
      return [{ span: r.found.span, url: r.url, ...(r.found.markdown ? { destination: true as const } : {}) }];
    });
  }

  /** The images the last `rewrite` of this path's body sends (empty: none; undefined: not rewritten this run). */
  sentImages(path: string): readonly SentImage[] | undefined {
    return this.#sent.get(path);
  }

  /** Local images of a body that the knowledge base will not show, with why (lines counted from the body's first). */
  problems(path: string, body: string, lineOffset = 0): ImageProblem[] {
    if (!this.#mayHaveImages(body)) return [];
    const at = (r: Resolved) => ({ path, line: r.found.line + lineOffset, target: r.found.kind === 'image' ? r.found.url : `${r.found.language} diagram` });
    return this.#resolve(body, path).flatMap((r): ImageProblem[] => {
      if ('problem' in r) return [{ ...at(r), reason: r.problem.reason, message: r.problem.detail }];
      if (r.kept) return [{ ...at(r), reason: r.kept.reason, message: `${r.kept.detail}; the document keeps the image it was published with` }];
      return [];
    });
  }

  /**
   * Did an image a document was sent with change since: other bytes, or another URL for them (the setting
   * changed, or the upload is still to do)? A missing file proves nothing and is left as sent.
   */
  stale(images: readonly SentImage[]): boolean {
    return images.some((image) => {
      if (image.d) return false; // a diagram's source is in the file: its change is the file's
      const file = this.#files.file(image.p);
      if ('reason' in file) return false;
      const now = this.#urlFor(file, known(image, file));
      return !now.problem && now.url !== image.u;
    });
  }

  /** The file's image, unreadable or gone here: the document keeps the one it was last sent with, when there was one. */
  #keptOr(found: Found, path: string, problem: Located & { kind: 'problem' }): Resolved {
    const before = problem.reason === 'missing' ? this.deps.sentBefore?.(path)?.find((image) => !image.d && image.p === problem.path) : undefined;
    return before ? { found, key: before.h, url: before.u || undefined, sent: before, kept: problem } : { found, problem };
  }

  /**
   * Uploads (and renders) what this body's images still lack, so the body can be sent whole. Throws
   * IMAGE_UPLOAD_FAILED naming the image when one cannot be published: the caller sends nothing of this file.
   */
  async prepare(body: string, path: string, lineOffset = 0): Promise<void> {
    const missing = this.#missing(body, path);
    if (missing.length === 0) return;
    await this.#learnShared();
    const failures = await Promise.all(
      missing.map(async (r) => {
        if (this.deps.cache.get(r.key) !== undefined) return undefined;
        try {
          this.deps.cache.put(r.key, await this.#once(r.key, async () => {
            const url = await this.#publish(r);
            this.#uploaded += 1;
            return url;
          }));
          return undefined;
        } catch (error) {
          return { r, error };
        }
      }),
    );
    const failed = failures.find((failure) => failure !== undefined);
    if (!failed) return;
    const { r, error } = failed;
    const what = r.found.kind === 'image' ? `image "${r.found.url}"` : `${r.found.language} diagram`;
    const why = error instanceof UploadFailure ? error.message : `it could not be read (${error instanceof Error ? error.message : String(error)})`;
    throw new KbsyncError('IMAGE_UPLOAD_FAILED', `${path}:${r.found.line + lineOffset}: the ${what} could not be published: ${why}. Nothing of this file was sent.`, {
      hint: 'Run the images.upload command by hand on that file to see what it says, fix it (or images.timeoutMs), and sync again.',
    });
  }

  /** A cheap test that spares parsing bodies with no image at all (nearly all of them). */
  #mayHaveImages(body: string): boolean {
    return body.includes('![') || body.includes(']:') || /<img\b/i.test(body) || (this.#diagramLanguages.length > 0 && (body.includes('```') || body.includes('~~~')));
  }

  #resolve(body: string, path: string): Resolved[] {
    return findImages(body, this.#diagramLanguages).flatMap((found): Resolved[] => {
      if (found.kind === 'diagram') {
        if (!this.deps.settings.upload) return [{ found, problem: { kind: 'problem', reason: 'no-upload', detail: 'diagrams are rendered to images, which need images.upload to be published; sent as code' } }];
        const key = `diagram:${createHash('sha256').update(`${this.deps.settings.diagrams.format}\0${found.language}\0${found.source}`).digest('hex')}`;
        const url = this.deps.cache.get(key);
        return [{ found, key, url, sent: { p: found.language, h: key, u: url ?? '', d: 1 } }];
      }
      // Where the URL is written is unknown (an unusual escape or entity): it cannot be replaced, so it is not published.
      if (!found.span) return [{ found, problem: { kind: 'problem', reason: 'malformed', detail: 'kbsync cannot find where this image URL is written (an unusual escape or entity), so it cannot replace it' } }];
      const located = this.#files.locate(found.url, path);
      if (located.kind === 'external') return [];
      // A checkout without the image (a clone from the knowledge base, a sparse checkout) must not take the
      // published image away from everyone: the document keeps what it was last sent with.
      if (located.kind === 'problem') return [this.#keptOr(found, path, located)];
      const { file } = located;
      const { key, url, problem } = this.#urlFor(file);
      if (problem) return [this.#keptOr(found, path, problem)];
      return [{ found, key, url, sent: { p: file.path, h: key, u: url ?? '', s: file.size, m: file.mtimeMs } }];
    });
  }

  /** Where the knowledge base will show this file: uploaded (by content), mapped under baseUrl, or nowhere. */
  #urlFor(file: ImageFile, hash?: string): { key: string; url: string | undefined; problem?: Located & { kind: 'problem' } } {
    const { upload, baseUrl } = this.deps.settings;
    if (upload) {
      let digest: string;
      try {
        digest = hash ?? file.hash();
      } catch (error) {
        const problem = error instanceof NotAnImage
          ? { reason: 'not-an-image' as const, detail: `${messageOf(error)}: kbsync publishes only images` }
          : { reason: 'missing' as const, detail: `${file.path} cannot be read (${messageOf(error)})` };
        return { key: '', url: undefined, problem: { kind: 'problem', path: file.path, ...problem } };
      }
      const key = `sha256:${digest}`;
      return { key, url: this.deps.cache.get(key) };
    }
    if (baseUrl) {
      const underSite = posix.relative(this.deps.site.root, file.path);
      if (underSite.startsWith('../')) return { key: '', url: undefined, problem: { kind: 'problem', reason: 'outside-root', detail: `${file.path} is outside the site root, so it has no URL under images.baseUrl` } };
      const url = `${baseUrl.replace(/\/*$/, '/')}${encodeLinkPath(underSite)}`;
      return { key: `url:${url}`, url };
    }
    return {
      key: '',
      url: undefined,
      problem: { kind: 'problem', reason: 'not-configured', detail: 'the knowledge base cannot take attachments and no images.upload or images.baseUrl is configured, so it is sent as written and will not show' },
    };
  }

  async #publish(r: Extract<Resolved, { key: string }>): Promise<string> {
    const { settings, root } = this.deps;
    const env = this.deps.env ?? invocation().env;
    const { signal } = this.deps;
    const upload = (file: { readonly absolute: string; readonly hash: string }) => this.#slot(() => uploadImage(settings, file, root, env, signal));
    if (r.found.kind === 'diagram') return renderAndUpload(settings, r.found, upload, root, env, signal);
    return upload({ absolute: join(root, r.sent.p), hash: r.key.slice('sha256:'.length) });
  }

  /** One upload per key at a time, however many files show the same image. */
  #once(key: string, run: () => Promise<string>): Promise<string> {
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = run().finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  #learnShared(): Promise<void> {
    const shared = this.deps.shared;
    this.#sharedLearnt ??= shared
      ? shared().then((known) => {
          for (const [key, url] of known) if (this.deps.cache.get(key) === undefined) this.deps.cache.put(key, url);
        })
      : Promise.resolve();
    return this.#sharedLearnt;
  }
}
