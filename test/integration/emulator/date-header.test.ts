import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { callArrived, createDoc, withEmulator, type RunningEmulator } from '../../helpers/emulator.js';

const EPOCH = Date.UTC(2026, 11, 2, 10, 39, 30);
const minuteOf = (date: string | undefined): string => `${new Date(Date.parse(date ?? '')).toISOString().slice(0, 16)}Z`;

/** An overwrite whose headers go first; `meanwhile` runs once the service has taken them in, before its body is sent. */
function overwriteInTwoParts(em: RunningEmulator, docKey: string, content: string, meanwhile: () => Promise<void>): Promise<{ status: number; date: string | undefined }> {
  const url = new URL(`/v1.0/doc/suites/documents/${docKey}/overwriteContent?operatorId=${em.seed.operatorId}`, em.url);
  const body = JSON.stringify({ operatorId: em.seed.operatorId, content, contentType: 'markdown' });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { [em.seed.tokenHeader]: em.seed.token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, date: res.headers.date }));
    });
    req.on('error', reject);
    req.flushHeaders();
    meanwhile().then(() => req.end(body), reject);
  });
}

test("the Date header is the service's clock as it answers, so a write is never stamped later than its answer's Date (convergence soak 761)", () =>
  withEmulator(async (em) => {
    em.admin.freezeClock(EPOCH);
    const doc = await createDoc(em, 'Acorn');
    const before = em.admin.calls().byEndpoint.overwriteContent.calls;
    const answer = await overwriteInTwoParts(em, doc.docKey, '# Acorn\n\nIt is fast.\n', async () => {
      await callArrived(em, 'overwriteContent', before);
      // The clock steps on while the request is in the service, its body not read yet.
      em.admin.setClockOffset(60_000);
    });
    assert.equal(answer.status, 200);
    const stamped = em.admin.dump().nodes.find((node) => node.dentryUuid === doc.dentryUuid)?.modifiedTime;
    assert.equal(stamped, '2026-12-02T10:40Z', 'the write was made after the step');
    assert.equal(minuteOf(answer.date), stamped, "the answer's Date is of the minute the write was stamped with");
  }));
