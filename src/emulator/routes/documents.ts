import { paramError } from '../errors.js';
import { Scope } from '../scopes.js';
import { createdView } from '../views.js';
import { optionalString, requiredString } from './fields.js';
import type { Route } from './types.js';

const DOC_TYPES = ['DOC', 'FOLDER', 'WORKBOOK', 'MIND'] as const;
type CreatableDocType = (typeof DOC_TYPES)[number];

function docTypeOf(value: unknown): CreatableDocType {
  if (typeof value === 'string' && (DOC_TYPES as readonly string[]).includes(value)) return value as CreatableDocType;
  throw paramError(`docType must be one of ${DOC_TYPES.join(', ')} (DOC for a rich-text document), got ${JSON.stringify(value)}.`);
}

export const documentRoutes: readonly Route[] = [
  {
    name: 'createDocument',
    method: 'POST',
    path: '/v1.0/doc/workspaces/:workspaceId/docs',
    scopes: [Scope.fileWrite],
    operatorIn: 'body',
    handle: ({ ops, params, body, operatorId, baseUrl }) => {
      const docType = docTypeOf(body['docType']);
      const name = requiredString(body, 'name');
      const node = ops.createNode({
        workspaceId: params['workspaceId'] ?? '',
        parentId: optionalString(body, 'parentNodeId'),
        name,
        docType,
        actor: operatorId,
      });
      return createdView(node, baseUrl);
    },
  },
  {
    name: 'deleteDocument',
    method: 'DELETE',
    path: '/v1.0/doc/workspaces/:workspaceId/docs/:nodeId',
    scopes: [Scope.fileWrite],
    operatorIn: 'query',
    handle: ({ ops, params }) => {
      ops.delete(ops.requireCreationNode(params['workspaceId'] ?? '', params['nodeId'] ?? ''));
      return {};
    },
  },
];
