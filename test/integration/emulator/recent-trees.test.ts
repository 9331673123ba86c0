import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { emulatorParseCounts, parseMarkdown } from '../../../src/emulator/markdown/parse.js';
import { markdownToBlocks } from '../../../src/emulator/markdown/to-blocks.js';
import { markdownToHtml } from '../../../src/emulator/markdown/to-html.js';
import { createDoc, overwrite, withEmulator } from '../../helpers/emulator.js';

/** A body no other test in this process parses (the recent trees are the process's). */
const freshBody = (): string => `# Notes ${randomUUID()}\n\nSome **bold** words, a [link](https://example.com/a) and a list:\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n`;

describe('emulator: the trees of the texts it parsed last', () => {
  test('a body written, shown as a page and written again is parsed once', () =>
    withEmulator(async (em) => {
      const body = freshBody();
      const doc = await createDoc(em, 'Notes');
      const before = { ...emulatorParseCounts };
      assert.equal((await overwrite(em, doc.docKey, body)).status, 200);
      assert.equal((await fetch(doc.url)).status, 200);
      assert.equal((await overwrite(em, doc.docKey, body)).status, 200);
      em.admin.editDocument(doc.docKey, body);
      assert.deepEqual({ parsed: emulatorParseCounts.parsed - before.parsed, reused: emulatorParseCounts.reused - before.reused }, { parsed: 1, reused: 3 });
    }));

  test('converting a shared tree to blocks and to HTML leaves it as parsed', () => {
    const body = freshBody();
    const tree = parseMarkdown(body);
    const parsed = JSON.stringify(tree);
    let list = 0;
    markdownToBlocks(body, () => `list-${++list}`);
    markdownToHtml(body);
    assert.equal(parseMarkdown(body), tree, 'the same tree is handed out again');
    assert.equal(JSON.stringify(tree), parsed);
  });
});
