import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createDoc, withEmulator } from '../../helpers/emulator.js';

describe('emulator: authentication, scopes, operatorId and error bodies', () => {
  test('a missing or unknown token is 401 InvalidAuthentication with a { code, message, requestid } body', () =>
    withEmulator(async (em) => {
      const query = { operatorId: em.seed.operatorId };
      for (const token of [null, 'not-a-token']) {
        const r = await call(em, 'GET', '/v2.0/wiki/workspaces', { query, token });
        assert.equal(r.status, 401);
        assert.equal(r.body.code, 'InvalidAuthentication');
        assert.equal(typeof r.body.message, 'string');
        assert.equal(typeof r.body.requestid, 'string');
      }
    }));

  test('the token header name is configurable', () =>
    withEmulator(
      async (em) => {
        assert.equal(em.seed.tokenHeader, 'x-other-token');
        const ok = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.operatorId } });
        assert.equal(ok.status, 200);
        const wrongHeader = await call(em, 'GET', '/v2.0/wiki/workspaces', {
          query: { operatorId: em.seed.operatorId },
          token: null,
          headers: { 'x-acs-service-access-token': em.seed.token },
        });
        assert.equal(wrongHeader.status, 401);
      },
      { tokenHeader: 'x-other-token' },
    ));

  test('the read-only token reads but writing is 403 with requiredScopes at the top level and in accessdenieddetail', () =>
    withEmulator(async (em) => {
      const { operatorId, workspaceId, readOnlyToken } = em.seed;
      const read = await call(em, 'GET', `/v2.0/wiki/workspaces/${workspaceId}`, { query: { operatorId }, token: readOnlyToken });
      assert.equal(read.status, 200);
      const create = await call(em, 'POST', `/v1.0/doc/workspaces/${workspaceId}/docs`, {
        body: { operatorId, docType: 'DOC', name: 'x' },
        token: readOnlyToken,
      });
      assert.equal(create.status, 403);
      assert.equal(create.body.code, 'Forbidden.AccessDenied.AccessTokenPermissionDenied');
      assert.deepEqual(create.body.requiredScopes, ['Storage.File.Write']);
      assert.deepEqual(create.body.accessdenieddetail.requiredScopes, ['Storage.File.Write']);
      const doc = await createDoc(em, 'members-scope');
      const members = await call(em, 'POST', `/v1.0/doc/workspaces/${workspaceId}/docs/${doc.nodeId}/members`, {
        body: { operatorId, members: [{ id: em.seed.otherUser.userId, roleType: 'viewer' }] },
        token: readOnlyToken,
      });
      assert.equal(members.status, 403);
      assert.deepEqual(members.body.requiredScopes, ['Document.WorkspaceDocument.Write']);
    }));

  test('a token without Storage.File.Read cannot read blocks; one without Document.WorkspaceDocument.Read cannot search', () =>
    withEmulator(async (em) => {
      const token = em.admin.addToken(['Wiki.Node.Read']);
      const doc = await createDoc(em, 'scoped');
      const blocks = await call(em, 'GET', `/v1.0/doc/suites/documents/${doc.docKey}/blocks`, { query: { operatorId: em.seed.operatorId }, token });
      assert.equal(blocks.status, 403);
      assert.deepEqual(blocks.body.requiredScopes, ['Storage.File.Read']);
      const search = await call(em, 'GET', '/v1.0/doc/docs', { query: { operatorId: em.seed.operatorId, workspaceId: em.seed.workspaceId, keyword: 'x' }, token });
      assert.deepEqual(search.body.requiredScopes, ['Document.WorkspaceDocument.Read']);
    }));

  test('operatorId missing is 400 MissingoperatorId, in the query for GET and in the body for create', () =>
    withEmulator(async (em) => {
      const list = await call(em, 'GET', '/v2.0/wiki/workspaces');
      assert.equal(list.status, 400);
      assert.equal(list.body.code, 'MissingoperatorId');
      // create wants it in the body: the query alone is not enough
      const create = await call(em, 'POST', `/v1.0/doc/workspaces/${em.seed.workspaceId}/docs`, {
        query: { operatorId: em.seed.operatorId },
        body: { docType: 'DOC', name: 'x' },
      });
      assert.equal(create.status, 400);
      assert.equal(create.body.code, 'MissingoperatorId');
    }));

  test('a userId (or an unknown string) as operatorId is 400 paramError that says a unionId is needed', () =>
    withEmulator(async (em) => {
      const byUserId = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: em.seed.userId } });
      assert.equal(byUserId.status, 400);
      assert.equal(byUserId.body.code, 'paramError');
      assert.match(byUserId.body.message, /is a userId/);
      assert.notEqual(em.seed.userId, em.seed.operatorId);
      const unknown = await call(em, 'GET', '/v2.0/wiki/workspaces', { query: { operatorId: 'nobody' } });
      assert.equal(unknown.body.code, 'paramError');
      assert.match(unknown.body.message, /unionId/);
    }));

  test('overwrite without operatorId in the body, or without it in the query, is 400 Missingcontent', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'ow');
      const path = `/v1.0/doc/suites/documents/${doc.docKey}/overwriteContent`;
      const noBody = await call(em, 'POST', path, { query: { operatorId: em.seed.operatorId }, body: { content: 'x', contentType: 'markdown' } });
      assert.equal(noBody.status, 400);
      assert.equal(noBody.body.code, 'Missingcontent');
      const noQuery = await call(em, 'POST', path, { body: { operatorId: em.seed.operatorId, content: 'x', contentType: 'markdown' } });
      assert.equal(noQuery.status, 400);
      assert.equal(noQuery.body.code, 'Missingcontent');
    }));

  test('an unknown path or a wrong version prefix is 404 InvalidAction.NotFound', () =>
    withEmulator(async (em) => {
      const query = { operatorId: em.seed.operatorId };
      for (const path of ['/v1.0/wiki/workspaces', `/v2.0/doc/workspaces/${em.seed.workspaceId}/docs`, '/v3.0/nothing', '/']) {
        const r = await call(em, 'GET', path, { query });
        assert.equal(r.status, 404, path);
        assert.equal(r.body.code, 'InvalidAction.NotFound', path);
      }
      const wrongPrefixCreate = await call(em, 'POST', `/v2.0/doc/workspaces/${em.seed.workspaceId}/docs`, {
        body: { operatorId: em.seed.operatorId, docType: 'DOC', name: 'x' },
      });
      assert.equal(wrongPrefixCreate.body.code, 'InvalidAction.NotFound');
      assert.equal(em.admin.calls().notFound, 5);
    }));

  test('unknown ids are 404 workspaceNotExist, nodeNotExist and docNotExist', () =>
    withEmulator(async (em) => {
      const query = { operatorId: em.seed.operatorId };
      const ws = await call(em, 'GET', '/v2.0/wiki/workspaces/nope', { query });
      assert.equal(ws.status, 404);
      assert.equal(ws.body.code, 'workspaceNotExist');
      const node = await call(em, 'GET', '/v2.0/wiki/nodes/nope', { query });
      assert.equal(node.body.code, 'nodeNotExist');
      const list = await call(em, 'GET', '/v2.0/wiki/nodes', { query: { ...query, parentNodeId: 'nope' } });
      assert.equal(list.body.code, 'nodeNotExist');
      const doc = await call(em, 'GET', '/v1.0/doc/suites/documents/nope/blocks', { query });
      assert.equal(doc.status, 404);
      assert.equal(doc.body.code, 'docNotExist');
      const create = await call(em, 'POST', '/v1.0/doc/workspaces/nope/docs', { body: { operatorId: em.seed.operatorId, docType: 'DOC', name: 'x' } });
      assert.equal(create.body.code, 'workspaceNotExist');
    }));
});
