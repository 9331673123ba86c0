import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InputError } from '../../../src/errors.js';
import { parseDocument, serializeDocument } from '../../../src/markdown/index.js';

describe('parseDocument / serializeDocument', () => {
  test('splits typed keys from the rest and keeps the front matter text exactly', () => {
    const text = '---\ntitle: Plan   # the plan\nmembers:\n  - { userId: u1, role: editor }\npublish: true\ntags: [a, b]\n---\n# Body\n';
    const doc = parseDocument(text);
    assert.equal(doc.hasFrontMatter, true);
    assert.equal(doc.body, '# Body\n');
    assert.deepEqual(doc.frontMatter, { title: 'Plan', members: [{ userId: 'u1', role: 'editor' }], publish: true, extra: { tags: ['a', 'b'] } });
    assert.equal(doc.frontMatterText + doc.body, text);
    // A pull writes a new body under the original front matter, comment and spacing included.
    assert.equal(serializeDocument({ ...doc, body: 'new\n' }), text.replace('# Body\n', 'new\n'));
  });

  test('a file without front matter is all body', () => {
    for (const text of ['# Only body\n', '----\nrule first\n', '']) {
      const doc = parseDocument(text);
      assert.equal(doc.hasFrontMatter, false);
      assert.equal(doc.body, text);
      assert.equal(serializeDocument(doc), text);
    }
  });

  test('changed front matter is written anew, unknown keys kept', () => {
    const doc = parseDocument('---\ntitle: Old\ncustom: 7\n---\nbody\n');
    const text = serializeDocument({ body: doc.body, frontMatter: { ...doc.frontMatter, title: 'New' }, frontMatterText: doc.frontMatterText });
    assert.deepEqual(parseDocument(text).frontMatter, { title: 'New', extra: { custom: 7 } });
    assert.equal(parseDocument(text).body, 'body\n');
  });

  test('malformed YAML is an InputError naming the line', () => {
    assert.throws(
      () => parseDocument('---\ntitle: ok\nmembers: [\n---\nbody', 'notes/a.md'),
      (error: unknown) => error instanceof InputError && error.code === 'FRONT_MATTER_YAML' && /notes\/a\.md/.test(error.message) && /line \d+/.test(error.message),
    );
  });

  test('YAML a note editor opens all the same is read key by key: what cannot be read is left out and named', () => {
    // Real vault notes: an alias YAML reserves (`@`), a value after a key's list, a key given twice, a tab.
    const doc = parseDocument('---\naliases:\n- @kepano\ntags:\n- people\npublish: true\nrank: 1\nrank: 2\n---\n\n# Kepano\n');
    assert.deepEqual(doc.frontMatter, { publish: true, extra: { tags: ['people'], rank: 2 } });
    assert.equal(doc.body, '\n# Kepano\n');
    assert.equal(doc.frontMatterText, '---\naliases:\n- @kepano\ntags:\n- people\npublish: true\nrank: 1\nrank: 2\n---\n');
    assert.deepEqual(doc.lenient?.left, ['aliases']);
    assert.match(doc.lenient?.error ?? '', /line 3/);
    assert.deepEqual(parseDocument('---\naliases: LifeOS\n- \ntags:\n- PARA\n---\nx').frontMatter, { extra: { tags: ['PARA'] } });
    assert.equal(parseDocument('---\ntitle: ok\n---\nbody').lenient, undefined, 'valid YAML is read as it always was');
  });

  test("kbsync's own keys are read exactly or the file is refused: unreadable, or given twice", () => {
    for (const text of ['---\naliases:\n- @me\npublish: false\npublish: true\n---\n', '---\ntitle: a: b\n---\n', '---\nx: @y\nmembers: [\n---\n']) {
      assert.throws(() => parseDocument(text), (error: unknown) => error instanceof InputError && error.code === 'FRONT_MATTER_YAML', text);
    }
  });

  test('invalid members name the key and the value', () => {
    assert.throws(
      () => parseDocument('---\nmembers:\n  - { userId: u1, role: owner }\n---\n'),
      (error: unknown) => error instanceof InputError && /members\[0\]/.test(error.message) && /owner/.test(error.message),
    );
    assert.throws(() => parseDocument('---\nmembers: everyone\n---\n'), /"members" is "everyone"/);
    assert.throws(() => parseDocument('---\npublish: maybe\n---\n'), /"publish"/);
  });

  test('front matter that would run code is refused', () => {
    assert.throws(() => parseDocument('---js\n{ title: process.exit(1) }\n---\nbody'), (error: unknown) => error instanceof InputError && error.code === 'FRONT_MATTER_LANGUAGE');
  });
});
