import { paramError } from './errors.js';

type Page<T> = { readonly items: readonly T[]; readonly nextToken: string; readonly hasMore: boolean; readonly pageNumber: number };

const DEFAULT_PAGE_SIZE = 20;

/** `maxResults`: default 20, clamped to the endpoint's maximum; not a positive integer → paramError. */
export function pageSize(raw: string | null, max: number): number {
  if (raw === null || raw === '') return DEFAULT_PAGE_SIZE;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw paramError(`maxResults must be a positive integer, got '${raw}'.`);
  return Math.min(value, max);
}

type Cursor = { readonly scope: string; readonly offset: number; readonly page: number };

/** Decodes an opaque nextToken; one from another listing (or a made-up one) is a paramError. */
export function decodeCursor(raw: string | null, scope: string): Cursor {
  if (raw === null || raw === '') return { scope, offset: 0, page: 1 };
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    cursor = undefined;
  }
  const c = cursor as Partial<Cursor> | undefined;
  if (!c || c.scope !== scope || !Number.isInteger(c.offset) || !Number.isInteger(c.page) || (c.offset ?? -1) < 0) {
    throw paramError(`nextToken '${raw}' is not valid for this listing; pass the nextToken of the previous page, or '' to start.`);
  }
  return c as Cursor;
}

const encodeCursor = (cursor: Cursor): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

/** One page of `all`, continuing from `nextToken`; the answer's nextToken is '' when done. */
export function paginate<T>(all: readonly T[], cursor: Cursor, size: number): Page<T> {
  const items = all.slice(cursor.offset, cursor.offset + size);
  const end = cursor.offset + items.length;
  const hasMore = end < all.length;
  const nextToken = hasMore ? encodeCursor({ scope: cursor.scope, offset: end, page: cursor.page + 1 }) : '';
  return { items, nextToken, hasMore, pageNumber: cursor.page };
}
