import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import util from 'node:util';
import { createLogger } from '../../../src/log.js';
import { asDocKey, asTreeNodeId, asWorkspaceId } from '../../../src/model/ids.js';
import { clientFor, startFakeService, type Reply, type SeenRequest } from './fake-service.js';

const SECRET = 'tok-NEVER-SHOW-ME-5f3a9c1e7d';

/** Each reply echoes the token back, as a careless gateway might: it must still never surface. */
const kinds: ReadonlyArray<readonly [string, (r: SeenRequest) => Reply]> = [
  ['bad request', () => ({ status: 400, json: { code: 'paramError', message: `bad header ${SECRET}` } })],
  ['forbidden', () => ({ status: 403, json: { code: 'Forbidden.AccessDenied.AccessTokenPermissionDenied', message: SECRET, requiredScopes: ['Wiki.Node.Read'] } })],
  ['not found', () => ({ status: 404, json: { code: 'nodeNotExist', message: SECRET } })],
  ['invalid path', () => ({ status: 404, json: { code: 'InvalidAction.NotFound', message: SECRET } })],
  ['unauthorized', () => ({ status: 401, json: { message: `token ${SECRET} expired` } })],
  ['throttled', () => ({ status: 429, json: { message: SECRET } })],
  ['server', () => ({ status: 500, json: { code: 'InternalError', message: SECRET } })],
  ['html', () => ({ status: 200, text: `<html>${SECRET}</html>` })],
  ['bad shape', () => ({ status: 200, json: { node: { nodeId: SECRET } } })],
  ['network reset', () => 'reset'],
  ['timeout', () => ({ json: {}, delayMs: 300 })],
];

function forms(error: unknown): string[] {
  const e = error as Error & { toJSON?: () => unknown; cause?: unknown };
  return [
    String(e),
    e.stack ?? '',
    JSON.stringify(e),
    JSON.stringify(e.toJSON?.()),
    util.inspect(e, { depth: null, showHidden: true }),
    util.inspect(e.cause, { depth: null, showHidden: true }),
  ];
}

void test('the token never appears in any error kind, however it is serialised, nor in a log line', async (t) => {
  let current: (r: SeenRequest) => Reply = () => ({ json: {} });
  const service = await startFakeService((r) => current(r));
  t.after(() => service.close());
  let logged = '';
  const destination = new Writable({ write: (chunk: Buffer, _e, done) => ((logged += chunk.toString()), done()) });
  const logger = createLogger({ level: 'debug', pretty: false, destination });
  const client = clientFor(service, { token: { get: async () => SECRET }, timeoutMs: 50, retry: { maxThrottles: 1, baseDelayMs: 1 }, logger });

  const seen: string[] = [];
  for (const [name, reply] of kinds) {
    current = reply;
    for (const call of [() => client.getNode(asTreeNodeId('n')), () => client.createDocument(asWorkspaceId('w'), { name: 'x' }), () => client.readBlocks(asDocKey('d'))]) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      assert.ok(error, `${name}: expected an error`);
      seen.push(`${name}:${(error as { code: string }).code}`);
      for (const form of forms(error)) assert.ok(!form.includes(SECRET), `${name}: the token leaked in\n${form}`);
    }
  }
  assert.ok(service.requests.every((r) => r.headers['x-acs-service-access-token'] === SECRET), 'the token was sent');
  assert.ok(logged.length > 0, 'something was logged');
  assert.ok(!logged.includes(SECRET), `the token leaked into the log:\n${logged}`);
  // Every kind was really produced, including the unknown outcome of a create.
  for (const code of ['API_BAD_REQUEST', 'API_FORBIDDEN', 'API_NOT_FOUND', 'API_INVALID_PATH', 'API_UNAUTHORIZED', 'API_THROTTLED', 'API_SERVER', 'API_BAD_RESPONSE', 'API_NETWORK', 'API_OUTCOME_UNKNOWN']) {
    assert.ok(seen.some((s) => s.endsWith(`:${code}`)), `no ${code} among ${seen.join(', ')}`);
  }
});
