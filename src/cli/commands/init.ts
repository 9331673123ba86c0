import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Workspace } from '../../api/index.js';
import type { ConfigInput } from '../../config/index.js';
import { createTokenSource } from '../../config/index.js';
import { InputError } from '../../errors.js';
import type { CliCommand } from '../command.js';
import { ask, choose, isInteractive } from '../prompt.js';
import { addServiceOptions, DEFAULT_TOKEN_ENV, tokenSourceFor, type ServiceFlags } from '../service-flags.js';
import { setUpStateKey, stateIsSigned } from '../state-key-setup.js';
import { allWorkspaces, clientFromFlags, workspaceLines } from '../workspace-list.js';
import { refuseExistingConfig, writeNewConfig } from '../write-config.js';
import { terminal } from '../../terminal.js';
import { oneLine } from '../../printable.js';
import { invocation } from '../../invocation.js';

type Flags = ServiceFlags & { readonly dir?: string; readonly workspace?: string; readonly root: string; readonly force?: boolean };

const DEFAULT_TOKEN_HEADER = 'x-acs-service-access-token';

/** The service settings a person at a terminal may type in; a script must pass them. */
async function askMissing(flags: Flags): Promise<Flags> {
  if (!isInteractive()) return flags;
  const baseUrl = flags.baseUrl ?? invocation().env['KBSYNC_SERVICE_BASE_URL'] ?? (await ask('Service base URL (e.g. http://127.0.0.1:8787): '));
  const operatorId = flags.operatorId ?? invocation().env['KBSYNC_SERVICE_OPERATOR_ID'] ?? (await ask("Your unionId (operatorId; not the userId): "));
  return { ...flags, ...(baseUrl ? { baseUrl } : {}), ...(operatorId ? { operatorId } : {}) };
}

async function pickWorkspace(workspaces: readonly Workspace[], wanted: string | undefined): Promise<Workspace> {
  if (wanted !== undefined) {
    const found = workspaces.find((w) => w.workspaceId === wanted) ?? workspaces.filter((w) => w.name === wanted).at(0);
    if (found) return found;
    throw new InputError('WORKSPACE_UNKNOWN', `No workspace ${oneLine(JSON.stringify(wanted))} among the ${workspaces.length} this token and operator can see:`, {
      details: workspaceLines(workspaces),
      hint: 'Pass one of the ids above with --workspace.',
    });
  }
  if (workspaces.length === 0) {
    throw new InputError('NO_WORKSPACES', 'The operator cannot see any workspace (knowledge base).', {
      hint: 'Check --operator-id (the unionId of a user who is a member of the knowledge base), or create one in the web app.',
    });
  }
  if (workspaces.length === 1) return workspaces[0] as Workspace;
  if (!isInteractive()) {
    throw new InputError('WORKSPACE_CHOICE', `The token sees ${workspaces.length} workspaces; choose one with --workspace ID:`, {
      details: workspaceLines(workspaces),
      hint: 'For example: kbsync init --workspace <id from the list>.',
    });
  }
  terminal.out('Workspaces you can sync with:');
  for (const line of workspaceLines(workspaces)) terminal.out(line);
  return workspaces[await choose(`Which one [1-${workspaces.length}]? `, workspaces.length)] as Workspace;
}

async function run(options: Flags): Promise<void> {
  const dir = path.resolve(invocation().cwd, options.dir ?? '.');
  // A new configuration's token: the one named, else the default; never the source of the config it replaces.
  const given: Flags = { ...options, tokenEnv: options.tokenEnv ?? DEFAULT_TOKEN_ENV };
  await refuseExistingConfig(dir, { force: Boolean(given.force) });
  // A missing token is said before any question: answering them would be wasted work.
  const source = await tokenSourceFor(given, { env: invocation().env, cwd: dir, configOptional: true });
  await createTokenSource(source.tokenSource, { env: invocation().env, cwd: source.baseDir }).get();
  const flags = await askMissing(given);
  const { client, service, tokenSource } = await clientFromFlags(flags, { cwd: dir, configOptional: true });
  const workspace = await pickWorkspace(await allWorkspaces(client), flags.workspace);
  const key = await setUpStateKey(invocation().env, workspace.workspaceId, { make: true, signed: await stateIsSigned(client, workspace.rootNodeId) });
  const config: ConfigInput = {
    root: flags.root,
    workspaceId: workspace.workspaceId,
    service: {
      baseUrl: service.baseUrl,
      operatorId: service.operatorId,
      ...(service.tokenHeader === DEFAULT_TOKEN_HEADER ? {} : { tokenHeader: service.tokenHeader }),
      token: tokenSource,
    },
  };
  const { configPath, config: loaded } = await writeNewConfig(dir, config, { force: Boolean(flags.force) });
  await fsp.mkdir(loaded.root, { recursive: true });
  const tokenHint = 'env' in tokenSource ? ` (with ${tokenSource.env} set)` : '';
  terminal.out(`Wrote ${configPath}: "${oneLine(workspace.name)}" (${oneLine(workspace.workspaceId)}) ⇄ ${loaded.root}`);
  for (const line of key.lines) terminal.out(line);
  terminal.out(`Next: put Markdown files in ${path.relative(invocation().cwd, loaded.root) || '.'}, then run \`kbsync sync --dry-run\` and \`kbsync sync\`${tokenHint}.`);
}

export const initCommand: CliCommand = {
  name: 'init',
  register(program: Command) {
    addServiceOptions(
      program
        .command('init')
        .description('Write a sync.config.json: which service, which workspace (chosen from those the token can see), which folder.')
        .option('--dir <dir>', 'where to write sync.config.json (default: the current folder)')
        .option('--workspace <id>', 'the workspace to sync with (needed when the token sees several and no one is at a terminal)')
        .option('--root <folder>', 'the folder of Markdown files, relative to the config file', './docs')
        .option('--force', 'replace an existing sync.config.json'),
    )
      .addHelpText(
        'after',
        `
The token is read from the environment (KBSYNC_TOKEN, or --token-env NAME), never from an argument.
The team's state key is taken from KBSYNC_STATE_KEY when it is set; otherwise init makes one. Either
way it is kept in ~/.config/kbsync/state-key-<workspace> (readable by you alone), where every kbsync
command finds it without a setting; the config names no key file, so it can be committed and used in CI
with KBSYNC_STATE_KEY set. Every machine and CI run of the team needs the same key.
At a terminal, init asks for what is missing; in a script, pass it as options.

Examples:
  kbsync init                                             asks for the base URL, operatorId and workspace
  KBSYNC_TOKEN=... kbsync init --base-url http://127.0.0.1:8787 --operator-id u-... --workspace <id>
  kbsync init --dir ~/notes --root . --token-env MY_KB_TOKEN
  kbsync init --force                                     replace the existing sync.config.json`,
      )
      .action(run);
  },
};
