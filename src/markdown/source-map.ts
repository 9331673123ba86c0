import { decodeNamedCharacterReference } from 'decode-named-character-reference';

/*
 * Where the characters of a text node's value are written in its Markdown source. A text node's value is
 * the source decoded (escapes, character references, a wrapped line's prefix dropped), so an edit of the
 * value, or a piece of syntax found in it, can be put back at its exact place in the source: retext.ts
 * writes colleagues' edits this way, wiki-syntax.ts finds `[[links]]` this way.
 */

/**
 * The text a character reference (`&amp;`, `&#169;`, `&#x1F600;`) stands for, decoded by CommonMark's rules
 * (micromark's own: the HTML named references, and U+FFFD for a code point that cannot be one); undefined
 * when it is not a reference Markdown decodes.
 */
function decodedEntity(entity: string): string | undefined {
  const numeric = /^&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));$/.exec(entity);
  if (numeric) {
    const code = numeric[1] === undefined ? Number.parseInt(numeric[2] as string, 10) : Number.parseInt(numeric[1], 16);
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
  }
  const named = /^&([A-Za-z][A-Za-z0-9]{0,31});$/.exec(entity);
  const decoded = named ? decodeNamedCharacterReference(named[1] as string) : false;
  return decoded === false ? undefined : decoded;
}

/**
 * Where each character of a text node's value stands in its source: the same character, or one behind a
 * backslash escape, inside a character reference, or after a continuation line's indentation or `>`; the
 * spaces a line break drops are skipped. Undefined when the source is written some other way.
 */
export function charMap(value: string, source: string, start: number, end: number): number[] | undefined {
  const map: number[] = [];
  let j = start;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (i > 0 && value[i - 1] === '\n') while (j < end && source[j] !== c && (source[j] === ' ' || source[j] === '\t' || source[j] === '>')) j++;
    if (source[j] === '&') {
      const semi = source.indexOf(';', j);
      const decoded = semi > j && semi - j <= 32 ? decodedEntity(source.slice(j, semi + 1)) : undefined;
      if (decoded !== undefined && value.startsWith(decoded, i)) {
        for (let k = 0; k < decoded.length; k++) map.push(j);
        i += decoded.length - 1;
        j = semi + 1;
        continue;
      }
    }
    if (source[j] === c) {
      map.push(j++);
      continue;
    }
    if (c === '\n' || c === '\r') {
      let k = j;
      while (k < end && (source[k] === ' ' || source[k] === '\t')) k++;
      if (source[k] === c) {
        map.push(k);
        j = k + 1;
        continue;
      }
    }
    if (source[j] === '\\' && source[j + 1] === c) {
      map.push(j);
      j += 2;
      continue;
    }
    return undefined;
  }
  if (j !== end) return undefined;
  // A text that ends a line (formatting starts the next) ends, for what is written after it, past that line's
  // prefix: the `> ` of a quote, a wrapped item's indentation (model seed 110047: a colleague's words before
  // `_must_` on a quote's second line went before its `> `, and the quote was written plain).
  let after = end;
  if (value.endsWith('\n')) while (source[after] === ' ' || source[after] === '\t' || source[after] === '>') after++;
  map.push(after);
  return map;
}
