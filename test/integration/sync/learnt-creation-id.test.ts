import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reported, withArmedPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 735 (keyed): A listed and pulled a page B had just made, before B's record of its creation id
 * came, so A's ledger row had no id (pulled: someone else made it). The id came with B's record, and a run that read
 * the shared state learnt it for its plan; but nothing kept it, and a later run that had no reason to read the state
 * again (it had not changed) planned without it. A deleted the file: held NOT_CREATED, said to be a person's to delete
 * in the web editor, where the team's verified state held the id that deletes it.
 */
const PAGE = '# form-data\n\nEncode form data.\n';

test("a page pulled before its maker's record of its creation id: once a run learnt the id from the team's state, deleting the file deletes it", async () => {
  // A runs when B, its page created, appends its record of the creation id.
  let created = false;
  const idsAppend = (request: { method: string; path: string }): boolean => {
    if (request.method === 'POST' && /\/workspaces\/[^/]+\/docs/.test(request.path)) created = true;
    return created && request.path.includes('appendText');
  };
  await withArmedPair(false, idsAppend, async ({ em, a, b, gate, sync }) => {
    await b.write('form-data.md', PAGE);
    gate.arm(() => reported(a));
    await sync(b);
    assert.ok(gate.fired, "A listed the page before B's record of its id");
    assert.equal(await a.read('form-data.md'), '', 'A pulled the page, before its first body');
    // A takes the body in and learns the id from B's record (the state changed), then runs with nothing new to read in it.
    for (const f of [a, b, a, a]) await sync(f);
    assert.equal(await a.read('form-data.md'), PAGE, "A has B's page");
    const key = b.remoteDoc('form-data').dentryUuid;
    await a.remove('form-data.md');
    const deleted = await sync(a);
    assert.deepEqual(
      deleted.results.filter((r) => r.path === 'form-data.md').map((r) => (r.ok ? [r.action, r.reason ?? ''] : [r.code, ''])),
      [['delete-remote', '']],
      JSON.stringify(deleted.results),
    );
    assert.equal(em.admin.dump().nodes.find((node) => node.dentryUuid === key), undefined, 'the document is gone');
    await sync(b);
    await assert.rejects(b.read('form-data.md'), 'and B follows the delete');
  });
});
