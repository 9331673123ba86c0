import type { DocumentRecord, MemberRecord } from '../../ledger/index.js';
import type { FrontMatter } from '../../markdown/index.js';
import { asUserId } from '../../model/ids.js';
import type { SyncContext } from '../run/context.js';

type Role = 'viewer' | 'editor';

/**
 * Reconciles the `members` of a file's front matter with the members kbsync applied last time:
 * adds, updates and removes only those. Members added by others in the web editor are never
 * touched, and with no `members` key kbsync does not manage members at all.
 * Returns the members now applied, for the ledger.
 */
export async function applyMembers(ctx: SyncContext, record: DocumentRecord, wanted: FrontMatter['members']): Promise<readonly MemberRecord[]> {
  if (wanted === undefined) return record.members;
  const applied = new Map(record.members.map((m) => [m.userId as string, m.role]));
  const desired = new Map(wanted.map((m) => [m.userId, m.role as Role]));
  if (sameMembers(applied, desired)) return record.members;
  if (record.nodeId === null) {
    ctx.logger.warn(
      { path: record.path },
      'members in the front matter of %s are not applied: kbsync did not create this document, and the service only manages members through the id returned at creation. Set them in the web editor.',
      record.path,
    );
    return record.members;
  }
  const toAdd = [...desired].filter(([id]) => !applied.has(id)).map(([id, role]) => ({ userId: asUserId(id), role }));
  if (toAdd.length > 0) await ctx.client.addMembers(ctx.workspaceId, record.nodeId, toAdd);
  for (const [id, role] of desired) {
    const before = applied.get(id);
    if (before !== undefined && before !== role) await ctx.client.updateMember(ctx.workspaceId, record.nodeId, asUserId(id), role);
  }
  for (const id of applied.keys()) {
    if (!desired.has(id)) await ctx.client.removeMember(ctx.workspaceId, record.nodeId, asUserId(id));
  }
  return [...desired].map(([id, role]) => ({ userId: asUserId(id), role }));
}

function sameMembers(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([id, role]) => b.get(id) === role);
}
