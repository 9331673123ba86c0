import * as z from 'zod/mini';
import { ConfigSchema } from './schema.js';

/**
 * The JSON Schema of sync.config.json, generated from the zod schema so the two never drift
 * (`node --import tsx scripts/gen-schema.ts` writes schema/sync.config.schema.json; a test
 * checks the committed file is current).
 */
export function configJsonSchema(): Record<string, unknown> {
  // Input side: keys with defaults are optional in the file.
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, title: 'kbsync sync.config.json' };
}

export function renderConfigJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
