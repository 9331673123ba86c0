import { join, relative, sep } from 'node:path';
import { homeFolder, type Config } from '../config/index.js';
import { invocation } from '../invocation.js';
import { openLedger, openLedgerSnapshot, type Ledger } from '../ledger/index.js';
import { assertNarrowRoot, assertRootDirectorySync } from '../local/index.js';
import type { Logger } from '../log.js';
import { asTreeNodeId, asWorkspaceId } from '../model/ids.js';
import type { SyncOptions } from '../sync/engine.js';
import type { SyncMode } from '../sync/decide/types.js';
import type { LinkSite } from '../links/index.js';
import { explainLocked } from './lock-holder.js';

export function ledgerPath(config: Config): string {
  return join(config.stateDir, 'ledger.sqlite');
}

/**
 * Opens the folder's ledger for `sync`, `watch` and the read-only commands. The root is checked first,
 * before the state folder is created inside it: a missing root (an unmounted drive) must never be
 * re-created empty and filled by a pull. A lock held by the daemon is explained as such. A dry run gets
 * a copy in memory (openLedgerSnapshot): it leaves the folder as it found it, byte for byte.
 */
export function openStateLedger(config: Config, logger: Logger, options: { readonly readonly?: boolean; readonly dryRun?: boolean; readonly command: 'watch' | 'other' }): Ledger {
  assertNarrowRoot(config.root, homeFolder(invocation().env), config.allowBroadRoot);
  assertRootDirectorySync(config.root);
  const path = ledgerPath(config);
  if (options.dryRun) return openLedgerSnapshot(path, logger);
  try {
    return openLedger(path, { logger, ...(options.readonly ? { readonly: true, lock: false } : {}) });
  } catch (error) {
    throw explainLocked(error, { root: config.root, ledgerPath: path, command: options.command });
  }
}

/** The site as the link resolver takes it: its root relative to the synced root (POSIX), its base path ending in `/`. */
export function siteOf(config: Config): LinkSite {
  const root = config.site.root === null ? '' : relative(config.root, config.site.root).split(sep).join('/');
  return { root, basePath: config.site.basePath.endsWith('/') ? config.site.basePath : `${config.site.basePath}/` };
}

export function syncOptionsOf(config: Config, run: { mode: SyncMode; dryRun: boolean; force: boolean; checkLinks?: boolean }): SyncOptions {
  return {
    root: config.root,
    stateDir: config.stateDir,
    workspaceId: asWorkspaceId(config.workspaceId),
    remoteFolder: config.remoteFolder ? asTreeNodeId(config.remoteFolder) : undefined,
    layout: config.layout,
    mode: run.mode,
    dryRun: run.dryRun,
    links: config.links,
    site: siteOf(config),
    images: config.images,
    ...(run.checkLinks ? { checkLinks: true } : {}),
    include: config.include,
    exclude: config.exclude,
    ...(config.vault ? { vault: config.vault } : {}),
    guards: { maxDeleteRatio: config.guards.maxDeleteRatio, maxDeletes: config.guards.maxDeletes, force: run.force },
    backups: config.backups,
    webEdits: config.merge.webEdits,
    explicit: config.explicit,
  };
}
