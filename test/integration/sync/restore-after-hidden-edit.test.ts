import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedOnBoth, withWorkstationPair, minuteByMinute } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 719 (keyless): B deleted a file whose document A made (held: a keyless team deletes no document on an
 * id it cannot verify); a colleague added a code line to it, which reads cannot show; A said HIDDEN_EDIT and
 * published its record; B restored the file, then pushed its next edit over the colleague's line: the restore, planned
 * for a change it saw, kept no mark of the hidden edit it was made for, and took the other writer's record, which said
 * that edit itself, for a write explaining the time.
 */
const PAGE = '# Dateformat\n\nFormat dates.\n\n```js\nformat(now)\n```\n\nThe end.\n';

test('a file restored after a colleague edited inside its code keeps the next overwrite held (keyless)', async () => {
  await withWorkstationPair(true, async (em, a, b) => {
    const { sync, tick } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'dateformat.md': PAGE, 'other.md': '# Other\n\nWords.\n' });
    await b.remove('dateformat.md');
    await sync(b);
    tick();
    const doc = a.remoteDoc('Dateformat');
    em.admin.editDocument(doc.dentryUuid, (doc.markdown ?? '').replace('format(now)', 'format(now)\nformat(then)'));
    tick();
    tick();
    await sync(a);
    await sync(b);
    assert.match(await b.read('dateformat.md'), /Format dates/, 'B restored the file');
    await b.write('dateformat.md', (await b.read('dateformat.md')).replace('Format dates.', 'Format dates, edited on B.'));
    await sync(b);
    await sync(b);
    assert.match(a.remoteDoc('Dateformat').markdown ?? '', /format\(then\)/, "the colleague's code line stands");
  });
});
