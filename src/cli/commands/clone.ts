import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { TreeBounds, type KbClient, type RemoteNode } from '../../api/index.js';
import { InputError } from '../../errors.js';
import { safeName } from '../../local/index.js';
import type { TreeNodeId } from '../../model/ids.js';
import { oneLine } from '../../printable.js';
import { terminal } from '../../terminal.js';
import { fullySynced } from '../../sync/views/report.js';
import type { CliCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { syncAndPrint } from '../run-sync.js';
import { addServiceOptions, type ServiceFlags } from '../service-flags.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from '../session.js';
import { workspaceRoot } from '../../sync/observe/observe.js';
import { cachedTeam, describeTeam } from '../../sync/state/team.js';
import { setUpStateKey } from '../state-key-setup.js';
import { clientFromFlags } from '../workspace-list.js';
import { writeNewConfig } from '../write-config.js';
import { invocation } from '../../invocation.js';

type Flags = ServiceFlags;

/** The remote folder to sync: the node itself for a folder or a workspace, the folder holding it for a document. */
type Target = { readonly folder: TreeNodeId | null; readonly title: string; readonly document?: RemoteNode };

/**
 * The service tells no node's parent, so a document's folder is found by walking the tree from the
 * workspace's root, breadth first, stopping as soon as the document turns up.
 */
async function parentOf(client: KbClient, rootId: TreeNodeId, wanted: TreeNodeId): Promise<RemoteNode | null> {
  const bounds = new TreeBounds(rootId);
  let level: (RemoteNode | null)[] = [null];
  for (let depth = 1; level.length > 0; depth += 1) {
    const next: RemoteNode[] = [];
    for (const parent of level) {
      for await (const child of client.listNodes(parent?.treeNodeId ?? rootId)) {
        bounds.counted();
        if (child.treeNodeId === wanted) return parent;
        if (child.type === 'FOLDER' || child.hasChildren) {
          bounds.enter(child.treeNodeId, child.title, depth);
          next.push(child);
        }
      }
    }
    level = next;
  }
  throw new InputError('CLONE_NOT_IN_TREE', 'The document was found by its URL but not in its workspace tree; it may have just moved.', { hint: 'Try again in a moment.' });
}

async function targetOf(client: KbClient, node: RemoteNode): Promise<Target> {
  const workspace = await client.getWorkspace(node.workspaceId);
  if (node.treeNodeId === workspace.rootNodeId) return { folder: null, title: workspace.name };
  if (node.type === 'FOLDER') return { folder: node.treeNodeId, title: node.title };
  if (!node.isRichDoc) {
    throw new InputError('CLONE_NOT_A_DOCUMENT', `"${node.name}" is a ${node.category || 'file'}, not a rich-text document; kbsync syncs documents and folders.`, {
      hint: 'Pass the URL of a document, a folder or the knowledge base.',
    });
  }
  const parent = await parentOf(client, workspace.rootNodeId, node.treeNodeId);
  return parent ? { folder: parent.treeNodeId, title: parent.title, document: node } : { folder: null, title: workspace.name, document: node };
}

async function refuseNonEmpty(dir: string): Promise<void> {
  const entries = await fsp.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length > 0) {
    throw new InputError('CLONE_TARGET_EXISTS', `${dir} already exists and is not empty; kbsync clones only into a new or empty folder.`, {
      hint: 'Pass another folder as the second argument, or run `kbsync init` there to sync an existing folder.',
    });
  }
}

/**
 * Variables that would override what the clone writes in its config (the folder, the workspace, the remote
 * folder): honoured, they send the first pull somewhere else (KBSYNC_ROOT=./docs: "ROOT_MISSING").
 */
const CLONE_DECIDES = ['KBSYNC_ROOT', 'KBSYNC_WORKSPACE_ID', 'KBSYNC_REMOTE_FOLDER'];

/** A clone that failed leaves nothing behind, so running it again just works (the target was new or empty). */
async function undo(dir: string, made: boolean): Promise<void> {
  if (made) return fsp.rm(dir, { recursive: true, force: true });
  for (const entry of await fsp.readdir(dir).catch(() => [])) await fsp.rm(path.join(dir, entry), { recursive: true, force: true });
}

type Origin = { readonly node: RemoteNode; readonly target: Target } & Pick<Awaited<ReturnType<typeof clientFromFlags>>, 'service' | 'tokenSource'>;

