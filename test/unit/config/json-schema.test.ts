import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { renderConfigJsonSchema, configJsonSchema } from '../../../src/config/index.js';

test('schema/sync.config.schema.json is what scripts/gen-schema.ts generates (run it after changing the schema)', async () => {
  const committed = await readFile(new URL('../../../schema/sync.config.schema.json', import.meta.url), 'utf8');
  assert.equal(committed, renderConfigJsonSchema());
});

test('the JSON Schema rejects unknown keys, requires the three keys without defaults, and describes options', () => {
  const schema = configJsonSchema() as { additionalProperties: boolean; required: string[]; properties: Record<string, { description?: string; required?: string[] }> };
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(schema.required.sort(), ['service', 'workspaceId']);
  assert.deepEqual(schema.properties['service']?.required?.sort(), ['baseUrl', 'operatorId']);
  for (const [key, property] of Object.entries(schema.properties)) assert.ok(property.description, `${key} has a description`);
});
