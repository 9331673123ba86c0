import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { withEmulator } from '../../helpers/emulator.js';

/** One raw request, with exactly the headers given (fetch would not let a test set Host). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the admin routes refuse a request through a foreign host name (DNS rebinding) and a body that is not declared JSON', async () => {
  await withEmulator(async (em) => {
    const port = new URL(em.url).port;
    const edit = JSON.stringify({ name: 'planted' });
    const documents = (): number => em.admin.dump().nodes.length;
    const before = documents();

    // A page at http://attacker.example:PORT whose name now resolves to 127.0.0.1.
    const rebound = await raw(em.url, 'GET', '/_emulator/seed', { host: `attacker.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.ok(!rebound.body.includes(em.seed.token), 'the seed (tokens) was not given away');
    const planted = await raw(em.url, 'POST', '/_emulator/documents', { host: `attacker.example:${port}`, 'content-type': 'application/json' }, edit);
    assert.equal(planted.status, 403);

    // A form or a plain-text POST, which any page may send without asking.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const sent = await raw(em.url, 'POST', '/_emulator/documents', { host: `127.0.0.1:${port}`, 'content-type': type }, edit);
      assert.equal(sent.status, 415, type);
    }
    const bare = await raw(em.url, 'POST', '/_emulator/calls/reset', { host: `127.0.0.1:${port}` });
    assert.equal(bare.status, 415, 'no content type at all');
    assert.equal(documents(), before, 'nothing was created');

    // What scripts and tests send: by address or as localhost, JSON declared.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
      assert.equal((await raw(em.url, 'GET', '/_emulator/calls', { host })).status, 200, host);
    }
    const made = await raw(em.url, 'POST', '/_emulator/documents', { host: `localhost:${port}`, 'content-type': 'application/json; charset=utf-8' }, edit);
    assert.equal(made.status, 200, made.body);
    assert.equal(documents(), before + 1);
  });
});
