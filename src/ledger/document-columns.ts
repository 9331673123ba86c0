import { KbsyncError } from '../errors.js';
import { REFUSED_VALUE_HINT } from './errors.js';
import type { Block } from '../model/blocks.js';
import { parseJson, toJson } from './json.js';
import { checkRelativePath } from './rel-path.js';
import { ORIGINS, type DocumentBody, type DocumentRecord, type DocumentSummary, type MemberRecord } from './types.js';

type DbValue = string | number | null;
type Kind = 'path' | 'id' | 'nullable-id' | 'text' | 'nullable-text' | 'number' | 'flag' | 'nullable-path' | 'origin' | 'blocks' | 'members' | 'json';
type Table = 'documents' | 'document_bodies';
/** `derived`: kept by the ledger itself (a trigger), read but never written. */
export type Column = { readonly field: keyof DocumentRecord; readonly column: string; readonly table: Table; readonly kind: Kind; readonly derived?: true };

const col = (field: keyof DocumentRecord, column: string, kind: Kind, table: Table = 'documents'): Column => ({ field, column, table, kind });

/** Every field of a document record, where it is stored and how it is checked: the single source for all SQL. */
const COLUMNS: readonly Column[] = [
  col('path', 'path', 'path'),
  col('docKey', 'doc_key', 'id'),
  col('nodeId', 'node_id', 'nullable-id'),
  col('treeNodeId', 'tree_node_id', 'id'),
  col('workspaceId', 'workspace_id', 'id'),
  col('parentTreeNodeId', 'parent_tree_node_id', 'id'),
  col('url', 'url', 'text'),
  col('remoteTitle', 'remote_title', 'text'),
  col('localHash', 'local_hash', 'text'),
  col('statSize', 'stat_size', 'number'),
  col('statMtimeMs', 'stat_mtime_ms', 'number'),
  col('statIno', 'stat_ino', 'number'),
  col('remoteBlocksHash', 'remote_blocks_hash', 'text'),
  col('remoteModifiedTime', 'remote_modified_time', 'text'),
  col('syncedAt', 'synced_at', 'number'),
  col('recheck', 'recheck', 'flag'),
  col('conflict', 'conflict', 'flag'),
  col('conflictPath', 'conflict_path', 'nullable-path'),
  col('origin', 'origin', 'origin'),
  col('heldCode', 'held_code', 'nullable-text'),
  col('heldLocalHash', 'held_local_hash', 'nullable-text'),
  col('heldRemoteTime', 'held_remote_time', 'nullable-text'),
  col('publishedRecord', 'published_record', 'nullable-text'),
  col('publishedSource', 'published_source', 'nullable-text'),
  col('imagesSent', 'images_sent', 'nullable-text'),
  col('listedTitle', 'listed_title', 'nullable-text'),
  col('placedAt', 'placed_at', 'number'),
  { ...col('inexact', 'inexact', 'flag'), derived: true },
  { ...col('inexactFormatting', 'inexact_formatting', 'flag'), derived: true },
  { ...col('inexactHidden', 'inexact_hidden', 'flag'), derived: true },
  col('headCarried', 'head_carried', 'flag'),
  col('namedHere', 'named_here', 'flag'),
  col('readPlainly', 'read_plainly', 'flag'),
  col('baseMarkdown', 'base_markdown', 'text', 'document_bodies'),
  col('remoteBlocks', 'remote_blocks_json', 'blocks', 'document_bodies'),
  col('alignment', 'alignment_json', 'json', 'document_bodies'),
  col('members', 'members_json', 'members', 'document_bodies'),
  col('conflictBase', 'conflict_base', 'nullable-text', 'document_bodies'),
  col('publishedOver', 'published_over', 'nullable-text', 'document_bodies'),
  col('hiddenEdit', 'hidden_edit', 'nullable-text', 'document_bodies'),
  col('lossyBase', 'lossy_base', 'flag', 'document_bodies'),
  col('formattingOnly', 'formatting_only', 'flag', 'document_bodies'),
  col('hiddenBase', 'hidden_base', 'flag', 'document_bodies'),
  col('agreedAt', 'agreed_at', 'number', 'document_bodies'),
  col('replacedHead', 'replaced_head', 'nullable-text', 'document_bodies'),
  col('builtOn', 'built_on', 'nullable-text', 'document_bodies'),
];

export const SUMMARY_COLUMNS = COLUMNS.filter((c) => c.table === 'documents');
/** The columns a write sets (a derived one follows the others). */
export const WRITTEN_COLUMNS = COLUMNS.filter((c) => !c.derived);
export const WRITTEN_SUMMARY_COLUMNS = SUMMARY_COLUMNS.filter((c) => !c.derived);
export const BODY_COLUMNS = COLUMNS.filter((c) => c.table === 'document_bodies');
const BY_FIELD = new Map(COLUMNS.map((c) => [c.field, c]));

export function columnOf(field: string): Column | undefined {
  return BY_FIELD.get(field as keyof DocumentRecord);
}

/** `d.doc_key AS "docKey", ...`: rows come back from SQLite already carrying the record's field names. */
export const selectList = (columns: readonly Column[], alias: string): string =>
  columns.map((c) => `${alias}.${c.column} AS "${c.field}"`).join(', ');

