import { open, type FileHandle } from 'node:fs/promises';
import type { Database } from 'better-sqlite3';
import { KbsyncError } from '../errors.js';
import type { Logger } from '../log.js';
import { redact } from '../secrets.js';
import { parseJson, toJson } from './json.js';
import type { Statements } from '../sqlite-statements.js';
import type { IntentId, JsonValue, OpenIntent } from './types.js';

/** Abandoned intents kept for diagnosis; older ones are pruned so the journal cannot grow without bound. */
const ABANDONED_KEPT = 100;

type IntentRow = { id: number; kind: string; subject: string; payload: string; createdAt: number; pid: number };

/**
 * The intents journal (design rule 2): a row is committed before every side effect and closed in the same
 * transaction that records the result, so after a crash the open rows say exactly which effects may have
 * happened without being recorded.
 */
export class IntentsJournal {
  readonly #db: Database;
  readonly #sql: Statements;
  readonly #logger: Logger;
  /** The connection's synchronous level (FULL), put back after a close; null when closes must keep it (not WAL). */
  readonly #synchronous: number | null;

  /** @internal (the ledger makes it) */
  constructor(db: Database, statements: Statements, logger: Logger) {
    this.#db = db;
    this.#sql = statements;
    this.#logger = logger;
    const wal = !db.readonly && db.pragma('journal_mode', { simple: true }) === 'wal';
    this.#synchronous = wal ? (db.pragma('synchronous', { simple: true }) as number) : null;
  }

  /**
   * Runs a close (complete, abandon) without an fsync of its own. A close lost to a power cut leaves its intent
   * open, which the next run reconciles exactly as after a crash just before the close (the recovery every kind
   * of intent has); and in WAL mode the next intent's begin (beginDurably) syncs the log and this close with it
   * before that intent's effect starts. The closes were half the fsyncs of a push, each blocking
   * the one thread for milliseconds. Without WAL (a file system without it) a lighter sync is not safe: kept.
   */
  #withoutSync(close: () => void): void {
    if (this.#synchronous === null || this.#db.inTransaction) return close();
    this.#db.pragma('synchronous = NORMAL');
    try {
      close();
    } finally {
      this.#db.pragma(`synchronous = ${this.#synchronous}`);
    }
  }

  /**
   * Runs a ledger write that need only be on disk before the next effect starts (a mark a run sets before it
   * acts: sync/state/run.ts owePublication) without an fsync of its own: every effect begins with an intent, and
   * in WAL mode that intent's begin syncs the log, this earlier write with it. A mark lost to a power cut before
   * then was followed by no effect, so it owed nothing. It was an fsync on the one thread before every save's
   * first call. Without WAL it syncs as any write does.
   */
  beforeNextIntent(write: () => void): void {
    this.#withoutSync(write);
  }

