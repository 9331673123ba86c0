import path from 'node:path';
import { Option, type Command } from 'commander';
import { InputError, SafetyError } from '../../errors.js';
import { redactedJson } from '../../secrets.js';
import type { SyncMode } from '../../sync/decide/types.js';
import { previewsOf, type Preview } from '../../sync/views/preview.js';
import { linkLines } from '../output/link-lines.js';
import type { LinkProblem } from '../../links/index.js';
import { markdownPreview } from '../output/markdown-preview.js';
import type { CliCommand } from '../command.js';
import { decisionLine, describeDecision, pathShown } from '../../sync/views/vocabulary.js';
import { plannedRow, publishCounts, type PublishCounts } from '../../sync/views/outcomes.js';
import { unifiedDiffLines } from '../output/unified-diff.js';
import { withInspection } from '../read-only.js';
import { terminal } from '../../terminal.js';
import { invocation } from '../../invocation.js';

type Flags = { readonly config?: string; readonly push?: boolean; readonly pull?: boolean; readonly json?: boolean; readonly format: 'text' | 'markdown' };

/**
 * What `kbsync diff --json` prints: each decision with the texts before and after, as `sync` would carry it out,
 * and what it comes to for the knowledge base (`counts`: the pull-request preview's and the job summary's).
 */
export type DiffReport = {
  readonly mode: SyncMode;
  readonly files: readonly Preview[];
  readonly pending: readonly { readonly path: string; readonly reason: string }[];
  readonly counts: PublishCounts;
  readonly links: readonly LinkProblem[];
};

/** `path` from the command line: relative to the current folder if it points into the root, else to the root. */
function selector(root: string, wanted: string | undefined): (rel: string) => boolean {
  if (wanted === undefined) return () => true;
  const fromCwd = path.relative(root, path.resolve(invocation().cwd, wanted));
  const rel = (fromCwd.startsWith('..') || path.isAbsolute(fromCwd) ? wanted : fromCwd).split(path.sep).join('/').replace(/\/+$/, '');
  if (rel === '' || rel === '.') return () => true;
  return (candidate) => candidate === rel || candidate.startsWith(`${rel}/`);
}

function previewLines(preview: Preview): string[] {
  const lines = [`== ${pathShown(preview)}: ${describeDecision(preview.kind)}${preview.note ? ` (${preview.note})` : ''}`];
  if (preview.conflicts > 0) lines.push(`   ${preview.conflicts} block(s) changed differently on both sides: the file keeps yours, the other version goes beside it as a conflict copy`);
  if (preview.local) lines.push(...unifiedDiffLines(preview.local.before, preview.local.after, { from: `a/${preview.path} (local file now)`, to: `b/${preview.path} (after the sync)` }));
  if (preview.remote) lines.push(...unifiedDiffLines(preview.remote.before, preview.remote.after, { from: `a/${preview.from ?? preview.path} (knowledge base now)`, to: `b/${preview.path} (what a push sends)` }));
  return lines;
}

async function run(wanted: string | undefined, flags: Flags): Promise<void> {
  const mode: SyncMode = flags.push ? 'push' : flags.pull ? 'pull' : 'two-way';
  if (flags.format === 'markdown' && mode !== 'push') {
    throw new InputError('USAGE', '--format markdown shows what a push would publish (a pull-request comment for docs as code).', { hint: 'Add --push.' });
  }
  if (flags.format === 'markdown' && flags.json) throw new InputError('USAGE', '--json and --format markdown ask for two formats.', { hint: 'Pass one of them.' });
  await withInspection({ config: flags.config, mode, offline: false }, async ({ session, inspection }) => {
    const refusal = inspection.plan.refusal;
    if (refusal) throw new SafetyError(refusal.code, `A sync would refuse to act: ${refusal.message}`);
    const only = selector(session.config.root, wanted);
    const { previews, pending, problems, links } = previewsOf(inspection, only);
    if (flags.format === 'markdown') {
      const where = `${path.relative(invocation().cwd, session.config.root) || '.'}/ to workspace ${session.config.workspaceId}`;
      terminal.out(...markdownPreview({ where, previews, pending, problems, links }));
      return;
    }
    if (flags.json) {
      const report: DiffReport = { mode, files: previews, pending, counts: publishCounts(previews.map(plannedRow), problems.length, links.length), links };
      invocation().stdout.write(`${redactedJson(report)}\n`);
      return;
    }
    if (previews.length === 0) {
      terminal.out(`Nothing to ${mode === 'two-way' ? 'sync' : mode}${wanted ? ` for ${wanted}` : ''}.`);
    } else {
      terminal.out(`A ${mode} sync would do ${previews.length} action(s):`);
      for (const preview of previews) terminal.out(decisionLine(preview));
    }
    for (const item of pending) terminal.out(`… ${item.path}: ${item.reason}`);
    for (const line of linkLines(links)) terminal.out(line);
    for (const preview of previews) terminal.out('', ...previewLines(preview));
  });
}

export const diffCommand: CliCommand = {
  name: 'diff',
  register(program: Command) {
    program
      .command('diff')
      .argument('[path]', 'a file or folder (relative to the current folder or to the root); default: everything')
      .description('Show what a sync would change: the decision for each file, and a unified diff of what a pull would write and what a push would send. Changes nothing.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .addOption(new Option('--push', 'show what `sync --push` would do').conflicts('pull'))
      .addOption(new Option('--pull', 'show what `sync --pull` would do').conflicts('push'))
      .option('--json', 'print a machine-readable report on stdout')
      .addOption(new Option('--format <format>', 'text, or markdown: with --push, what merging would publish, as a pull-request comment').choices(['text', 'markdown']).default('text'))
      .addHelpText(
        'after',
        `
The decisions are the ones a sync would carry out, made the same way (the same reads, the same code).
Per file, up to two diffs: "local file now → after the sync" (the knowledge base's edits, merged into your
file as a sync would), and "knowledge base now → what a push sends" (your edits, as the Markdown body sent;
front matter is never sent). Only reads: no file, ledger row or document changes.

Examples:
  kbsync diff                        everything a two-way sync would change
  kbsync diff notes/guides           only files under that folder
  kbsync diff --push welcome.md      what a push would send for one file
  kbsync diff --push --format markdown > preview.md
                                     docs as code: what merging a pull request would publish (created,
                                     updated with changed-block counts, moved old → new, renamed,
                                     deleted, held, broken links), counted as the job summary counts;
                                     a read-only token is enough`,
      )
      .action(run);
  },
};
