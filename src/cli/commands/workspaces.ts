import type { Command } from 'commander';
import type { CliCommand } from '../command.js';
import { addServiceOptions, type ServiceFlags } from '../service-flags.js';
import { allWorkspaces, clientFromFlags, workspaceLines } from '../workspace-list.js';
import { terminal } from '../../terminal.js';
import { invocation } from '../../invocation.js';

type Flags = ServiceFlags & { readonly json?: boolean };

export const workspacesCommand: CliCommand = {
  name: 'workspaces',
  register(program: Command) {
    addServiceOptions(
      program
        .command('workspaces')
        .description('List the knowledge bases (workspaces) the token and operator can see: name, id and web address.')
        .option('-c, --config <file>', 'config file to take the service settings from (default: ./sync.config.json)')
        .option('--json', 'print a JSON list on stdout'),
    )
      .addHelpText(
        'after',
        `
Examples:
  kbsync workspaces                                   with ./sync.config.json
  kbsync workspaces --json                            [{"workspaceId":..., "name":..., "url":...}, ...]
  KBSYNC_TOKEN=... kbsync workspaces --base-url http://127.0.0.1:8787 --operator-id u-...`,
      )
      .action(async (flags: Flags) => {
        const { client } = await clientFromFlags(flags);
        const workspaces = await allWorkspaces(client);
        if (flags.json) {
          const rows = workspaces.map((w) => ({ workspaceId: w.workspaceId, name: w.name, url: w.url, rootNodeId: w.rootNodeId, description: w.description }));
          invocation().stdout.write(`${JSON.stringify(rows)}\n`);
        } else if (workspaces.length === 0) {
          terminal.out('No workspaces: the operator cannot see any knowledge base. Check operatorId and that the user is a member of one.');
        } else {
          for (const line of workspaceLines(workspaces)) terminal.out(line);
        }
      });
  },
};