/** Checks one field at the boundary and converts it to what its column stores. */
export function encodeField(c: Column, value: unknown, path: string): DbValue {
  const fail = (expected: string): never => {
    throw new KbsyncError(
      'LEDGER_INVALID_RECORD',
      `The ledger was given ${c.field} = ${preview(value)} for ${JSON.stringify(path)}, but it must be ${expected}.`,
      { hint: REFUSED_VALUE_HINT },
    );
  };
  switch (c.kind) {
    case 'path':
      return checkRelativePath(c.field, value);
    case 'nullable-path':
      return value === null ? null : checkRelativePath(c.field, value);
    case 'id':
      return typeof value === 'string' && value !== '' ? value : fail('a non-empty string');
    case 'nullable-id':
      return value === null || (typeof value === 'string' && value !== '') ? value : fail('a non-empty string or null');
    case 'text':
      return typeof value === 'string' ? value : fail('a string');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : fail('a finite number');
    case 'nullable-text':
      return value === null || typeof value === 'string' ? value : fail('a string or null');
    case 'origin':
      return typeof value === 'string' && (ORIGINS as readonly string[]).includes(value) ? value : fail(`one of ${ORIGINS.join(', ')}`);
    case 'flag':
      return typeof value === 'boolean' ? Number(value) : fail('true or false');
    case 'blocks':
      return Array.isArray(value) ? toJson(c.field, value) : fail('an array of blocks');
    case 'members':
      return Array.isArray(value) && value.every(isMember) ? toJson(c.field, value) : fail('an array of { userId, role } strings');
    case 'json':
      return toJson(c.field, value);
  }
}

/** Turns the 0/1 flags of a summary row (already aliased to field names) into booleans, in place. */
export function decodeSummary(row: Record<string, unknown>): DocumentSummary {
  row['recheck'] = row['recheck'] === 1;
  row['conflict'] = row['conflict'] === 1;
  row['inexact'] = row['inexact'] === 1;
  row['inexactFormatting'] = row['inexactFormatting'] === 1;
  row['inexactHidden'] = row['inexactHidden'] === 1;
  row['headCarried'] = row['headCarried'] === 1;
  row['namedHere'] = row['namedHere'] === 1;
  row['readPlainly'] = row['readPlainly'] === 1;
  return row as DocumentSummary;
}

const same = (value: unknown): unknown => value;

/**
 * One string object for each value seen: every row read from SQLite comes with its own copy of each string, and
 * rows kept for a long run repeat a few values in every row (the workspace, the parent folder, the origin):
 * 10,000 rows held 10,000 copies of each (1.1 MB; heap snapshot of an idle daemon). For columns of few values.
 */
export function sharedValues(): (value: unknown) => unknown {
  const pool = new Map<string, string>();
  return (value) => {
    if (typeof value !== 'string') return value;
    const had = pool.get(value);
    if (had !== undefined) return had;
    pool.set(value, value);
    return value;
  };
}

/**
 * A raw row of SUMMARY_COLUMNS values, in order, as a summary: the cheapest way to read thousands of rows.
 * Written out as one object literal: every summary then shares one hidden class, built in one step, where
 * assigning 24 computed keys in a loop cost 5-10× as much (the larger part of reading 50,000 summaries).
 * A unit test keeps the indices in step with SUMMARY_COLUMNS.
 */
export function decodeRawSummary(v: readonly unknown[], shared: (value: unknown) => unknown = same): DocumentSummary {
  return {
    path: v[0],
    docKey: v[1],
    nodeId: v[2],
    treeNodeId: v[3],
    workspaceId: shared(v[4]),
    parentTreeNodeId: shared(v[5]),
    url: v[6],
    remoteTitle: v[7],
    localHash: v[8],
    statSize: v[9],
    statMtimeMs: v[10],
    statIno: v[11],
    remoteBlocksHash: v[12],
    remoteModifiedTime: v[13],
    syncedAt: v[14],
    recheck: v[15] === 1,
    conflict: v[16] === 1,
    conflictPath: v[17],
    origin: shared(v[18]),
    heldCode: v[19],
    heldLocalHash: v[20],
    heldRemoteTime: v[21],
    publishedRecord: v[22],
    publishedSource: v[23],
    imagesSent: v[24],
    listedTitle: v[25],
    placedAt: v[26],
    inexact: v[27] === 1,
    inexactFormatting: v[28] === 1,
    inexactHidden: v[29] === 1,
    headCarried: v[30] === 1,
    namedHere: v[31] === 1,
    readPlainly: v[32] === 1,
  } as DocumentSummary;
}

/** Parses the JSON columns of a body row (aliased to field names), naming the document if one is unreadable. */
export function decodeBody(row: Record<string, unknown>, path: string): DocumentBody {
  const at = (field: string) => `${field} of ${JSON.stringify(path)}`;
  return {
    baseMarkdown: row['baseMarkdown'] as string,
    remoteBlocks: parseJson<Block[]>(at('remoteBlocks'), row['remoteBlocks'] as string),
    alignment: parseJson(at('alignment'), row['alignment'] as string),
    members: parseJson<MemberRecord[]>(at('members'), row['members'] as string),
    conflictBase: (row['conflictBase'] as string | null | undefined) ?? null,
    publishedOver: (row['publishedOver'] as string | null | undefined) ?? null,
    hiddenEdit: (row['hiddenEdit'] as string | null | undefined) ?? null,
    lossyBase: row['lossyBase'] === 1,
    formattingOnly: row['formattingOnly'] === 1,
    hiddenBase: row['hiddenBase'] === 1,
    agreedAt: typeof row['agreedAt'] === 'number' ? row['agreedAt'] : 0,
    replacedHead: (row['replacedHead'] as string | null | undefined) ?? null,
    builtOn: (row['builtOn'] as string | null | undefined) ?? null,
  };
}

function isMember(value: unknown): boolean {
  const member = value as Partial<Record<keyof MemberRecord, unknown>> | null;
  return typeof member === 'object' && member !== null && typeof member.userId === 'string' && typeof member.role === 'string';
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
