import { test } from 'node:test';
import assert from 'node:assert/strict';
import { minuteByMinute, publishedOnBoth, reported, withWorkstationPair } from '../../helpers/workstation-pair.js';

/**
 * Convergence soak 745 (keyed, issue 44): A's user gave a page front matter, which reaches no document, only the
 * team's state; B's user deleted the file, and B deleted the document: an edit beats a delete, but the document's
 * time, by which B judged it, does not move for an edit of front matter. A then took the deletion, and the front
 * matter was in no file on any machine. Another writer's version B has not taken in, recorded in the state, is an
 * edit as much as one the document shows: the file comes back with it.
 */
const PAGE = '# Debug\n\nA tiny debugging utility.\n';
const WITH_HEAD = `---\ntags: [kept]\n---\n${PAGE}`;

for (const keyless of [false, true]) {
  test(`a delete over another machine's recorded edit of front matter brings the file back with it${keyless ? ' (keyless team)' : ''}`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'debug.md': PAGE, 'other.md': '# Other\n\nA page both have.\n' });
      await a.write('debug.md', WITH_HEAD);
      await sync(a);
      await b.remove('debug.md');
      // As the daemon's local cycle deletes it: a push, which lists nothing.
      tick();
      await reported(b, ['--push']);
      for (const f of [a, b]) await sync(f);
      assert.equal(await b.read('debug.md').catch(() => undefined), WITH_HEAD, "B's file is back, with A's front matter");
      assert.equal(await a.read('debug.md').catch(() => undefined), WITH_HEAD, "A's file stays");
      assert.ok(a.remoteDoc('Debug'), 'the document stays');
    });
  });
}

for (const keyless of [false, true]) {
  test(`a front matter edit whose record the delete came before is kept by its machine${keyless ? ' (keyless team)' : ''}`, async () => {
    await withWorkstationPair(keyless, async (em, a, b) => {
      const { sync, tick } = minuteByMinute(em);
      await publishedOnBoth(em, a, b, { 'debug.md': PAGE, 'other.md': '# Other\n\nA page both have.\n' });
      await a.write('debug.md', WITH_HEAD);
      tick();
      assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'before-publish' })).code, 0, 'A is killed before its record reaches the state');
      await b.remove('debug.md');
      await sync(b);
      for (const f of [a, b, a, b]) await sync(f);
      assert.equal(await a.read('debug.md').catch(() => undefined), WITH_HEAD, "A's front matter stays in A's file");
      assert.equal(await b.read('debug.md').catch(() => undefined), WITH_HEAD, 'and reaches B');
    });
  });
}
