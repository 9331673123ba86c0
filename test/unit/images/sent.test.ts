import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSentImages, encodeSentImages, imagesDiffer, sharedImagesOf } from '../../../src/images/sent.js';
import type { SentImage } from '../../../src/images/types.js';

const a: SentImage = { p: 'img/a.png', h: 'sha256:aa', u: 'https://cdn/a', s: 10, m: 1000 };
const b: SentImage = { p: 'img/b.png', h: 'sha256:bb', u: 'https://cdn/b' };
const diagram: SentImage = { p: 'mermaid', h: 'diagram:cc', u: 'https://cdn/c', d: 1 };

describe('the images a document was sent with', () => {
  test('imagesDiffer ignores order and the stat, but not the file, the bytes or the URL', () => {
    assert.equal(imagesDiffer([a, b, diagram], [diagram, b, a]), false);
    assert.equal(imagesDiffer([], []), false);
    assert.equal(imagesDiffer([a], [{ ...a, s: 11, m: 2000 }]), false, 'the stat is only a hashing shortcut');
    assert.equal(imagesDiffer([a], [{ ...a, p: 'img/other.png' }]), true);
    assert.equal(imagesDiffer([a], [{ ...a, h: 'sha256:new' }]), true);
    assert.equal(imagesDiffer([a], [{ ...a, u: '' }]), true);
    assert.equal(imagesDiffer([a, b], [a]), true);
    assert.equal(imagesDiffer([a], [a, b]), true);
    assert.equal(imagesDiffer([a, a], [a, b]), true, 'a multiset, not a set');
  });

  test('encode and decode round-trip; none encodes as null', () => {
    assert.deepEqual(decodeSentImages(encodeSentImages([a, b, diagram])), [a, b, diagram]);
    assert.equal(encodeSentImages([]), null);
    assert.equal(encodeSentImages(undefined), null);
  });

  test('decodeSentImages reads damaged text as none and drops entries without p, h and u strings', () => {
    for (const garbage of [null, undefined, '', 'not json', '{"p":"x"}', '42', 'null', '"text"', '[1']) {
      assert.deepEqual(decodeSentImages(garbage), [], String(garbage));
    }
    const mixed = JSON.stringify([a, null, 3, 'x', { p: 'x', h: 'y' }, { p: 1, h: 'y', u: 'z' }, [], b]);
    assert.deepEqual(decodeSentImages(mixed), [a, b]);
  });

  test('sharedImagesOf keeps what other machines can use: no size, no mtime', () => {
    assert.deepEqual(sharedImagesOf(encodeSentImages([a, diagram])), { im: [{ p: 'img/a.png', h: 'sha256:aa', u: 'https://cdn/a' }, diagram] });
    assert.deepEqual(sharedImagesOf(null), {});
    assert.deepEqual(sharedImagesOf('garbage'), {});
  });
});
