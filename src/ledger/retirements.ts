import type { CreationNodeId, DocKey, WorkspaceId } from '../model/ids.js';
import type { Statements } from '../sqlite-statements.js';

/** An old document of a moved file, promised for deletion once its replacement was recorded. */
export type Retirement = {
  readonly docKey: DocKey;
  readonly nodeId: CreationNodeId;
  readonly workspaceId: WorkspaceId;
  /** The file it belonged to, for messages. */
  readonly path: string;
  /** The document that replaced it (null: a promise kept from before kbsync noted it), whose record says so before it goes. */
  readonly successor: DocKey | null;
  /** ms since epoch. */
  readonly since: number;
};

const SELECT = `SELECT doc_key AS docKey, node_id AS nodeId, workspace_id AS workspaceId, path, successor, since FROM retirements`;

/**
 * Documents to delete. A move records the new document and this promise in one transaction, so a crash
 * before the old document is deleted leaves a promise the next run keeps, never an orphan nobody can delete.
 */
export class RetirementsRepo {
  readonly #sql: Statements;

  /** @internal (the ledger makes it) */
  constructor(statements: Statements) {
    this.#sql = statements;
  }

  add(retirement: Omit<Retirement, 'since'>, now = Date.now()): void {
    this.#sql
      .get('INSERT OR REPLACE INTO retirements (doc_key, node_id, workspace_id, path, successor, since) VALUES (?, ?, ?, ?, ?, ?)')
      .run(retirement.docKey, retirement.nodeId, retirement.workspaceId, retirement.path, retirement.successor, now);
  }

  all(): Retirement[] {
    return this.#sql.get(`${SELECT} ORDER BY since, doc_key`).all() as Retirement[];
  }

  done(docKey: DocKey): void {
    this.#sql.get('DELETE FROM retirements WHERE doc_key = ?').run(docKey);
  }
}
