import path from 'node:path';
import type { Command } from 'commander';
import type { SearchHit } from '../../api/index.js';
import { InputError } from '../../errors.js';
import { asWorkspaceId } from '../../model/ids.js';
import { terminal } from '../../terminal.js';
import type { CliCommand } from '../command.js';
import { withReadOnlyLedger } from '../read-only.js';
import { openSession } from '../session.js';
import { invocation } from '../../invocation.js';

type Flags = { readonly config?: string; readonly json?: boolean };

type Found = { readonly title: string; readonly url: string; readonly docKey: string; readonly localPath: string | null };

async function run(keyword: string, flags: Flags): Promise<void> {
  if (keyword.trim() === '') throw new InputError('SEARCH_EMPTY', 'The search keyword is empty.', { hint: 'Pass a word to look for, e.g. kbsync search release.' });
  const session = await openSession({ config: flags.config, quiet: true });
  const found = await withReadOnlyLedger(session, async (ledger) => {
    const hits: Found[] = [];
    for await (const hit of session.client.search(asWorkspaceId(session.config.workspaceId), keyword)) hits.push(describe(hit, ledger?.documents.byDocKey(hit.docKey)?.path));
    return hits;
  });
  if (flags.json) {
    invocation().stdout.write(`${JSON.stringify(found)}\n`);
    return;
  }
  if (found.length === 0) terminal.out(`No document in the workspace matches "${keyword}".`);
  for (const hit of found) {
    const local = hit.localPath ? path.relative(invocation().cwd, path.join(session.config.root, hit.localPath)) : '(not synced here)';
    terminal.out(hit.title, `  ${hit.url}`, `  ${local}`);
  }
}

const describe = (hit: SearchHit, localPath: string | undefined): Found => ({ title: hit.title, url: hit.url, docKey: hit.docKey, localPath: localPath ?? null });

export const searchCommand: CliCommand = {
  name: 'search',
  register(program: Command) {
    program
      .command('search')
      .argument('<keyword>', 'word or phrase to look for in titles and bodies')
      .description("Search the configured workspace; shows each document's title, web address, and its local file if it is synced here.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a JSON list on stdout (localPath is relative to the root, or null)')
      .addHelpText(
        'after',
        `
Examples:
  kbsync search release
  kbsync search "release checklist" --json`,
      )
      .action(run);
  },
};
