import type Database from 'better-sqlite3';
import { Statements } from '../../sqlite-statements.js';
import { openDatabase } from './schema.js';
import type { BodyRow, DocType, MemberRow, NodeRow, StoredBlock, UserRow, WorkspaceRow } from './types.js';

const NODE_COLUMNS = `seq, dentry_uuid AS dentryUuid, creation_node_id AS creationNodeId, workspace_id AS workspaceId,
  parent_id AS parentId, title, doc_type AS docType, creator_id AS creatorId, modifier_id AS modifierId,
  created_at AS createdAt, modified_at AS modifiedAt`;
const WORKSPACE_COLUMNS = `seq, workspace_id AS workspaceId, name, description, root_node_id AS rootNodeId,
  created_at AS createdAt, modified_at AS modifiedAt`;

type NewNode = Omit<NodeRow, 'seq'>;

/** Plain persistence: rows in, rows out. Rules live in operations.ts, not here. */
export class Store {
  readonly #db: Database.Database;
  /** Each SQL text prepared once: a call the service answers runs a dozen statements, and preparing them cost more than running them. */
  readonly #sql: Statements;

  constructor(path: string) {
    this.#db = openDatabase(path);
    this.#sql = new Statements(this.#db);
  }

  close(): void {
    this.#db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  // meta ------------------------------------------------------------------------------------------
  getMeta(key: string): string | undefined {
    const row = this.#sql.get('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.#sql.get('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** The persistent id counter behind IdGenerator. */
  nextCounter(): number {
    const next = Number(this.getMeta('idCounter') ?? '0') + 1;
    this.setMeta('idCounter', String(next));
    return next;
  }

  // users and tokens ------------------------------------------------------------------------------
  addUser(user: UserRow): void {
    this.#sql.get('INSERT INTO users (union_id, user_id, name) VALUES (?, ?, ?)').run(user.unionId, user.userId, user.name);
  }

  userByUnionId(unionId: string): UserRow | undefined {
    return this.#sql.get('SELECT union_id AS unionId, user_id AS userId, name FROM users WHERE union_id = ?').get(unionId) as UserRow | undefined;
  }

  userByUserId(userId: string): UserRow | undefined {
    return this.#sql.get('SELECT union_id AS unionId, user_id AS userId, name FROM users WHERE user_id = ?').get(userId) as UserRow | undefined;
  }

  addToken(token: string, scopes: readonly string[]): void {
    this.#sql.get('INSERT INTO tokens (token, scopes) VALUES (?, ?)').run(token, JSON.stringify(scopes));
  }

  scopesOf(token: string): readonly string[] | undefined {
    const row = this.#sql.get('SELECT scopes FROM tokens WHERE token = ?').get(token) as { scopes: string } | undefined;
    return row ? (JSON.parse(row.scopes) as string[]) : undefined;
  }

  // workspaces ------------------------------------------------------------------------------------
  addWorkspace(workspace: Omit<WorkspaceRow, 'seq'>): void {
    this.#sql
      .get('INSERT INTO workspaces (workspace_id, name, description, root_node_id, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(workspace.workspaceId, workspace.name, workspace.description, workspace.rootNodeId, workspace.createdAt, workspace.modifiedAt);
  }

  workspaces(): readonly WorkspaceRow[] {
    return this.#sql.get(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces ORDER BY seq`).all() as WorkspaceRow[];
  }

  workspace(workspaceId: string): WorkspaceRow | undefined {
    return this.#sql.get(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE workspace_id = ?`).get(workspaceId) as WorkspaceRow | undefined;
  }

  touchWorkspace(workspaceId: string, at: number): void {
    this.#sql.get('UPDATE workspaces SET modified_at = ? WHERE workspace_id = ?').run(at, workspaceId);
  }

  // nodes -----------------------------------------------------------------------------------------
  addNode(node: NewNode): void {
    this.#sql
      .get(
        `INSERT INTO nodes (dentry_uuid, creation_node_id, workspace_id, parent_id, title, doc_type, creator_id, modifier_id, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(node.dentryUuid, node.creationNodeId, node.workspaceId, node.parentId, node.title, node.docType, node.creatorId, node.modifierId, node.createdAt, node.modifiedAt);
  }

  node(dentryUuid: string): NodeRow | undefined {
    return this.#sql.get(`SELECT ${NODE_COLUMNS} FROM nodes WHERE dentry_uuid = ?`).get(dentryUuid) as NodeRow | undefined;
  }

  nodeByCreationId(creationNodeId: string): NodeRow | undefined {
    return this.#sql.get(`SELECT ${NODE_COLUMNS} FROM nodes WHERE creation_node_id = ?`).get(creationNodeId) as NodeRow | undefined;
  }

  children(parentId: string): readonly NodeRow[] {
    return this.#sql.get(`SELECT ${NODE_COLUMNS} FROM nodes WHERE parent_id = ? ORDER BY seq`).all(parentId) as NodeRow[];
  }

  hasChildren(parentId: string): boolean {
    return this.#sql.get('SELECT 1 FROM nodes WHERE parent_id = ? LIMIT 1').get(parentId) !== undefined;
  }

  nodesOf(workspaceId: string, docTypes: readonly DocType[]): readonly NodeRow[] {
    const marks = docTypes.map(() => '?').join(', ');
    return this.#sql
      .get(`SELECT ${NODE_COLUMNS} FROM nodes WHERE workspace_id = ? AND doc_type IN (${marks}) ORDER BY seq`)
      .all(workspaceId, ...docTypes) as NodeRow[];
  }

  allNodes(): readonly NodeRow[] {
    return this.#sql.get(`SELECT ${NODE_COLUMNS} FROM nodes ORDER BY seq`).all() as NodeRow[];
  }

  updateNode(dentryUuid: string, change: { title?: string; parentId?: string; modifierId: string; modifiedAt: number }): void {
    const current = this.node(dentryUuid);
    if (!current) return;
    this.#sql
      .get('UPDATE nodes SET title = ?, parent_id = ?, modifier_id = ?, modified_at = ? WHERE dentry_uuid = ?')
      .run(change.title ?? current.title, change.parentId ?? current.parentId, change.modifierId, change.modifiedAt, dentryUuid);
  }

  /** Removes the node, its whole subtree, their bodies and members. */
  deleteSubtree(dentryUuid: string): void {
    const ids = this.#subtreeIds(dentryUuid);
    const deleteNode = this.#sql.get('DELETE FROM nodes WHERE dentry_uuid = ?');
    const deleteBody = this.#sql.get('DELETE FROM bodies WHERE dentry_uuid = ?');
    const deleteMembers = this.#sql.get('DELETE FROM members WHERE dentry_uuid = ?');
    for (const id of ids) {
      deleteNode.run(id);
      deleteBody.run(id);
      deleteMembers.run(id);
      this.#parsed.delete(id);
    }
  }

  #subtreeIds(dentryUuid: string): string[] {
    const ids = [dentryUuid];
    for (let i = 0; i < ids.length; i++) for (const child of this.children(ids[i] ?? '')) ids.push(child.dentryUuid);
    return ids;
  }

  // bodies ----------------------------------------------------------------------------------------
  body(dentryUuid: string): BodyRow | undefined {
    const row = this.#sql.get('SELECT markdown, blocks FROM bodies WHERE dentry_uuid = ?').get(dentryUuid) as
      | { markdown: string; blocks: string }
      | undefined;
    return row ? { markdown: row.markdown, blocks: this.#blocksOf(dentryUuid, row.blocks) } : undefined;
  }

  /**
   * Each body's blocks as last parsed, with the JSON they were parsed from. The tests' dumps read every body
   * after every step of the model test, and parsing the same JSON again was most of a dump: 1.5 of the 95 CPU-s
   * of a model test half (the body's own self time, 2 % of its CPU). Stored JSON that is what was parsed
   * (compared whole, so any other write is seen) gets the same blocks, frozen: they are shared, never changed.
   */
  readonly #parsed = new Map<string, { readonly json: string; readonly blocks: readonly StoredBlock[] }>();

  #blocksOf(dentryUuid: string, json: string): readonly StoredBlock[] {
    const known = this.#parsed.get(dentryUuid);
    if (known?.json === json) return known.blocks;
    const blocks = deepFreeze(JSON.parse(json) as StoredBlock[]);
    this.#parsed.set(dentryUuid, { json, blocks });
    return blocks;
  }

  /**
   * The body's Markdown alone: a listing gives every document's size, and parsing each one's blocks for it took
   * more of the emulator's time than answering the listing.
   */
  markdown(dentryUuid: string): string | undefined {
    return (this.#sql.get('SELECT markdown FROM bodies WHERE dentry_uuid = ?').get(dentryUuid) as { markdown: string } | undefined)?.markdown;
  }

  setBody(dentryUuid: string, body: BodyRow): void {
    this.#sql
      .get('INSERT INTO bodies (dentry_uuid, markdown, blocks) VALUES (?, ?, ?) ON CONFLICT (dentry_uuid) DO UPDATE SET markdown = excluded.markdown, blocks = excluded.blocks')
      .run(dentryUuid, body.markdown, JSON.stringify(body.blocks));
  }

  // members ---------------------------------------------------------------------------------------
  members(dentryUuid: string): readonly MemberRow[] {
    return this.#sql
      .get('SELECT dentry_uuid AS dentryUuid, user_id AS userId, role_type AS roleType FROM members WHERE dentry_uuid = ? ORDER BY rowid')
      .all(dentryUuid) as MemberRow[];
  }

  upsertMember(member: MemberRow): void {
    this.#sql
      .get('INSERT INTO members (dentry_uuid, user_id, role_type) VALUES (?, ?, ?) ON CONFLICT (dentry_uuid, user_id) DO UPDATE SET role_type = excluded.role_type')
      .run(member.dentryUuid, member.userId, member.roleType);
  }

  removeMember(dentryUuid: string, userId: string): boolean {
    return this.#sql.get('DELETE FROM members WHERE dentry_uuid = ? AND user_id = ?').run(dentryUuid, userId).changes > 0;
  }
}

/** `value` and everything in it, frozen (parsed JSON: plain objects and arrays). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
