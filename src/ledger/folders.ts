import type { Database } from 'better-sqlite3';
import { KbsyncError } from '../errors.js';
import type { TreeNodeId } from '../model/ids.js';
import type { DocumentsRepo } from './documents.js';
import { REFUSED_VALUE_HINT, duplicateError, isUniqueViolation, notFoundError } from './errors.js';
import { checkRelativePath } from './rel-path.js';
import type { Statements } from '../sqlite-statements.js';
import type { FolderRecord } from './types.js';

const SELECT = `SELECT path, tree_node_id AS treeNodeId, node_id AS nodeId, remote_title AS remoteTitle FROM folders`;

/** Local folders ('' is the sync root) ⇄ remote folder nodes. */
export class FoldersRepo {
  readonly #db: Database;
  readonly #sql: Statements;
  readonly #documents: DocumentsRepo;

  /** @internal (the ledger makes it) */
  constructor(db: Database, statements: Statements, documents: DocumentsRepo) {
    this.#db = db;
    this.#sql = statements;
    this.#documents = documents;
  }

  get(path: string): FolderRecord | undefined {
    return this.#sql.get(`${SELECT} WHERE path = ?`).get(path) as FolderRecord | undefined;
  }

  byTreeNodeId(treeNodeId: TreeNodeId): FolderRecord | undefined {
    return this.#sql.get(`${SELECT} WHERE tree_node_id = ?`).get(treeNodeId) as FolderRecord | undefined;
  }

  /** Every folder, parents before children. */
  all(): FolderRecord[] {
    return this.#sql.get(`${SELECT} ORDER BY path`).all() as FolderRecord[];
  }

  upsert(folder: FolderRecord): void {
    const path = checkRelativePath('a folder path', folder.path, { allowRoot: true });
    const bad = !isId(folder.treeNodeId) ? 'treeNodeId' : folder.nodeId !== null && !isId(folder.nodeId) ? 'nodeId' : typeof folder.remoteTitle !== 'string' ? 'remoteTitle' : undefined;
    if (bad) {
      throw new KbsyncError('LEDGER_INVALID_RECORD', `The ledger was given an invalid ${bad} for folder ${JSON.stringify(path)}.`, { hint: REFUSED_VALUE_HINT });
    }
    try {
      this.#sql
        .get(
          `INSERT INTO folders (path, tree_node_id, node_id, remote_title) VALUES (@path, @treeNodeId, @nodeId, @remoteTitle)
           ON CONFLICT (path) DO UPDATE SET tree_node_id = excluded.tree_node_id, node_id = excluded.node_id, remote_title = excluded.remote_title`,
        )
        .run({ path, treeNodeId: folder.treeNodeId, nodeId: folder.nodeId, remoteTitle: folder.remoteTitle });
    } catch (error) {
      if (!isUniqueViolation(error, 'folders', 'tree_node_id')) throw error;
      const holder = this.byTreeNodeId(folder.treeNodeId);
      throw duplicateError(
        `The ledger cannot record folder ${JSON.stringify(path)} as node ${folder.treeNodeId}: ` +
          `that node is already recorded for folder ${JSON.stringify(holder?.path ?? 'another folder')}.`,
        error,
      );
    }
  }

  /** Forgets one folder record (not what lies under it); returns whether there was one. */
  remove(path: string): boolean {
    return this.#sql.get('DELETE FROM folders WHERE path = ?').run(path).changes > 0;
  }

  /**
   * A local folder moved: its record, the records of the folders below it and of the documents below it all
   * move together, in one transaction, so the ledger never shows half a move.
   */
  rename(oldPath: string, newPath: string): void {
    checkRelativePath('a folder path', oldPath);
    checkRelativePath('a folder path', newPath);
    if (newPath.startsWith(`${oldPath}/`)) {
      throw new KbsyncError('LEDGER_INVALID_PATH', `The ledger cannot move folder ${JSON.stringify(oldPath)} into itself (${JSON.stringify(newPath)}).`, {
        hint: 'This is a kbsync bug: please report it with the log.',
      });
    }
    if (oldPath === newPath) {
      if (!this.get(oldPath)) throw notFoundError('folder', oldPath);
      return;
    }
    try {
      this.#db.transaction(() => {
        if (!this.get(oldPath)) throw notFoundError('folder', oldPath);
        const prefix = `${oldPath}/`;
        this.#sql
          .get(
            `UPDATE folders SET path = @to || substr(path, length(@from) + 1)
             WHERE path = @from OR substr(path, 1, length(@prefix)) = @prefix`,
          )
          .run({ from: oldPath, to: newPath, prefix });
        this.#documents.moveFolder(oldPath, newPath);
      })();
    } catch (error) {
      if (!isUniqueViolation(error, 'folders', 'path')) throw error;
      throw duplicateError(`The ledger cannot move folder ${JSON.stringify(oldPath)} to ${JSON.stringify(newPath)}: a folder record is already there.`, error);
    }
  }
}

function isId(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}
