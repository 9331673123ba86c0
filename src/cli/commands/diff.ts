import path from 'node:path';
import { Option, type Command } from 'commander';
import { InputError, SafetyError } from '../../errors.js';
import { redactValue } from '../../secrets.js';
import type { SyncMode } from '../../sync/decide/types.js';
import { previewOf, type Preview } from '../../sync/views/preview.js';
import { linkReport } from '../../sync/content/run-links.js';
import { markdownPreview } from '../output/markdown-preview.js';
import type { CliCommand } from '../command.js';
import { describeDecision } from '../output/decision-words.js';
import { unifiedDiffLines } from '../output/unified-diff.js';
import { withInspection } from '../read-only.js';
import { terminal } from '../../terminal.js';
import { invocation } from '../../invocation.js';

type Flags = { readonly config?: string; readonly push?: boolean; readonly pull?: boolean; readonly json?: boolean; readonly format: 'text' | 'markdown' };

/** What `kbsync diff --json` prints: each decision with the texts before and after, as `sync` would carry it out. */
export type DiffReport = { readonly mode: SyncMode; readonly files: readonly Preview[]; readonly pending: readonly { readonly path: string; readonly reason: string }[] };

/** `path` from the command line: relative to the current folder if it points into the root, else to the root. */
function selector(root: string, wanted: string | undefined): ((rel: string) => boolean) | undefined {
  if (wanted === undefined) return undefined;
  const fromCwd = path.relative(root, path.resolve(invocation().cwd, wanted));
  const rel = (fromCwd.startsWith('..') || path.isAbsolute(fromCwd) ? wanted : fromCwd).split(path.sep).join('/').replace(/\/+$/, '');
  if (rel === '' || rel === '.') return undefined;
  return (candidate) => candidate === rel || candidate.startsWith(`${rel}/`);
}

function previewLines(preview: Preview): string[] {
  const lines = [`== ${preview.path}: ${describeDecision(preview.kind)}${preview.note ? ` (${preview.note})` : ''}`];
  if (preview.conflicts > 0) lines.push(`   ${preview.conflicts} block(s) changed differently on both sides: the file keeps yours, the other version goes beside it as a conflict copy`);
  if (preview.local) lines.push(...unifiedDiffLines(preview.local.before, preview.local.after, { from: `a/${preview.path} (local file now)`, to: `b/${preview.path} (after the sync)` }));
  if (preview.remote) lines.push(...unifiedDiffLines(preview.remote.before, preview.remote.after, { from: `a/${preview.path} (knowledge base now)`, to: `b/${preview.path} (what a push sends)` }));
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
    const decided = (inspection.decisions ?? []).filter((d) => d.kind !== 'none' && (!only || only(d.path)));
    const pending = inspection.plan.pending.filter((item) => !only || only(item.path));
    const urlOf = inspection.urlOf;
    const previews = decided.map((d) => previewOf(d, urlOf));
    if (flags.format === 'markdown') {
      const where = `${path.relative(invocation().cwd, session.config.root) || '.'}/ to workspace ${session.config.workspaceId}`;
      const problems = inspection.local.problems.filter((p) => !only || only(p.path));
      const broken = (urlOf ? linkReport(urlOf, inspection, true) : []).filter((l) => !only || only(l.path));
      terminal.out(...markdownPreview({ where, previews, pending, problems, links: broken }));
      return;
    }
    if (flags.json) {
      const report: DiffReport = { mode, files: previews, pending };
      invocation().stdout.write(`${JSON.stringify(redactValue(report))}\n`);
      return;
    }
    if (decided.length === 0) {
      terminal.out(`Nothing to ${mode === 'two-way' ? 'sync' : mode}${wanted ? ` for ${wanted}` : ''}.`);
    } else {
      terminal.out(`A ${mode} sync would do ${decided.length} action(s):`);
      for (const d of decided) terminal.out(`  ${d.kind.padEnd(16)} ${d.path}`);
    }
    for (const item of pending) terminal.out(`… ${item.path}: ${item.reason}`);
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
                                     updated with changed-block counts, deleted, held, broken links);
                                     a read-only token is enough`,
      )
      .action(run);
  },
};
