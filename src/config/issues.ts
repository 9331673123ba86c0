import type * as z from 'zod/mini';
import { ConfigSchema } from './schema.js';
import { knownKeysAt } from './schema-walk.js';
import { closest } from './suggest.js';

/**
 * One line per problem, naming the key path, what was expected, and what was received, e.g.
 * `service.rateLimit: expected a positive number, got "fast"`. Token values are never shown.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown, origins: ReadonlyMap<string, string>): string[] {
  return issues.flatMap((issue) => {
    const dotted = issue.path.map(String).join('.');
    const from = origins.get(dotted) ?? origins.get(issue.path.slice(0, -1).map(String).join('.'));
    const label = `${dotted || '(top level)'}${from ? ` (from ${from})` : ''}`;
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(ConfigSchema, issue.path);
      return issue.keys.map((key) => {
        const suggestion = closest(key, known);
        const where = dotted ? `${dotted}: unknown key` : 'unknown key';
        return `${where} "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; known keys: ${known.join(', ')}`;
      });
    }
    const value = valueAt(input, issue.path);
    return [`${label}: ${expectation(issue)}, got ${show(value, issue.path)}`];
  });
}

function expectation(issue: z.core.$ZodIssue): string {
  // Our schema words its own messages ("expected ..."); zod's defaults are reworded the same way.
  if (issue.message.startsWith('expected')) return issue.message;
  if (issue.code === 'invalid_type') return `expected ${issue.expected === 'object' ? 'an object' : issue.expected}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function show(value: unknown, path: readonly PropertyKey[]): string {
  if (value === undefined) return 'nothing (this key is required)';
  // A token, even a malformed one, must not end up in an error message or a log.
  if (path[0] === 'service' && path[1] === 'token') return Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value === 'object' ? `an object with the keys ${Object.keys(value).join(', ') || '(none)'}` : `a ${typeof value}`;
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
