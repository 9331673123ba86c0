// Regenerates schema/sync.config.schema.json from the zod schema in src/config/schema.ts.
// Usage: node --import tsx scripts/gen-schema.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigJsonSchema } from '../src/config/json-schema.js';

const target = fileURLToPath(new URL('../schema/sync.config.schema.json', import.meta.url));
writeFileSync(target, renderConfigJsonSchema());
console.log(`wrote ${target}`);
