import type { Config } from '../config/index.js';
import { createLinker } from '../links/index.js';
import { assertRootDirectorySync, scanLocal } from '../local/index.js';
import { siteOf } from '../setup/index.js';
import { observeLocal } from '../sync/observe/observe-local.js';
import { runLowering } from '../sync/content/vault.js';
import { useMarkdownDialect } from '../markdown/parse.js';
import { buildReport, linkCheckReport, type SyncReport } from '../sync/views/report.js';
import { checkEveryLink } from '../sync/content/run-links.js';
import { whyUnsynced } from '../sync/content/unsynced.js';
import type { SyncMode } from '../sync/decide/types.js';

/**
 * `sync --check-links --dry-run` without the service (no token, no service settings: a pull request from
 * a fork): the links of every file checked against the local tree alone, which is all a link check needs.
 * The report has no plan; its links and refused files are those a run would report.
 */
export async function checkLinksLocally(config: Config, mode: SyncMode): Promise<SyncReport> {
  const started = Date.now();
  assertRootDirectorySync(config.root);
  const scan = await scanLocal(config.root, { stateDir: config.stateDir, include: config.include, exclude: config.exclude });
  useMarkdownDialect(config.vault ? 'wiki' : 'gfm');
  const local = await observeLocal(scan, new Map());
  const lowering = runLowering({ scan, local }, config);
  const linker = createLinker({
    ...(lowering ? { lower: lowering.lower } : {}),
    root: scan.root,
    site: siteOf(config),
    synced: new Set(local.entries.keys()),
    known: (path) => local.texts.get(path)?.text,
    urlOf: () => undefined,
    unsynced: whyUnsynced({ scan, local }, config),
  });
  const check = checkEveryLink(linker, { local });
  return buildReport({
    options: { mode, dryRun: true },
    planned: [],
    pending: [],
    results: [],
    problems: [...local.problems, ...scan.problems.map((p) => ({ path: p.path, code: p.code, message: p.reason }))],
    conflictCopies: scan.conflictCopies.map((file) => file.path),
    skipped: scan.skipped,
    links: check.problems,
    linkCheck: linkCheckReport(check, true),
    resumed: 0,
    interrupted: false,
    calls: 0,
    endpointCalls: {},
    durationMs: Date.now() - started,
  });
}
