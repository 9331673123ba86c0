import fc from 'fast-check';

/**
 * Generated Markdown documents made of the kinds a knowledge-base body holds: headings, paragraphs with
 * inline formatting and links, nested and numbered lists, quotes, code, images, tables and HTML. Words
 * come from a small vocabulary so that equal blocks occur (alignment must cope with repeats).
 */
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa'] as const;

const word = fc.constantFrom(...WORDS);
const formattedWord = fc.oneof(
  { weight: 5, arbitrary: word },
  { weight: 1, arbitrary: word.map((w) => `**${w}**`) },
  { weight: 1, arbitrary: word.map((w) => `_${w}_`) },
  { weight: 1, arbitrary: word.map((w) => `\`${w}\``) },
  { weight: 1, arbitrary: word.map((w) => `[${w}](https://example.com/${w})`) },
);
export const inline = fc.array(formattedWord, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));

const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), inline).map(([level, text]) => `${'#'.repeat(level)} ${text}`);
const paragraph = inline;
const quote = fc.array(inline, { minLength: 1, maxLength: 2 }).map((paras) => paras.map((p) => `> ${p}`).join('\n>\n'));
const code = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => `\`\`\`js\n${words.join('\n')}\n\`\`\``);
const image = word.map((w) => `![${w}](${w}.png)`);
const table = fc.tuple(word, word, word, word).map(([a, b, c, d]) => `| ${a} | ${b} |\n|---|---|\n| ${c} | ${d} |`);
const html = word.map((w) => `<div>${w}</div>`);

const item = fc.record({ text: inline, children: fc.array(inline, { maxLength: 2 }) });
const list = fc.tuple(fc.boolean(), fc.array(item, { minLength: 1, maxLength: 3 })).map(([ordered, items]) =>
  items
    .map((entry, k) => {
      const marker = ordered ? `${k + 1}.` : '-';
      const pad = ' '.repeat(marker.length + 1);
      return [`${marker} ${entry.text}`, ...entry.children.map((child) => `${pad}- ${child}`)].join('\n');
    })
    .join('\n'),
);

export const block = fc.oneof(
  { weight: 2, arbitrary: heading },
  { weight: 4, arbitrary: paragraph },
  { weight: 2, arbitrary: list },
  { weight: 1, arbitrary: quote },
  { weight: 1, arbitrary: code },
  { weight: 1, arbitrary: image },
  { weight: 1, arbitrary: table },
  { weight: 1, arbitrary: html },
);

/** A document as its top-level Markdown pieces (joined with blank lines). */
export const documentParts = fc.array(block, { minLength: 1, maxLength: 8 });
export const join = (parts: readonly string[]): string => (parts.length === 0 ? '' : `${parts.join('\n\n')}\n`);

/** An edit of a document's top-level pieces; markers make every new text traceable. */
export type PartEdit = { readonly kind: 'insert' | 'replace' | 'delete'; readonly at: number };
export const partEdits = fc.array(
  fc.record({ kind: fc.constantFrom('insert', 'replace', 'delete') as fc.Arbitrary<PartEdit['kind']>, at: fc.nat() }),
  { maxLength: 3 },
);

/** Apply edits; new or replaced pieces are paragraphs carrying `marker-<n>` words. Returns the markers used. */
export function applyPartEdits(parts: readonly string[], edits: readonly PartEdit[], marker: string): { parts: string[]; markers: string[] } {
  const out = [...parts];
  const markers: string[] = [];
  edits.forEach((edit, n) => {
    const text = `${marker}${n} words`;
    if (edit.kind === 'insert') {
      out.splice(edit.at % (out.length + 1), 0, text);
      markers.push(`${marker}${n}`);
    } else if (out.length > 0 && edit.kind === 'replace') {
      out[edit.at % out.length] = text;
      markers.push(`${marker}${n}`);
    } else if (out.length > 0) out.splice(edit.at % out.length, 1);
  });
  return { parts: out, markers: markers.filter((m) => out.some((part) => part.includes(m))) };
}
