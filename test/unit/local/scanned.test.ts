import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ScannedFiles, type LocalFile } from '../../../src/local/index.js';
import { byKey } from '../../../src/local/scan.js';

// Names that sort differently by key and by path: NFD and NFC forms of one name, case, a character past U+FFFF.
const name = fc.constantFrom('a', 'B', 'é', 'e\u0301', 'z', '\u{1F600}', '\u{FF21}', 'dir/a', 'dir/é', 'dir/e\u0301x');
const fileOf = (path: string, n: number): LocalFile => ({ path: `${path}.md`, key: `${path}.md`.normalize('NFC'), size: n, mtimeMs: n, ino: n, dev: 1 });

describe('ScannedFiles', () => {
  test('finds exactly the file a search of every file finds, in a scan sorted as scan.ts sorts it or in any order; a forgotten one is not found', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name), fc.boolean(), name, fc.option(name), (names, sorted, asked, forgotten) => {
        const files = names.map(fileOf);
        if (sorted) files.sort(byKey);
        const expected = files.find((file) => file.path === `${asked}.md`);
        // A sorted scan's files are found by the search alone, not file by file.
        if (sorted && expected) Object.defineProperty(files, 'find', { value: () => assert.fail('looked at every file') });
        const scanned = new ScannedFiles(files);
        if (forgotten !== null) scanned.delete(`${forgotten}.md`);
        const path = `${asked}.md`;
        assert.equal(scanned.get(path), asked === forgotten ? undefined : expected);
      }),
      { numRuns: 500 },
    );
  });
});
