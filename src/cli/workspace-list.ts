import type { KbClient, Workspace } from '../api/index.js';
import { createLogger } from '../log.js';
import { oneLine } from '../printable.js';
import { createServiceClient } from '../setup/index.js';
import { resolveService, type ResolvedService, type ServiceFlags } from './service-flags.js';
import { invocation } from '../invocation.js';

/** Every workspace the token and operator can see (all pages). */
export async function allWorkspaces(client: KbClient): Promise<Workspace[]> {
  const workspaces: Workspace[] = [];
  for await (const workspace of client.listWorkspaces()) workspaces.push(workspace);
  return workspaces;
}

/** A client from flags / environment / config file, for the commands that run before a config exists. */
export async function clientFromFlags(
  flags: ServiceFlags,
  options: { readonly cwd?: string; readonly configOptional?: boolean } = {},
): Promise<{ readonly client: KbClient } & ResolvedService> {
  const context = { env: invocation().env, cwd: options.cwd ?? invocation().cwd, configOptional: Boolean(options.configOptional) };
  const resolved = await resolveService(flags, context);
  // These commands print their own results; only warnings (retries, throttling) go to the log.
  const logger = createLogger({ level: 'warn' });
  const { client } = createServiceClient(resolved.service, { env: context.env, cwd: resolved.baseDir, logger });
  return { client, ...resolved };
}

/** One line per workspace; its name, id and URL are the service's, so each is kept to one line (oneLine). */
export function workspaceLines(workspaces: readonly Workspace[]): string[] {
  const names = workspaces.map((w) => oneLine(w.name));
  const width = Math.max(4, ...names.map((name) => name.length));
  return workspaces.map((w, i) => `${String(i + 1).padStart(3)}. ${(names[i] ?? '').padEnd(width)}  ${oneLine(w.workspaceId)}  ${oneLine(w.url)}`);
}
