import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { outline } from '../../../src/markdown/outline.js';
import { parseMarkdown, useMarkdownDialect } from '../../../src/markdown/parse.js';
import { wikiSyntaxIn } from '../../../src/markdown/wiki-syntax.js';
import { wikiText } from '../../../src/markdown/wiki/links.js';

const texts = (body: string): string[] => outline(body).map((node) => `${node.type}: ${node.text}`);
const refsOf = (body: string) => wikiSyntaxIn(parseMarkdown(body)).refs.map((ref) => ({ written: body.slice(ref.start, ref.end), target: ref.target, fragment: ref.fragment, label: ref.label, shown: wikiText(ref) }));

describe('reading a vault note (the wiki dialect)', () => {
  beforeEach(() => useMarkdownDialect('wiki'));
  afterEach(() => useMarkdownDialect('gfm'));

  test('a wiki link reads as the text the editor shows: its label, else the note and its heading path', () => {
    assert.deepEqual(texts('See [[Note]], [[Note|the note]], [[folder/Note#Setup#Linux]], [[#Intro]] and [[Note#^b15695]].'), [
      'paragraph: See Note, the note, folder/Note > Setup > Linux, Intro and Note.',
    ]);
    assert.deepEqual(refsOf('x [[a/b.md#H|label]] y')[0], { written: '[[a/b.md#H|label]]', target: 'a/b.md', fragment: 'H', label: 'label', shown: 'label' });
  });

  test('an image embed is an image (a paragraph of only images is the service\'s image block); a note embed reads as a link', () => {
    assert.deepEqual(texts('![[diagram.png|300]]\n\nText ![[photo.jpg|A photo]] and ![[Other note#Part]].'), ['unknown: ', 'paragraph: Text A photo and Other note > Part.']);
  });

  test('escaped brackets, code spans, code blocks and text inside Markdown links stay as written', () => {
    const body = 'Type \\[\\[x]] or `[[y]]`, see [a [[z]] b](https://e.x).\n\n```\n[[w]]\n```\n';
    assert.deepEqual(refsOf(body), []);
    assert.deepEqual(texts(body)[0], 'paragraph: Type [[x]] or [[y]], see a [[z]] b.');
  });

  test('in a table cell the label follows an escaped pipe; a link keeps its place among the cell\'s words', () => {
    const body = '| a | b |\n|---|---|\n| [[Note\\|label]] x | ![[pic.png\\|200]] |\n';
    assert.deepEqual(refsOf(body).map((r) => [r.written, r.target, r.label, r.shown]), [
      ['[[Note\\|label]]', 'Note', 'label', 'label'],
      ['![[pic.png\\|200]]', 'pic.png', '200', 'pic.png'],
    ]);
    assert.deepEqual(outline(body)[0]?.cells, [['a', 'b'], ['label x', 'pic.png']]);
  });

  test('a label holding code (the editor reads the brackets first) is one link whose words are the label read as Markdown', () => {
    const body = 'In [[Intro|Bases]], by the [[Functions#hasTag|`hasTag`]] function; see [[#`move`|move]] and `[[x|y]]`.';
    assert.deepEqual(texts(body), ['paragraph: In Bases, by the hasTag function; see move and [[x|y]].']);
    assert.deepEqual(refsOf(body).map((r) => [r.written, r.target, r.fragment, r.label]), [
      ['[[Intro|Bases]]', 'Intro', undefined, 'Bases'],
      ['[[Functions#hasTag|`hasTag`]]', 'Functions', 'hasTag', '`hasTag`'],
      ['[[#`move`|move]]', '', '`move`', 'move'],
    ]);
  });

  test('a callout\'s marker reads as its bold label; the title and body follow', () => {
    assert.deepEqual(texts('> [!warning]- Mind the gap\n> Body text.\n\n> [!NOTE]\n> Alert.\n\n> [!tip] **Bold** title\n'), [
      'blockquote: Warning: Mind the gap\nBody text.',
      'blockquote: Note\nAlert.',
      'blockquote: Tip: Bold title',
    ]);
    // Not a callout: escaped, or not at the quote's start.
    assert.deepEqual(texts('> \\[!note] x\n\n> a [!note] b\n'), ['blockquote: [!note] x', 'blockquote: a [!note] b']);
  });

  test('a docs-site admonition (:::type Title … :::) reads as a quote of its blocks, opening with the bold label', () => {
    assert.deepEqual(texts('Before.\n\n:::tip Title\nSome **content**.\n\n- a\n- b\n:::\n\nAfter.\n'), [
      'paragraph: Before.',
      'blockquote: Tip: Title\nSome content.\nab',
      'paragraph: After.',
    ]);
    // Not one: no closing line, or words right after the type.
    assert.deepEqual(texts(':::note\ntext\n\nmore\n'), ['paragraph: :::note\ntext', 'paragraph: more']);
    assert.deepEqual(texts(':::note:x\ntext\n:::\n'), ['paragraph: :::note:x\ntext\n:::']);
  });

  test('an MkDocs admonition (!!! type "Title", ??? collapsible) reads as a quote of its indented body, opening with the bold label', () => {
    assert.deepEqual(texts('!!! note "My title"\n    Some **content**.\n\n    - a\n        - b\n\n    ```\n    code\n    ```\n\nAfter.\n'), [
      'blockquote: Note: My title\nSome content.\nab\ncode',
      'paragraph: After.',
    ]);
    assert.deepEqual(texts('???+ tip\n\n    Body.\n'), ['blockquote: Tip\nBody.']);
    // Not one: no indented body, or a marker that is not at a paragraph's start.
    assert.deepEqual(texts('!!! note\nflat\n'), ['paragraph: !!! note\nflat']);
    assert.deepEqual(texts('x !!! note\n    y\n'), ['paragraph: x !!! note\ny']);
  });

  test('a block id ending a paragraph, an item or a heading is no text of it', () => {
    assert.deepEqual(texts('Some words. ^b15695\n\n- item ^x-1\n\n## Head ^h2\n\nNot^an-id, and `code ^x`\n\n> A quote\n^quote-id\n\n^after-list\n'), [
      'paragraph: Some words.',
      'unorderedList: item',
      'heading: Head',
      'paragraph: Not^an-id, and code ^x',
      'blockquote: A quote',
    ]);
  });

  test('comments (%%…%%, and HTML\'s) are no words, and no link in one is a link: the editor never shows them', () => {
    assert.deepEqual(texts('Ship it today.\n\n%%\nprivate [[Plan]]\n%%\n\n- item %%why [[Missing]]%%\n- a %%b%% c\n'), ['paragraph: Ship it today.', 'unorderedList: item', 'unorderedList: a c']);
    // Over lines and blocks, at a line of its own inside a paragraph, to the end of the note when none closes it.
    assert.deepEqual(texts('Para %%start\n\n# Not a heading [[x]]\n\nmore%% end.\n\na\n%%note%%\nb %%open [[y]]\n\nnever shown\n'), ['paragraph: Para', 'paragraph: end.', 'paragraph: a\nb']);
    assert.deepEqual(texts('<!-- - [[GitHub sponsors]]: [x](y.md) ^github-sponsor-->\n\nA <!-- [[Missing]] --> b\n\n<!--\n## Sponsor this author\n-->\n'), ['paragraph: A b']);
    assert.deepEqual(texts('<!-- a --> shown <!-- b -->\n'), ['unknown: '], 'HTML that is more than a comment stays (the service shows it)');
    // kbsync's placeholder stands for a block the service holds (model seeds 8003, 8024): a block, not a comment.
    const placeholder = '<!-- kbsync: a block the service does not expose (code, image or other) is here; edit it in the web editor -->';
    assert.deepEqual(texts(`Steps:\n\n${placeholder}\n\nAfter.\n`), ['paragraph: Steps:', 'unknown: ', 'paragraph: After.']);
    // Code and escapes keep their %%; a comment hides a block id after it only with the words before it.
    assert.deepEqual(texts('`%%` and %%real%% and \\%% not\n\n```\n%%\n```\n\nwords %%why%% ^b1\n'), ['paragraph: %% and and %% not', 'unknown: ', 'paragraph: words']);
    assert.deepEqual(refsOf('%% ![[ben#Sponsor this author]] %%\n\nDeveloped by: [[ben]]\n').map((ref) => ref.written), ['[[ben]]']);
  });

  test('without the dialect the same text is CommonMark: brackets are brackets', () => {
    useMarkdownDialect('gfm');
    assert.deepEqual(texts('See [[Note|x]].\n\n> [!note] T\n'), ['paragraph: See [[Note|x]].', 'blockquote: [!note] T']);
  });
});
