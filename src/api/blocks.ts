import { asBlockId } from '../model/ids.js';
import { isKnownBlockType } from '../model/block-kinds.js';
import type { Block } from '../model/blocks.js';
import type { RawBlock } from './schemas.js';

/**
 * Reads one block of the service tolerantly (real-service-notes): heading level as `heading-N`
 * or a number; table rows as `rowSize` or `rolSize`, with `cells` when present; list items'
 * `{ list: { listId, level } }` under the block-type object or at the top level; missing text is ''.
 * Kinds kbsync does not model (callout, columns, code, images…) become `unknown` with their kind.
 */
export function parseBlock(raw: RawBlock, position: number): Block {
  const id = asBlockId(raw.id);
  const index = typeof raw.index === 'number' ? raw.index : position;
  const kind = raw.blockType;
  const body = objectAt(raw, kind);
  const text = textOf(body) ?? textOf(raw) ?? '';
  if (!isKnownBlockType(kind)) return { id, index, type: 'unknown', kind };
  switch (kind) {
    case 'heading':
      return { id, index, type: 'heading', level: headingLevel(body['level'] ?? raw['level']), text };
    case 'paragraph':
    case 'blockquote':
      return { id, index, type: kind, text };
    case 'unorderedList':
    case 'orderedList': {
      const list = { ...objectAt(raw, 'list'), ...objectAt(body, 'list') };
      const level = Number(list['level']);
      return { id, index, type: kind, text, listId: String(list['listId'] ?? ''), level: Number.isFinite(level) ? level : 0 };
    }
    case 'table': {
      const cells = cellsOf(body['cells']);
      const rows = count(body['rowSize'] ?? body['rolSize']) ?? cells?.length ?? 0;
      const cols = count(body['colSize']) ?? cells?.[0]?.length ?? 0;
      return cells ? { id, index, type: 'table', cols, rows, cells } : { id, index, type: 'table', cols, rows };
    }
  }
}

type Json = Readonly<Record<string, unknown>>;

function objectAt(value: Json, key: string): Json {
  const inner = value[key];
  return typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Json) : {};
}

const textOf = (value: Json): string | undefined => (typeof value['text'] === 'string' ? value['text'] : undefined);

/** `heading-2`, `2` or 2 → 2; anything unreadable → 1, clamped to 1..6. */
function headingLevel(value: unknown): number {
  const match = typeof value === 'number' ? value : Number(/(\d+)\s*$/.exec(String(value))?.[1]);
  return Number.isInteger(match) ? Math.min(6, Math.max(1, match)) : 1;
}

function count(value: unknown): number | undefined {
  const n = Number(value);
  return value !== undefined && value !== null && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function cellsOf(value: unknown): string[][] | undefined {
  if (!Array.isArray(value) || !value.every(Array.isArray)) return undefined;
  return (value as unknown[][]).map((row) => row.map((cell) => (typeof cell === 'string' ? cell : cell === null || cell === undefined ? '' : JSON.stringify(cell))));
}
