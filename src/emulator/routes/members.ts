import { paramError, ServiceError } from '../errors.js';
import { Scope } from '../scopes.js';
import type { Store } from '../store/store.js';
import { roleType } from './fields.js';
import type { Route } from './types.js';

/** Members are named by userId; a unionId there is the classic mix-up, so it gets its own message. */
function requireUserId(store: Store, id: unknown, field: string): string {
  if (typeof id !== 'string' || id === '') throw paramError(`${field} must be a non-empty userId string, got ${JSON.stringify(id)}.`);
  if (store.userByUserId(id)) return id;
  if (store.userByUnionId(id)) throw paramError(`${field} '${id}' is a unionId; members are named by their userId.`);
  throw new ServiceError(404, 'userNotExist', `${field} '${id}' is not a known user; pass the member's userId.`);
}

const memberNotExist = (userId: string, nodeId: string): ServiceError =>
  new ServiceError(404, 'memberNotExist', `User '${userId}' is not a member of document '${nodeId}'; add them first.`);

const MEMBERS_PATH = '/v1.0/doc/workspaces/:workspaceId/docs/:nodeId/members';

export const memberRoutes: readonly Route[] = [
  {
    name: 'addMembers',
    method: 'POST',
    path: MEMBERS_PATH,
    scopes: [Scope.docWrite],
    operatorIn: 'body',
    handle: ({ ops, store, params, body }) => {
      const node = ops.requireCreationNode(params['workspaceId'] ?? '', params['nodeId'] ?? '');
      const members = body['members'];
      if (!Array.isArray(members) || members.length === 0) throw paramError('members must be a non-empty array of { id, roleType }.');
      const checked = members.map((member: unknown, i) => {
        const m = (member ?? {}) as Record<string, unknown>;
        return { userId: requireUserId(store, m['id'], `members[${i}].id`), roleType: roleType(m['roleType'], `members[${i}].roleType`) };
      });
      store.transaction(() => {
        for (const m of checked) store.upsertMember({ dentryUuid: node.dentryUuid, ...m });
      });
      return { success: true };
    },
  },
  {
    name: 'updateMember',
    method: 'PUT',
    path: `${MEMBERS_PATH}/:memberId`,
    scopes: [Scope.docWrite],
    operatorIn: 'body',
    handle: ({ ops, store, params, body }) => {
      const node = ops.requireCreationNode(params['workspaceId'] ?? '', params['nodeId'] ?? '');
      const userId = requireUserId(store, params['memberId'], 'memberId');
      const role = roleType(body['roleType'], 'roleType');
      if (!store.members(node.dentryUuid).some((m) => m.userId === userId)) throw memberNotExist(userId, params['nodeId'] ?? '');
      store.upsertMember({ dentryUuid: node.dentryUuid, userId, roleType: role });
      return { success: true };
    },
  },
  {
    name: 'removeMember',
    method: 'DELETE',
    path: `${MEMBERS_PATH}/:memberId`,
    scopes: [Scope.docWrite],
    operatorIn: 'query',
    handle: ({ ops, store, params }) => {
      const node = ops.requireCreationNode(params['workspaceId'] ?? '', params['nodeId'] ?? '');
      const userId = requireUserId(store, params['memberId'], 'memberId');
      if (!store.removeMember(node.dentryUuid, userId)) throw memberNotExist(userId, params['nodeId'] ?? '');
      return { success: true };
    },
  },
];
