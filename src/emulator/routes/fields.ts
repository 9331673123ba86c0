import { paramError } from '../errors.js';

/** A required non-empty string field of a JSON body; anything else is a paramError naming the field. */
export function requiredString(body: Readonly<Record<string, unknown>>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw paramError(`Body field '${field}' is required and must be a non-empty string${value === undefined ? '' : `, got ${JSON.stringify(value)}`}.`);
  }
  return value;
}

export function optionalString(body: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw paramError(`Body field '${field}' must be a string, got ${JSON.stringify(value)}.`);
  return value;
}

export function requiredQuery(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null || value === '') throw paramError(`Query parameter '${name}' is required.`);
  return value;
}

export const ROLE_TYPES = ['viewer', 'editor'] as const;

export function roleType(value: unknown, field: string): (typeof ROLE_TYPES)[number] {
  if (value === 'viewer' || value === 'editor') return value;
  throw paramError(`${field} must be 'viewer' or 'editor', got ${JSON.stringify(value)}.`);
}
