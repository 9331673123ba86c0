import Database from 'better-sqlite3';

/** One schema for both the in-memory and the file-backed emulator, so both run the same code path. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  union_id TEXT PRIMARY KEY, user_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, scopes TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workspaces (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT NOT NULL,
  root_node_id TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  dentry_uuid TEXT NOT NULL UNIQUE, creation_node_id TEXT NOT NULL UNIQUE,
  workspace_id TEXT NOT NULL, parent_id TEXT, title TEXT NOT NULL, doc_type TEXT NOT NULL,
  creator_id TEXT NOT NULL, modifier_id TEXT NOT NULL, created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS nodes_parent ON nodes (parent_id, seq);
CREATE TABLE IF NOT EXISTS bodies (dentry_uuid TEXT PRIMARY KEY, markdown TEXT NOT NULL, blocks TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS members (
  dentry_uuid TEXT NOT NULL, user_id TEXT NOT NULL, role_type TEXT NOT NULL, PRIMARY KEY (dentry_uuid, user_id));
`;

export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  return db;
}
