import { KbsyncError, messageOf } from '../../errors.js';
import { ImagePublisher, type ImagePublisherDeps } from '../../images/publisher.js';
import { NO_IMAGES, type ImageProblem, type ImageSettings, type ImageUrlCache } from '../../images/types.js';
import { localTree, type LinkSite, type Lowering } from '../../links/index.js';
import { toPushMarkdown } from '../../markdown/index.js';
import { pathOf } from '../decide/placement.js';
import type { Action, ActionKind, DecisionKind } from '../decide/types.js';
import type { ActionResult } from '../run/executor.js';
import type { Observation } from '../observe/observe.js';
import { DEFAULT_SITE, sentPaths } from './run-links.js';

/** How a failed file is counted: the decision its action would have become. */
const decisionOf = (kind: ActionKind | undefined): DecisionKind => (kind === 'create' || kind === 'recreate' || kind === 'move' || kind === 'merge' ? kind : 'push');

/** The run's image publisher: the config's `images`, URLs cached in `cache` (the ledger; a map for a preview without one). */
export function runImages(
  root: string,
  options: { readonly site?: LinkSite | undefined; readonly images?: ImageSettings | undefined; readonly stateDir?: string; readonly exclude?: readonly string[] | undefined },
  cache: ImageUrlCache,
  more: Pick<ImagePublisherDeps, 'shared' | 'sentBefore' | 'signal'> = {},
): ImagePublisher {
  const places = { ...(options.stateDir ? { stateDir: options.stateDir } : {}), ...(options.exclude ? { exclude: options.exclude } : {}) };
  return new ImagePublisher({ root, site: options.site ?? DEFAULT_SITE, settings: options.images ?? NO_IMAGES, cache, places, ...more });
}

/** A cache that lives for one preview: what the ledger knows, nothing written. */
export function previewCache(known: ImageUrlCache | undefined): ImageUrlCache {
  const added = new Map<string, string>();
  return { get: (key) => added.get(key) ?? known?.get(key), put: (key, url) => added.set(key, url) };
}

/** A file this run sends, its front matter split off (lines counted from the file's top with `lineOffset`). */
export type SentBody = { readonly path: string; readonly body: string; readonly lineOffset: number };

/** The bodies of the files this run sends (or may: the decision reads the document first) as sent (a vault's lowered), each read once for every image step. */
export function sentBodies(observation: Observation, lower?: Lowering): SentBody[] {
  const paths = sentPaths(observation);
  // A run that sends nothing (a no-op) needs no index of the tree's files.
  if (paths.length === 0) return [];
  const tree = localTree({ root: observation.scan.root, synced: new Set(observation.local.entries.keys()), known: (path) => observation.local.texts.get(path)?.text, ...(lower ? { lower } : {}) });
  // A file that cannot be read now is the action's own business: it reads the file again and says why.
  return paths.flatMap((path) => {
    const file = tree.bodyOf(path);
    return file ? [{ path, ...file }] : [];
  });
}

/** The local images the knowledge base will not show (IMAGE_NOT_PUBLISHED), in the files this run sends. */
export const imageReport = (images: ImagePublisher, sent: readonly SentBody[]): ImageProblem[] =>
  sent.flatMap((file) => images.problems(file.path, file.body, file.lineOffset));

/** How many images (distinct contents) a run would upload for the files it sends: what a dry run says. */
export function imagesToUpload(images: ImagePublisher, sent: readonly SentBody[]): number {
  const keys = new Set<string>();
  if (!images.uploads) return 0;
  for (const file of sent) for (const key of images.toUpload(toPushMarkdown(file.body), file.path)) keys.add(key);
  return keys.size;
}

/**
 * Before any body is sent: uploads the images the files this run sends still lack, so each body goes out
 * whole. A file whose image cannot be published is taken out of the run with IMAGE_UPLOAD_FAILED (its
 * document keeps what it had); the rest go on.
 */
export async function prepareImages(images: ImagePublisher, sent: readonly SentBody[], actions: readonly Action[]): Promise<{ actions: Action[]; failed: ActionResult[] }> {
  const failed: ActionResult[] = [];
  if (!images.uploads) return { actions: [...actions], failed };
  const kinds = new Map(actions.map((action) => [pathOf(action), action.kind]));
  await Promise.all(
    sent.map(async (file) => {
      try {
        await images.prepare(toPushMarkdown(file.body), file.path, file.lineOffset);
      } catch (error) {
        // One file's failure, like any action's: said for that file, and the rest go on.
        failed.push({ action: decisionOf(kinds.get(file.path)), path: file.path, ok: false, code: error instanceof KbsyncError ? error.code : 'UNEXPECTED', error: messageOf(error) });
      }
    }),
  );
  const out = new Set(failed.map((result) => result.path));
  return { actions: actions.filter((action) => !out.has(pathOf(action))), failed };
}