/** Writes the new folder's config and pulls into it; returns the exit code. */
async function cloneInto(dir: string, { node, target, service, tokenSource }: Origin): Promise<ExitCode> {
  const { configPath } = await writeNewConfig(
    dir,
    {
      root: '.',
      workspaceId: node.workspaceId,
      ...(target.folder ? { remoteFolder: target.folder } : {}),
      service: { baseUrl: service.baseUrl, operatorId: service.operatorId, tokenHeader: service.tokenHeader, token: tokenSource },
    },
    { force: false },
  );
  terminal.out(`Cloning "${oneLine(target.title)}" into ${dir}${target.document ? ` (the folder holding "${oneLine(target.document.title)}")` : ''}`);
  // The clone's own settings win over the shell's for this first pull: they are what it just wrote.
  const env = Object.fromEntries(Object.entries(invocation().env).filter(([name]) => !CLONE_DECIDES.includes(name)));
  const session = await openSession({ config: configPath ?? undefined, quiet: true, env });
  const report = await syncAndPrint(session, 'pull', (line) => terminal.out(line));
  const team = await teamFollowed(session);
  if (team) terminal.out(`It is read as its team reads it (the settings its shared state publishes, followed where this config says nothing): ${team}.`);
  terminal.out(`Linked. From ${path.relative(invocation().cwd, dir) || '.'}, \`kbsync sync\` keeps it in step.`);
  return fullySynced(report) ? ExitCode.ok : ExitCode.partial;
}

/** The team's settings the clone's first pull found and follows (kept in its ledger), in words; undefined when the team published none. */
async function teamFollowed(session: Session): Promise<string | undefined> {
  const ledger = openSyncLedger(session, { readonly: true });
  try {
    const rootId = await workspaceRoot(session.client, ledger, syncOptionsOf(session.config, { mode: 'pull', dryRun: false, force: false }), false);
    const team = cachedTeam(ledger, rootId);
    return team ? describeTeam(team) : undefined;
  } finally {
    ledger.close();
  }
}

async function run(url: string, dirArg: string | undefined, flags: Flags): Promise<void> {
  const { client, service, tokenSource } = await clientFromFlags(flags);
  const node = await client.getNodeByUrl(url);
  const target = await targetOf(client, node);
  const dir = path.resolve(invocation().cwd, dirArg ?? safeName(target.title, { siblings: new Set() }));
  await refuseNonEmpty(dir);
  const made = !existsSync(dir);
  try {
    invocation().exitCode = await cloneInto(dir, { node, target, service, tokenSource });
  } catch (error) {
    await undo(dir, made);
    throw error;
  }
  // The key the clone read the state with is kept where the next shell finds it (a clone's config names none).
  for (const line of (await setUpStateKey(invocation().env, node.workspaceId, { make: false })).lines) terminal.out(line);
  const overridden = CLONE_DECIDES.filter((name) => invocation().env[name] !== undefined);
  if (overridden.length > 0) {
    const them = overridden.length === 1 ? 'it' : 'them';
    terminal.err(
      `kbsync: ${overridden.join(' and ')} ${overridden.length === 1 ? 'is' : 'are'} set in your environment and would override ` +
        `${path.join(dir, 'sync.config.json')} for every kbsync command run with ${them}: unset ${them} (unset ${overridden.join(' ')}) before syncing this folder.`,
    );
  }
}

export const cloneCommand: CliCommand = {
  name: 'clone',
  register(program: Command) {
    addServiceOptions(
      program
        .command('clone')
        .argument('<url>', 'web address of a knowledge base, a folder or a document')
        .argument('[dir]', 'the new folder (default: the folder\'s or knowledge base\'s title)')
        .description('Make a new local folder synced with a knowledge base, folder or document found by its web address, and pull it.')
        .option('-c, --config <file>', 'config file to take the service settings from (default: ./sync.config.json)'),
    )
      .addHelpText(
        'after',
        `
A folder or knowledge base URL clones that folder. A document URL clones the folder that holds it (the
document with its siblings): kbsync syncs whole folders. The new folder gets its own sync.config.json
(root "."), and a first pull links every document in its ledger, reading the folder as its team does (the
dialect, layout, links and base path its shared state publishes). On a team with a state key, set
KBSYNC_STATE_KEY for the clone: it keeps the key in ~/.config/kbsync/state-key-<workspace>, where later
commands find it.

Examples:
  kbsync clone http://127.0.0.1:8787/i/nodes/<id>               into a folder named after it
  kbsync clone http://127.0.0.1:8787/i/spaces/<workspaceId> team-notes
  KBSYNC_TOKEN=... kbsync clone <url> --base-url <api address> --operator-id <unionId>`,
      )
      .action(run);
  },
};
