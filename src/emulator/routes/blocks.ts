import { paramError } from '../errors.js';
import { Scope } from '../scopes.js';
import type { ServiceBlock } from '../store/types.js';
import { requiredString } from './fields.js';
import type { Route } from './types.js';

/** The SDK documents this limit for an overwrite; the contract leaves it unstated. */
const MAX_CONTENT_LENGTH = 50_000;

function indexParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw paramError(`${name} must be an integer >= 0, got '${raw}'.`);
  return value;
}

/** startIndex and endIndex are inclusive positions; blockType keeps only blocks of that type. */
function filterBlocks(blocks: readonly ServiceBlock[], query: URLSearchParams): readonly ServiceBlock[] {
  const start = indexParam(query, 'startIndex') ?? 0;
  const end = indexParam(query, 'endIndex') ?? Number.POSITIVE_INFINITY;
  const type = query.get('blockType');
  return blocks.filter((b) => b.index >= start && b.index <= end && (type === null || type === '' || b.blockType === type));
}

function markdownType(body: Readonly<Record<string, unknown>>): void {
  for (const field of ['contentType', 'dataType']) {
    const value = body[field];
    if (value !== undefined && value !== 'markdown') throw paramError(`${field} must be 'markdown', got ${JSON.stringify(value)}.`);
  }
}

export const blockRoutes: readonly Route[] = [
  {
    name: 'readBlocks',
    method: 'GET',
    path: '/v1.0/doc/suites/documents/:docKey/blocks',
    scopes: [Scope.fileRead],
    operatorIn: 'query',
    handle: ({ ops, store, params, query }) => {
      const node = ops.requireBodyDoc(params['docKey'] ?? '');
      const blocks = (store.body(node.dentryUuid)?.blocks ?? []).map((stored) => stored.block);
      return { result: { data: filterBlocks(blocks, query) }, success: true };
    },
  },
  {
    name: 'overwriteContent',
    method: 'POST',
    path: '/v1.0/doc/suites/documents/:docKey/overwriteContent',
    scopes: [Scope.fileWrite],
    operatorIn: 'both',
    handle: ({ ops, params, body, operatorId }) => {
      const node = ops.requireBodyDoc(params['docKey'] ?? '');
      const content = body['content'];
      if (typeof content !== 'string') throw paramError(`Body field 'content' is required and must be a Markdown string, got ${JSON.stringify(content)}.`);
      if (content.length > MAX_CONTENT_LENGTH) {
        throw paramError(`content is ${content.length} characters long; an overwrite takes at most ${MAX_CONTENT_LENGTH} characters.`);
      }
      markdownType(body);
      ops.writeBody(node, content, operatorId, false);
      return { success: true, result: { data: {} } };
    },
  },
  {
    name: 'appendText',
    method: 'POST',
    path: '/v1.0/doc/suites/documents/:docKey/blocks/:blockId/paragraph/appendText',
    scopes: [Scope.fileWrite],
    operatorIn: 'body',
    handle: ({ ops, params, body, operatorId }) => {
      const node = ops.requireBodyDoc(params['docKey'] ?? '');
      const text = requiredString(body, 'text');
      const whole = ops.appendText(node, params['blockId'] ?? '', text, operatorId);
      return { success: true, result: { data: { text: whole } } };
    },
  },
];
