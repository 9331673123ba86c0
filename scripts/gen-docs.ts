// Rewrites the README's generated tables (exit codes, error codes, hold reasons) from the code's own lists.
// Usage: node --import tsx scripts/gen-docs.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { regenerate } from '../src/docs/generated-sections.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
writeFileSync(readme, regenerate(readFileSync(readme, 'utf8')));
console.log(`wrote ${readme}`);
