import { join } from 'node:path';
import { KbsyncError, messageOf } from '../errors.js';
import { ImagePublisher, type ImagePublisherDeps } from '../images/publisher.js';
import { NO_IMAGES, type ImageProblem, type ImageSettings, type ImageUrlCache } from '../images/types.js';
import { localTree, type LinkSite } from '../links/index.js';
import { readTextFile } from '../local/index.js';
import { toPushMarkdown } from '../markdown/index.js';
import { pathOf } from './decide/placement.js';
import type { DecisionKind } from './assess.js';
import type { Action, ActionKind } from './decide/types.js';
import type { ActionResult } from './executor.js';
import type { Observation } from './observe/observe.js';
import { DEFAULT_SITE, sentPaths } from './run-links.js';

/** How a failed file is counted: the decision its action would have become. */
const decisionOf = (kind: ActionKind | undefined): DecisionKind => (kind === 'create' || kind === 'recreate' || kind === 'move' || kind === 'merge' ? kind : 'push');

/** The run's image publisher: the config's `images`, URLs cached in `cache` (the ledger; a map for a preview without one). */
export function runImages(
  root: string,
  options: { readonly site?: LinkSite | undefined; readonly images?: ImageSettings | undefined },
  cache: ImageUrlCache,
  more: Pick<ImagePublisherDeps, 'shared' | 'sentBefore'> = {},
): ImagePublisher {
  return new ImagePublisher({ root, site: options.site ?? DEFAULT_SITE, settings: options.images ?? NO_IMAGES, cache, ...more });
}

/** A cache that lives for one preview: what the ledger knows, nothing written. */
export function previewCache(known: ImageUrlCache | undefined): ImageUrlCache {
  const added = new Map<string, string>();
  return { get: (key) => added.get(key) ?? known?.get(key), put: (key, url) => added.set(key, url) };
}

/** The local images the knowledge base will not show (IMAGE_NOT_PUBLISHED), in the files this run sends. */
export function imageReport(images: ImagePublisher, observation: Observation): ImageProblem[] {
  const tree = localTree({ root: observation.scan.root, synced: new Set(observation.local.entries.keys()), known: (path) => observation.local.texts.get(path)?.text });
  return sentPaths(observation).flatMap((path) => {
    const file = tree.bodyOf(path);
    return file ? images.problems(path, file.body, file.lineOffset) : [];
  });
}

/** How many images (distinct contents) a run would upload for the files it sends: what a dry run says. */
export function imagesToUpload(images: ImagePublisher, observation: Observation): number {
  if (!images.uploads) return 0;
  const tree = localTree({ root: observation.scan.root, synced: new Set(observation.local.entries.keys()), known: (path) => observation.local.texts.get(path)?.text });
  const keys = new Set<string>();
  for (const path of sentPaths(observation)) {
    const file = tree.bodyOf(path);
    if (file) for (const key of images.toUpload(toPushMarkdown(file.body), path)) keys.add(key);
  }
  return keys.size;
}

/**
 * Before any body is sent: uploads the images the files this run sends still lack, so each body goes out
 * whole. A file whose image cannot be published is taken out of the run with IMAGE_UPLOAD_FAILED (its
 * document keeps what it had); the rest go on.
 */
export async function prepareImages(images: ImagePublisher, observation: Observation, actions: readonly Action[]): Promise<{ actions: Action[]; failed: ActionResult[] }> {
  const failed: ActionResult[] = [];
  if (!images.uploads) return { actions: [...actions], failed };
  const kinds = new Map(actions.map((action) => [pathOf(action), action.kind]));
  await Promise.all(
    sentPaths(observation).map(async (path) => {
      try {
        const text = observation.local.texts.get(path)?.text ?? (await readTextFile(join(observation.scan.root, path), { displayPath: path })).text;
        const file = localTree({ root: observation.scan.root, synced: new Set([path]), known: () => text }).bodyOf(path);
        if (file) await images.prepare(toPushMarkdown(file.body), path, file.lineOffset);
      } catch (error) {
        // An unreadable file is the action's own business (it reads the file again and says why).
        if (!(error instanceof KbsyncError) || error.code !== 'IMAGE_UPLOAD_FAILED') return;
        failed.push({ action: decisionOf(kinds.get(path)), path, ok: false, code: error.code, error: messageOf(error) });
      }
    }),
  );
  const out = new Set(failed.map((result) => result.path));
  return { actions: actions.filter((action) => !out.has(pathOf(action))), failed };
}
