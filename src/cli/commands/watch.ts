import type { Command } from 'commander';
import type { CliCommand, Entry } from '../command.js';

type WatchFlags = { config?: string; jsonLogs?: boolean };

export const watchCommand: CliCommand = {
  name: 'watch',
  register(program: Command, entry: Entry) {
    program
      .command('watch')
      .description('Keep the folder and the knowledge base in step continuously: the background daemon.')
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json-logs', 'log JSON lines even on a terminal (they are the default otherwise)')
      .addHelpText(
        'after',
        `
Starts with a full two-way sync (and says which workspace, and whether the folder is in step), then
syncs each saved file within moments and looks for knowledge-base changes within
watch.pollBudgetPerHour calls an hour. One daemon per folder; one line per event.

A file deleted here has its document deleted once it has stayed gone for watch.deleteDelayMinutes
(default 5), said when seen with the time: if it comes back first, its document keeps its URL. What a git
checkout brings (files it removed, files it moved to another folder) waits until the branch has stayed
for watch.checkoutDelayMinutes (default 60), or for \`kbsync resolve --mine FILE\`, so a branch switched
away and back keeps every document. watch.publishBranches (e.g. ["main"]) keeps other branches' work
private: nothing is published from them. Held files and conflicts are settled with \`kbsync resolve\`,
which works beside the daemon; \`kbsync doctor\` and \`kbsync status\` too.

Signals: SIGTERM or SIGINT stop it gracefully (a second one exits at once; the next start
finishes the work); SIGHUP re-reads the config file. Every stop says its cause in the last log line,
and the next start says the last one's when it was not asked for.

Examples:
  kbsync watch                              with ./sync.config.json, until Ctrl+C
  kbsync watch --config ~/notes/sync.config.json --json-logs
  kbsync service install                    as a service that starts at login (systemd, launchd)

Exit codes: 0 stopped by a signal, 1 stopped by an error nothing else handled (a bug) or because its
log stream closed, 2 bad usage or config, 3 already running for this folder, 4 the service could not
be used, 130 stopped by a second signal.`,
      )
      .action(async (flags: WatchFlags) => {
        // Loaded here, not at startup, so other commands do not load the daemon's modules.
        const { runDaemon } = await import('../../daemon/index.js');
        // Leave at once however the daemon ends: a reply still in flight past the shutdown deadline must not keep the process alive.
        await runDaemon({ config: flags.config, jsonLogs: Boolean(flags.jsonLogs) }).then(entry.exit, entry.fail);
      });
  },
};
