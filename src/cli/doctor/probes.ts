import { isApiError, type ApiError, type KbClient } from '../../api/index.js';
import { asCreationNodeId, asDocKey, asUserId, type WorkspaceId } from '../../model/ids.js';

/**
 * One call per permission-scope family, each aimed at an id that cannot exist, so that no probe can
 * change anything: the gateway checks scopes before it looks at ids, so "forbidden" means the scope is
 * missing and any other answer (usually "not found") means it is granted.
 */
type ScopeProbe = {
  readonly scope: string;
  readonly use: string;
  /** For a scope sync can do without: what its absence disables (a warning in doctor, not a failure). */
  readonly optional?: string;
  probe(client: KbClient, workspaceId: WorkspaceId): Promise<unknown>;
};

const PROBE_ID = 'kbsync-doctor-probe-does-not-exist';

async function firstOf<T>(items: AsyncIterable<T>): Promise<T | undefined> {
  for await (const item of items) return item;
  return undefined;
}

export const SCOPE_PROBES: readonly ScopeProbe[] = [
  { scope: 'Wiki.Node.Read', use: 'list knowledge bases, folders and documents', probe: (client) => firstOf(client.listWorkspaces()) },
  {
    scope: 'Document.WorkspaceDocument.Read',
    use: 'search the workspace',
    optional: '`kbsync search` does not work; sync does not need it',
    probe: (client, ws) => firstOf(client.search(ws, PROBE_ID)),
  },
  { scope: 'Storage.File.Read', use: 'read document bodies', probe: (client) => client.readBlocks(asDocKey(PROBE_ID)) },
  { scope: 'Storage.File.Write', use: 'create, write and delete documents', probe: (client) => client.overwrite(asDocKey(PROBE_ID), '') },
  {
    scope: 'Document.WorkspaceDocument.Write',
    use: 'manage members from front matter',
    optional: 'a file whose front matter has `members` does not sync (exit 1); every other file syncs',
    probe: (client, ws) => client.removeMember(ws, asCreationNodeId(PROBE_ID), asUserId(PROBE_ID)),
  },
];

type ProbeOutcome =
  | { readonly kind: 'granted' }
  | { readonly kind: 'missing'; readonly scopes: readonly string[] }
  /** The call did not get an answer that says anything about scopes (network, token). */
  | { readonly kind: 'unknown'; readonly error: unknown };

export async function runProbe(probe: ScopeProbe, client: KbClient, workspaceId: WorkspaceId): Promise<ProbeOutcome> {
  try {
    await probe.probe(client, workspaceId);
    return { kind: 'granted' };
  } catch (error) {
    if (!isApiError(error)) return { kind: 'unknown', error };
    if (error.code === 'API_FORBIDDEN') return { kind: 'missing', scopes: error.requiredScopes?.length ? error.requiredScopes : [probe.scope] };
    if (answered(error)) return { kind: 'granted' };
    return { kind: 'unknown', error };
  }
}

/** The service looked at the request past the scope check (it refused the made-up id, or the operatorId). */
const answered = (error: ApiError): boolean => ['API_NOT_FOUND', 'API_BAD_REQUEST', 'API_CONFLICT', 'API_TOO_LARGE'].includes(error.code);

/** The operatorId was refused: the service's paramError/MissingoperatorId answers. */
export const operatorRefused = (error: unknown): error is ApiError =>
  isApiError(error) && error.code === 'API_BAD_REQUEST' && (error.serviceCode === 'paramError' || error.serviceCode === 'MissingoperatorId');
