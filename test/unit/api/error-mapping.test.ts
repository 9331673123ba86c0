import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isForbidden, isInvalidPath, isNotFound } from '../../../src/api/errors.js';
import { asTreeNodeId } from '../../../src/model/ids.js';
import { clientFor, startFakeService, type Reply } from './fake-service.js';

type Row = { readonly name: string; readonly reply: Reply; readonly code: string; readonly message: RegExp; readonly scopes?: readonly string[] };

const serviceError = (status: number, code: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  json: { code, message: `service says ${code}`, requestid: 'req-42', ...extra },
});

const rows: readonly Row[] = [
  { name: 'MissingoperatorId', reply: serviceError(400, 'MissingoperatorId'), code: 'API_BAD_REQUEST', message: /unionId \(not the userId\)/ },
  {
    name: 'paramError (userId as operatorId)',
    reply: serviceError(400, 'paramError', { message: 'operatorId must be a unionId' }),
    code: 'API_BAD_REQUEST',
    message: /must be the user's unionId, not the userId/,
  },
  {
    name: 'paramError about another parameter (a title too long): operatorId is not blamed',
    reply: serviceError(400, 'paramError', { message: 'name is 300 characters long; at most 255 are allowed.' }),
    code: 'API_BAD_REQUEST',
    message: /name is 300 characters long.*The message above names the parameter/,
  },
  { name: 'Missingcontent', reply: serviceError(400, 'Missingcontent'), code: 'API_BAD_REQUEST', message: /both the query and the body/ },
  {
    name: '403 with requiredScopes at the top level',
    reply: serviceError(403, 'Forbidden.AccessDenied.AccessTokenPermissionDenied', { requiredScopes: ['Wiki.Node.Read'] }),
    code: 'API_FORBIDDEN',
    message: /Grant Wiki\.Node\.Read/,
    scopes: ['Wiki.Node.Read'],
  },
  {
    name: '403 with requiredScopes under accessdenieddetail',
    reply: serviceError(403, 'Forbidden.AccessDenied.AccessTokenPermissionDenied', { accessdenieddetail: { requiredScopes: ['Storage.File.Read', 'Storage.File.Write'] } }),
    code: 'API_FORBIDDEN',
    message: /Storage\.File\.Read, Storage\.File\.Write/,
    scopes: ['Storage.File.Read', 'Storage.File.Write'],
  },
  { name: '403 without scopes', reply: serviceError(403, 'Forbidden.AccessDenied'), code: 'API_FORBIDDEN', message: /scopes this call needs/ },
  { name: 'InvalidAction.NotFound', reply: serviceError(404, 'InvalidAction.NotFound'), code: 'API_INVALID_PATH', message: /baseUrl .*\/v1\.0 vs \/v2\.0 prefix/ },
  { name: '404 without a code', reply: { status: 404, json: {} }, code: 'API_INVALID_PATH', message: /baseUrl/ },
  { name: 'nodeNotExist', reply: serviceError(404, 'nodeNotExist'), code: 'API_NOT_FOUND', message: /is gone/ },
  { name: 'docNotExist', reply: serviceError(404, 'docNotExist'), code: 'API_NOT_FOUND', message: /is gone/ },
  { name: 'workspaceNotExist', reply: serviceError(404, 'workspaceNotExist'), code: 'API_NOT_FOUND', message: /is gone/ },
  { name: 'document deleted (400)', reply: serviceError(400, 'invalidRequest.document.deleted'), code: 'API_NOT_FOUND', message: /is gone/ },
  { name: 'name conflict', reply: serviceError(400, 'invalidRequest.workspaceNode.nameConflict'), code: 'API_CONFLICT', message: /already exists/ },
  { name: '401 without a refresh', reply: { status: 401, json: { code: 'InvalidAuthentication', message: 'expired' } }, code: 'API_UNAUTHORIZED', message: /get a new access token/ },
  { name: 'other 4xx', reply: serviceError(400, 'somethingOdd'), code: 'API_BAD_REQUEST', message: /somethingOdd/ },
  { name: '5xx after every attempt', reply: serviceError(503, 'ServiceUnavailable'), code: 'API_SERVER', message: /usually temporary/ },
  { name: 'HTML success page', reply: { status: 200, text: '<html><body>Please log in</body></html>' }, code: 'API_BAD_RESPONSE', message: /HTML instead of JSON.*baseUrl.*banned/ },
  { name: 'HTML ban page (403)', reply: { status: 403, text: '<!DOCTYPE html><h1>Access denied</h1>' }, code: 'API_BAD_RESPONSE', message: /HTML instead of JSON/ },
  { name: 'not JSON at all', reply: { status: 200, text: 'ok', headers: { 'content-type': 'text/plain' } }, code: 'API_BAD_RESPONSE', message: /not JSON/ },
  { name: 'wrong JSON shape', reply: { status: 200, json: { node: { nodeId: 7 } } }, code: 'API_BAD_RESPONSE', message: /expected shape \(node\.nodeId/ },
  { name: 'redirect', reply: { status: 302, headers: { location: 'http://elsewhere/' }, json: {} }, code: 'API_BAD_RESPONSE', message: /redirect/ },
];

void describe('service answers map to ApiError codes and messages that say what to do', () => {
  for (const row of rows) {
    void test(row.name, async (t) => {
      const service = await startFakeService(() => row.reply);
      t.after(() => service.close());
      const client = clientFor(service, { retry: { baseDelayMs: 1 } });
      const error = await client.getNode(asTreeNodeId('n1')).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, row.code);
      assert.match(error.message, row.message);
      assert.equal(error.endpoint, 'getNode');
      if (row.scopes) assert.deepEqual(error.requiredScopes, row.scopes);
      if (typeof row.reply === 'object' && row.reply.json && typeof row.reply.json === 'object' && 'requestid' in row.reply.json) {
        assert.equal(error.requestId, 'req-42');
      }
    });
  }

  void test('predicates tell "gone" from "wrong path" (a wrong path must never look like a deleted document)', async (t) => {
    const replies = [serviceError(404, 'docNotExist'), serviceError(404, 'InvalidAction.NotFound'), serviceError(403, 'x', { requiredScopes: ['A'] })];
    const service = await startFakeService((_r, i) => replies[i] ?? {});
    t.after(() => service.close());
    const client = clientFor(service);
    const errors = await Promise.all([0, 1, 2].map(() => client.getNode(asTreeNodeId('n')).catch((e: unknown) => e)));
    assert.deepEqual(errors.map(isNotFound), [true, false, false]);
    assert.deepEqual(errors.map(isInvalidPath), [false, true, false]);
    assert.deepEqual(errors.map(isForbidden), [false, false, true]);
  });
});
