import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GENERATED_SECTIONS, regenerate } from '../../src/docs/generated-sections.js';

test('the README tables of exit codes, error codes and hold reasons are generated from the code (npm run gen:docs)', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const name of Object.keys(GENERATED_SECTIONS)) assert.match(readme, new RegExp(`<!-- generated:${name} -->`), `the README has the ${name} table`);
  assert.equal(regenerate(readme), readme, 'a table is out of date: run npm run gen:docs');
});
