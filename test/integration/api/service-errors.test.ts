import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors.js';
import { staticToken } from '../../../src/api/token.js';
import { asCreationNodeId, asDocKey, asTreeNodeId, asUnionId, asWorkspaceId } from '../../../src/model/ids.js';
import { withEmulator } from '../../helpers/emulator.js';
import { collect, emulatorClient } from './emulator-client.js';

const failure = (promise: Promise<unknown>): Promise<ApiError> =>
  promise.then(
    () => assert.fail('expected the call to fail'),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      return error;
    },
  );

void test('every error the emulated service answers maps to an ApiError that says what to do', async () => {
  await withEmulator(async (em) => {
    const client = emulatorClient(em);
    const ws = asWorkspaceId(em.seed.workspaceId);

    const asUserId = emulatorClient(em, { operatorId: asUnionId(em.seed.userId) });
    const param = await failure(collect(asUserId.listWorkspaces()));
    assert.deepEqual([param.code, param.serviceCode, param.status], ['API_BAD_REQUEST', 'paramError', 400]);
    assert.match(param.message, /unionId, not the userId/);

    const readOnly = emulatorClient(em, { token: staticToken(em.seed.readOnlyToken) });
    const forbidden = await failure(readOnly.createDocument(ws, { name: 'x' }));
    assert.equal(forbidden.code, 'API_FORBIDDEN');
    assert.deepEqual(forbidden.requiredScopes, ['Storage.File.Write']);
    assert.match(forbidden.message, /Grant Storage\.File\.Write/);

    const unknownToken = emulatorClient(em, { token: staticToken('not-a-token-of-this-service') });
    assert.equal((await failure(unknownToken.getWorkspace(ws))).code, 'API_UNAUTHORIZED');

    const wrongPrefix = emulatorClient(em, { baseUrl: `${em.seed.baseUrl}/v1.0` });
    const path = await failure(wrongPrefix.getWorkspace(ws));
    assert.deepEqual([path.code, path.serviceCode], ['API_INVALID_PATH', 'InvalidAction.NotFound']);

    const notFound = [
      await failure(client.getNode(asTreeNodeId('no-such-node'))),
      await failure(client.readBlocks(asDocKey('no-such-doc'))),
      await failure(client.getWorkspace(asWorkspaceId('no-such-ws'))),
      await failure(client.deleteDocument(ws, asCreationNodeId('no-such-node'))),
    ];
    for (const error of notFound) assert.equal(error.code, 'API_NOT_FOUND', error.message);
    assert.ok(notFound.every((e) => e.requestId !== undefined), 'the service request id is kept for support');

    // The creation nodeId is not a body id: the service says so (the types stop it at compile time; here by force).
    const created = await client.createDocument(ws, { name: 'Ids' });
    assert.equal((await failure(client.readBlocks(asDocKey(created.nodeId)))).code, 'API_NOT_FOUND');

    assert.equal(client.queue.stats().totals.failures, 5);
  });
});
