import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startEmulator } from '../../src/emulator/index.js';
import { markdownToBlocks } from '../../src/emulator/markdown/to-blocks.js';
import { documentTitle } from '../../src/sync/content/document-text.js';
import { isOpaque, proseVariant } from '../soak/pages.js';
import { holdVerdict, Pages } from '../soak/rules.js';

/**
 * The convergence soak's own rules (test/soak; the soak itself is `npm run soak`), checked here, where no
 * process is started for them: its prose pages are pages a read shows whole, and its rule of which holds may
 * stand once everything has settled is the one it states.
 */

/** A few corpus documents with badges, HTML, code, tables and link definitions (the whole corpus costs seconds to parse). */
const SAMPLES = ['github-slugger.md', 'fast-levenshtein.md', 'better-sqlite3.md', 'p-limit.md'].map((name) => {
  const text = readFileSync(new URL(`../model/corpus/${name}`, import.meta.url), 'utf8');
  return { name, text, title: documentTitle(text, name) };
});

test('a corpus document made a prose page is one a read shows whole: headings, paragraphs, list items and quotes, under its title', () => {
  for (const doc of SAMPLES) {
    assert.equal(isOpaque(doc.text), true, `${doc.name} as it is holds what reads hide`);
    const prose = proseVariant(doc);
    const kinds = new Set(markdownToBlocks(prose.text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, ''), () => 'list').map((block) => block.payload.blockType));
    assert.deepEqual([...kinds].filter((kind) => !['heading', 'paragraph', 'unorderedList', 'orderedList', 'blockquote'].includes(kind)), [], doc.name);
    assert.equal(isOpaque(prose.text), false, doc.name);
    assert.equal(documentTitle(prose.text, doc.name), doc.title, doc.name);
    assert.ok(kinds.has('paragraph'), `${doc.name} keeps its paragraphs`);
  }
});

test("a page is prose when a read shows every block of it, as README says: a list item's first paragraph, quotes of paragraphs, words around inline images", () => {
  const cases: readonly [string, boolean][] = [
    ['# T\n\nWords with **bold**, `code`, a [link](https://x.test) and ![an image](i.png) inline.\n\n> A quote.\n\n- an item\n  - a nested item\n', false],
    ['---\ntags: [a]\n---\n# T\n\nWords.\n', false],
    ['# T\n\n![only an image](i.png)\n', true],
    ['# T\n\n- an item\n\n  its second paragraph\n', true],
    ['# T\n\n- [x] a task\n', true],
    ['# T\n\n> - a list in a quote\n', true],
    ['# T\n\n```\ncode\n```\n', true],
    ['# T\n\n| a |\n|---|\n| b |\n', true],
    ['# T\n\n[x]: https://x.test\n', true],
    ['# T\n\n---\n\nWords.\n', true],
  ];
  for (const [text, opaque] of cases) assert.equal(isOpaque(text), opaque, text);
});

test('which holds may stand once settled: only where a colleague edited what reads cannot compare', () => {
  const page = (over: Partial<Parameters<typeof holdVerdict>[1]>) => ({ opaqueEdit: false, invisibleEdit: false, proseEdit: false, formattingAdded: false, ...over });
  const rows: readonly [string, Parameters<typeof holdVerdict>[1], boolean][] = [
    ['FLATTEN', page({ opaqueEdit: true }), true],
    ['HIDDEN_EDIT', page({ opaqueEdit: true, invisibleEdit: true }), true],
    ['DELETE_LOSSY', page({ opaqueEdit: true }), true],
    ['MOVE_LOSSY', page({ opaqueEdit: true }), true],
    // A colleague's new code block that a move would bring into the file as a placeholder: the move waits (a file that
    // holds placeholders already is a finding of its own, verdict.ts).
    ['MOVE_PLACEHOLDERS', page({ opaqueEdit: true }), true],
    ['MOVE_PLACEHOLDERS', page({ proseEdit: true }), false],
    // Every document here was made from a file whose source the shared state keeps: placeholders in a file are a finding.
    ['PLACEHOLDERS', page({ opaqueEdit: true }), false],
    // A change with no visible difference holds as a hidden edit (and its move), not as anything else.
    ['HIDDEN_EDIT', page({ proseEdit: true, invisibleEdit: true }), true],
    ['MOVE_LOSSY', page({ proseEdit: true, invisibleEdit: true }), true],
    ['FLATTEN', page({ proseEdit: true, invisibleEdit: true }), false],
    ['DELETE_LOSSY', page({ proseEdit: true, invisibleEdit: true }), false],
    ['FLATTEN', page({ proseEdit: true }), false],
    ['FLATTEN', page({ proseEdit: true, formattingAdded: true }), false],
    ['HIDDEN_EDIT', page({ proseEdit: true }), false],
    ['FLATTEN', undefined, false],
    ['DELETE_WAITING', page({ opaqueEdit: true }), false],
    ['REMOTE_EDITED', page({ opaqueEdit: true }), false],
    ['CREATE_ANSWER_LOST', undefined, false],
  ];
  for (const [code, history, allowed] of rows) assert.equal(holdVerdict(code, history).allowed, allowed, `${code} ${JSON.stringify(history)}`);
  // A team without a state key holds another machine's document's delete by its own choice (README "Authenticated records").
  assert.equal(holdVerdict('ID_UNVERIFIED', undefined, { keyless: true }).allowed, true);
  assert.equal(holdVerdict('ID_UNVERIFIED', undefined, { keyless: false }).allowed, false);
});

test("a page's history, from the colleague's edits as the service holds them: prose or not, visible or not, formatting added", async () => {
  const em = await startEmulator({ rateLimit: 0 });
  try {
    const pages = new Pages();
    const doc = (name: string, markdown: string) => {
      const made = em.admin.createDocument({ name, markdown });
      const node = em.admin.dump().nodes.find((n) => n.dentryUuid === made.dentryUuid);
      assert.ok(node);
      return node;
    };
    const edit = (before: ReturnType<typeof doc>, markdown: string, added: string[] = []) => {
      em.admin.editDocument(before.dentryUuid, markdown);
      const after = em.admin.dump().nodes.find((n) => n.dentryUuid === before.dentryUuid);
      assert.ok(after);
      pages.colleagueEdited(before, after, added);
    };
    const prose = doc('Prose', '# Prose\n\nOne two three.\n');
    edit(prose, '# Prose\n\nOne two c1z three.\n');
    assert.deepEqual(pages.of(prose), { opaqueEdit: false, invisibleEdit: false, proseEdit: true, formattingAdded: false });
    const bold = doc('Bold', '# Bold\n\nOne.\n');
    edit(bold, '# Bold\n\nOne.\n\n**c2z** and more\n', ['**c2z** and more']);
    assert.equal(pages.of(bold)?.formattingAdded, true);
    const code = doc('Code', '# Code\n\nRun it:\n\n```sh\nnpm test\n```\n');
    edit(code, '# Code\n\nRun it:\n\n```sh\nnpm test\nc3z\n```\n');
    assert.deepEqual(pages.of(code), { opaqueEdit: true, invisibleEdit: true, proseEdit: false, formattingAdded: false });
    assert.equal(pages.of(doc('Untouched', '# Untouched\n\nText.\n')), undefined);
    // A move makes a new document of the same title: what the colleague did to the page still counts.
    assert.equal(pages.of({ title: 'Code', dentryUuid: 'another-document' })?.opaqueEdit, true);
  } finally {
    await em.close();
  }
});