  /**
   * Commits an open intent and resolves once it is on disk, without blocking the one thread while the disk
   * flushes. In WAL mode the row is committed without a sync of its own, then the WAL file is fsynced through
   * libuv's threads: what a FULL commit does before it returns (it syncs that file), so the intent is as
   * durable before the effect starts. A push begins two intents a page, and each FULL commit held the thread
   * 5-9 ms here (17% of a 1,000-page push's time, while calls waited to be sent); concurrent begins now
   * share the flushes. Without WAL it is `begin`.
   */
  async beginDurably(kind: string, subject: string, payload: JsonValue): Promise<IntentId> {
    if (this.#synchronous === null || this.#db.memory) return this.begin(kind, subject, payload);
    let id: IntentId | undefined;
    this.#withoutSync(() => (id = this.begin(kind, subject, payload)));
    await syncFile(`${this.#db.name}-wal`);
    return id as IntentId;
  }

  /** Commits an open intent at once. Refused inside a transaction: a rollback would erase it after the effect. */
  begin(kind: string, subject: string, payload: JsonValue): IntentId {
    if (typeof kind !== 'string' || kind === '' || typeof subject !== 'string' || subject === '') {
      throw new KbsyncError('LEDGER_INVALID_RECORD', `intents.begin needs a non-empty kind and subject (got ${JSON.stringify([kind, subject])}).`, {
        hint: 'This is a kbsync bug: please report it with the log.',
      });
    }
    if (this.#db.inTransaction) {
      throw new KbsyncError('LEDGER_INTENT_IN_TRANSACTION', `intents.begin('${kind}') was called inside a ledger transaction.`, {
        hint: 'An intent must be committed before its side effect; this is a kbsync bug: please report it.',
      });
    }
    // The journal must never hold a secret (design rule 9), even one that slipped into a payload.
    const json = redact(toJson(`the payload of intent '${kind}'`, payload));
    const result = this.#sql
      .get(`INSERT INTO intents (kind, subject, payload_json, created_at, pid, state) VALUES (?, ?, ?, ?, ?, 'open')`)
      .run(kind, subject, json, Date.now(), process.pid);
    return Number(result.lastInsertRowid) as IntentId;
  }

  /**
   * Replaces an open intent's payload with one that says more of its effect, learnt part-way (a push's write
   * answered): what the next run knows if this one is killed before the close. Without an fsync of its own: a
   * note lost to a power cut leaves the payload it began with, which the next run reconciles as ever.
   */
  amend(id: IntentId, payload: JsonValue): void {
    const json = redact(toJson(`the payload of intent ${id}`, payload));
    this.#withoutSync(() => this.#sql.get(`UPDATE intents SET payload_json = ? WHERE id = ? AND state = 'open'`).run(json, id));
  }

  /**
   * Runs `record` (the ledger writes that record the effect's result) and closes the intent in one
   * transaction: either both happen or neither does. If `record` throws, the intent stays open.
   */
  complete(id: IntentId, record: () => void = () => {}): void {
    this.#withoutSync(() =>
      this.#db.transaction(() => {
        this.#requireOpen(id, 'complete');
        record();
        this.#sql.get(`DELETE FROM intents WHERE id = ? AND state = 'open'`).run(id);
      })(),
    );
  }

  /** Closes an intent whose effect did not happen (or was reconciled); the reason is kept for diagnosis. */
  abandon(id: IntentId, reason: string): void {
    this.#db.transaction(() => {
      const intent = this.#requireOpen(id, 'abandon');
      this.#sql.get(`UPDATE intents SET state = 'abandoned', closed_at = ?, reason = ? WHERE id = ?`).run(Date.now(), redact(reason), id);
      this.#sql
        .get(`DELETE FROM intents WHERE state = 'abandoned' AND id NOT IN (SELECT id FROM intents WHERE state = 'abandoned' ORDER BY id DESC LIMIT ?)`)
        .run(ABANDONED_KEPT);
      this.#logger.debug({ intent: id, kind: intent.kind, subject: intent.subject, reason }, `abandoned intent ${intent.kind} ${intent.subject}: ${reason}`);
    })();
  }

  /** Open intents, oldest first: the engine reconciles these before anything else on start. */
  open(): OpenIntent[] {
    return (this.#sql.get(`${SELECT} WHERE state = 'open' ORDER BY id`).all() as IntentRow[]).map(toIntent);
  }

  /**
   * Intents of one kind that are open or were abandoned (kept up to the last hundred), newest first: a
   * create abandoned after its answer was lost may still have made its document.
   */
  unfinished(kind: string): OpenIntent[] {
    return (this.#sql.get(`${SELECT} WHERE kind = ? ORDER BY id DESC`).all(kind) as IntentRow[]).map(toIntent);
  }

  get(id: IntentId): OpenIntent | undefined {
    const row = this.#sql.get(`${SELECT} WHERE id = ? AND state = 'open'`).get(id) as IntentRow | undefined;
    return row && toIntent(row);
  }

  #requireOpen(id: IntentId, action: string): OpenIntent {
    const intent = this.get(id);
    if (!intent) {
      throw new KbsyncError('LEDGER_INTENT_NOT_OPEN', `Cannot ${action} intent ${id}: it is not open (already closed, or never begun).`, {
        hint: 'This is a kbsync bug: please report it with the log.',
      });
    }
    return intent;
  }
}

/**
 * fsync of a file by path. The WAL file exists while the ledger is open; were it gone (a checkpoint that
 * removed it), what it held was checkpointed into the database file, which the checkpoint synced.
 */
async function syncFile(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const SELECT = `SELECT id, kind, subject, payload_json AS payload, created_at AS createdAt, pid FROM intents`;

function toIntent(row: IntentRow): OpenIntent {
  return { ...row, id: row.id as IntentId, payload: parseJson(`the payload of intent ${row.id}`, row.payload) };
}
