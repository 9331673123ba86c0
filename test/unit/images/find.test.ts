import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findImages, imageDefinitionIds, type Found } from '../../../src/images/find.js';
import { parseMarkdown } from '../../../src/markdown/parse.js';

/** Each image found, with the source text its span covers (null when the span is unknown). */
const found = (body: string, languages: readonly string[] = []) =>
  findImages(body, languages).map((image: Found) => ({
    kind: image.kind,
    url: image.kind === 'image' ? image.url : undefined,
    line: image.line,
    written: image.span ? body.slice(image.span.start, image.span.end) : null,
  }));

describe('finding the images of a body', () => {
  test('inline images: the span is only the URL, without the title or the pointy brackets', () => {
    const body = 'Intro ![a](x.png "The title") and ![b](<my pic.png>)\n\n![c](img/y.png)\n';
    assert.deepEqual(found(body), [
      { kind: 'image', url: 'x.png', line: 1, written: 'x.png' },
      { kind: 'image', url: 'my pic.png', line: 1, written: 'my pic.png' },
      { kind: 'image', url: 'img/y.png', line: 3, written: 'img/y.png' },
    ]);
  });

  test('a backslash escape in the destination: the URL is unescaped, the span still covers what is written', () => {
    assert.deepEqual(found('![a](x\\_y.png)\n'), [{ kind: 'image', url: 'x_y.png', line: 1, written: 'x\\_y.png' }]);
  });

  test('reference-style images are found at their definition; a definition a link also uses stays the links\'', () => {
    const body = '![a][ref] and [l][both] ![i][both] [only link][link]\n\n[ref]: img/x.png "T"\n[both]: y.png\n[link]: z.png\n';
    assert.deepEqual(found(body), [{ kind: 'image', url: 'img/x.png', line: 3, written: 'img/x.png' }]);
  });

  test('imageDefinitionIds: the identifiers only images use, normalised as the parser does', () => {
    const tree = parseMarkdown('![a][Shot] [b][both] ![c][both] ![e][Other]\n\n[shot]: a.png\n[both]: b.png\n[other]: c.png\n');
    assert.deepEqual([...imageDefinitionIds(tree)].sort(), ['other', 'shot']);
    assert.deepEqual([...imageDefinitionIds(parseMarkdown('[a][x] text\n\n[x]: a.png\n'))], []);
  });

  test('HTML <img>: block and inline, double-, single- and unquoted src, other attributes around it', () => {
    const body = '<img src="a.png" width=10>\n\ntext <img width="3" src=\'b.png\'> and <img alt="c" src=c.png>\n';
    assert.deepEqual(found(body), [
      { kind: 'image', url: 'a.png', line: 1, written: 'a.png' },
      { kind: 'image', url: 'b.png', line: 3, written: 'b.png' },
      { kind: 'image', url: 'c.png', line: 3, written: 'c.png' },
    ]);
  });

  test('an <img> tag spread over lines inside an HTML block is found on the line its tag starts', () => {
    assert.deepEqual(found('<div>\n<img\n  src="multi.png"\n  width="20">\n</div>\n'), [{ kind: 'image', url: 'multi.png', line: 2, written: 'multi.png' }]);
  });

  test('data-src is not src', () => {
    assert.deepEqual(found('<img data-src="lazy.png" src="real.png">\n'), [{ kind: 'image', url: 'real.png', line: 1, written: 'real.png' }]);
  });

  test('an entity in src: the URL is decoded and the span is unknown, since the written text is not the URL', () => {
    assert.deepEqual(found('<img src="a&amp;b.png">\n'), [{ kind: 'image', url: 'a&b.png', line: 1, written: null }]);
  });

  test(
    'an entity other than &amp; &quot; &#39; in src also leaves the span unknown (as decodeEntities documents)',
    () => {
      const [image] = findImages('<img src="x&#x41;.png">\n');
      assert.equal(image?.span, undefined);
    },
  );

  test(
    'an image whose span is unknown still comes in source order',
    () => {
      const body = '![first](first.png)\n\n<img src="a&amp;b.png">\n';
      assert.deepEqual(
        findImages(body).map((image) => image.kind === 'image' && image.url),
        ['first.png', 'a&b.png'],
      );
    },
  );

  test('an unquoted src holding a slash is found inside an HTML block', () => {
    assert.deepEqual(found('<div>\n<img src=img/x.png width=3>\n</div>\n'), [{ kind: 'image', url: 'img/x.png', line: 2, written: 'img/x.png' }]);
  });

  test('fenced code in a configured diagram language is a diagram whose span is the whole fence; other code is ignored', () => {
    const body = '# T\n\n```mermaid\ngraph A-->B\n```\n\n```js\nconst a = "![x](y.png)";\n```\n\n    ![indented](code.png)\n';
    const [diagram, ...rest] = findImages(body, ['Mermaid']);
    assert.deepEqual(rest, []);
    assert.equal(diagram?.kind, 'diagram');
    assert.ok(diagram?.kind === 'diagram');
    assert.equal(diagram.language, 'mermaid');
    assert.equal(diagram.source, 'graph A-->B');
    assert.equal(diagram.line, 3);
    assert.equal(body.slice(diagram.span.start, diagram.span.end), '```mermaid\ngraph A-->B\n```');
  });

  test('without configured diagram languages a diagram fence is plain code', () => {
    assert.deepEqual(findImages('```mermaid\ngraph A-->B\n```\n'), []);
    assert.deepEqual(findImages('```mermaid\ngraph A-->B\n```\n', ['plantuml']), []);
  });

  test('images in inline code are not images', () => {
    assert.deepEqual(found('Write `![a](x.png)` or `<img src="y.png">`.\n'), []);
  });

  test('everything comes back in source order, whatever its kind', () => {
    const body = [
      '<img src="first.png">',
      '',
      '```dot',
      'digraph { a -> b }',
      '```',
      '',
      '![third][r] then ![fourth](fourth.png) <img src="fifth.png">',
      '',
      '[r]: third.png',
      '',
    ].join('\n');
    assert.deepEqual(
      found(body, ['dot']).map((image) => [image.kind, image.url ?? image.written, image.line]),
      [
        ['image', 'first.png', 1],
        ['diagram', '```dot\ndigraph { a -> b }\n```', 3],
        ['image', 'fourth.png', 7],
        ['image', 'fifth.png', 7],
        ['image', 'third.png', 9],
      ],
    );
  });

  test('a body without images finds none; links are not images', () => {
    assert.deepEqual(findImages('# Title\n\n[a link](x.png) and <https://e.com/y.png>\n\n[d]: z.png\n'), []);
  });
});
