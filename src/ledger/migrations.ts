import type { Database } from 'better-sqlite3';

/** 'kbsy': marks the file as a kbsync ledger so that another program's SQLite file is never migrated. */
export const LEDGER_APPLICATION_ID = 0x6b627379;

/**
 * Schema steps, applied in order; PRAGMA user_version is the number of steps applied.
 * Never edit a released step: add one. The steps an open applies run in one transaction together with the
 * version bump, so a crash leaves the ledger at the version it had, never between two.
 */
const migrations: readonly ((db: Database) => void)[] = [
  (db) => {
    db.pragma(`application_id = ${LEDGER_APPLICATION_ID}`);
    db.exec(`
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
      ) STRICT;

      -- The small columns a no-op sync compares live apart from the large bodies, so that reading
      -- every summary touches a few pages instead of every document's text.
      CREATE TABLE documents (
        id                        INTEGER PRIMARY KEY,
        path                      TEXT NOT NULL UNIQUE,
        doc_key                   TEXT NOT NULL UNIQUE,
        node_id                   TEXT,
        tree_node_id              TEXT NOT NULL UNIQUE,
        workspace_id              TEXT NOT NULL,
        parent_tree_node_id       TEXT NOT NULL,
        url                       TEXT NOT NULL,
        remote_title              TEXT NOT NULL,
        local_hash                TEXT NOT NULL,
        stat_size                 INTEGER NOT NULL,
        stat_mtime_ms             REAL NOT NULL,
        stat_ino                  REAL NOT NULL,
        remote_blocks_hash        TEXT NOT NULL,
        remote_modified_time      TEXT NOT NULL,
        remote_modified_timestamp REAL,
        synced_at                 INTEGER NOT NULL,
        recheck                   INTEGER NOT NULL CHECK (recheck IN (0, 1)),
        conflict                  INTEGER NOT NULL CHECK (conflict IN (0, 1)),
        conflict_path             TEXT
      ) STRICT;

      CREATE TABLE document_bodies (
        document_id        INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
        base_markdown      TEXT NOT NULL,
        remote_blocks_json TEXT NOT NULL,
        alignment_json     TEXT NOT NULL,
        members_json       TEXT NOT NULL
      ) STRICT;

      CREATE TABLE folders (
        path         TEXT PRIMARY KEY NOT NULL,
        tree_node_id TEXT NOT NULL UNIQUE,
        node_id      TEXT,
        remote_title TEXT NOT NULL
      ) STRICT;

      CREATE TABLE intents (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        kind         TEXT NOT NULL,
        subject      TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        pid          INTEGER NOT NULL,
        state        TEXT NOT NULL CHECK (state IN ('open', 'abandoned')),
        closed_at    INTEGER,
        reason       TEXT
      ) STRICT;
      CREATE INDEX intents_by_state ON intents (state, id);
    `);
    db.prepare(`INSERT INTO meta (key, value) VALUES ('ledger.createdAt', ?)`).run(JSON.stringify(Date.now()));
  },
  (db) => {
    // How each document came to be linked (only one kbsync created can be deleted by it), and a hold that
    // stands while its file and document stay as they were (held work costs no call and is said once).
    // remote_modified_timestamp was never written: the service's millisecond times are not relied on.
    db.exec(`
      ALTER TABLE documents ADD COLUMN origin TEXT NOT NULL DEFAULT 'linked'
        CHECK (origin IN ('created', 'create-answer-lost', 'linked', 'pulled'));
      UPDATE documents SET origin = 'created' WHERE node_id IS NOT NULL;
      ALTER TABLE documents ADD COLUMN held_code TEXT;
      ALTER TABLE documents ADD COLUMN held_local_hash TEXT;
      ALTER TABLE documents ADD COLUMN held_remote_time TEXT;
      ALTER TABLE documents DROP COLUMN remote_modified_timestamp;
      -- What of this row the knowledge base's shared state holds: the hash of the record and of the source
      -- last published there (NULL: never; a ledger from before the shared state publishes on its first run).
      ALTER TABLE documents ADD COLUMN published_record TEXT;
      ALTER TABLE documents ADD COLUMN published_source TEXT;

      -- Old documents of moved files, to delete once their replacement is recorded: kept here (not as
      -- intents) so that recording the replacement and promising the deletion are one transaction.
      CREATE TABLE retirements (
        doc_key      TEXT PRIMARY KEY NOT NULL,
        node_id      TEXT NOT NULL,
        workspace_id TEXT NOT NULL,
        path         TEXT NOT NULL,
        since        INTEGER NOT NULL
      ) STRICT;
    `);
  },
  (db) => {
    db.exec(`
      -- While a conflict is open: the text both sides last agreed on before it, for kbsync resolve's three-way view.
      ALTER TABLE document_bodies ADD COLUMN conflict_base TEXT;
      -- After this machine wrote the document: what it held just before (so a racing writer's overwrite that
      -- puts it back is seen as the lost update it is); NULL once any later agreement stands.
      ALTER TABLE document_bodies ADD COLUMN published_over TEXT;
      -- The modifiedTime at which someone was seen editing what the service does not show (code, tables): no
      -- overwrite until a person says so. NULL: none seen.
      ALTER TABLE document_bodies ADD COLUMN hidden_edit TEXT;
      -- 1 while the base is the service's plain-text reading (a web-created document, a clone without kept
      -- source): an overwrite from it would flatten the document's formatting.
      ALTER TABLE document_bodies ADD COLUMN lossy_base INTEGER NOT NULL DEFAULT 0;
    `);
  },
  (db) => {
    db.exec(`
      -- Image URLs by content hash: each image is uploaded once, ever (published: the shared state has it too).
      CREATE TABLE image_urls (
        key       TEXT PRIMARY KEY NOT NULL,
        url       TEXT NOT NULL,
        published INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      -- The images (path, content key, URL, stat) the document was last sent with, as JSON; NULL: none.
      ALTER TABLE documents ADD COLUMN images_sent TEXT;
    `);
  },
  (db) => {
    // The tree a push found entirely settled, as a fingerprint of its scan (src/sync/observe/settled-tree.ts):
    // a push that scans the same fingerprint decides nothing without reading a row. Any change to what a plan
    // reads (rows, bodies, folders, intents, retirements, images, meta) drops it, in the same transaction as
    // the change, so it can never stand for a ledger it was not taken with.
    const tables = ['documents', 'document_bodies', 'folders', 'intents', 'retirements', 'image_urls', 'meta'];
    const triggers = tables.flatMap((table) =>
      ['INSERT', 'UPDATE', 'DELETE'].map(
        (event) => `CREATE TRIGGER settled_tree_${table}_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN DELETE FROM settled_tree; END;`,
      ),
    );
    db.exec(`
      CREATE TABLE settled_tree (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        fingerprint TEXT NOT NULL
      ) STRICT;
      ${triggers.join('\n      ')}
    `);
  },
  (db) => {
    db.exec(`
      -- The service's clock (ms) when this version was agreed on (its text or its document last changed); 0:
      -- unknown. Orders this machine's version against another writer's, whatever order they were published in.
      ALTER TABLE document_bodies ADD COLUMN agreed_at INTEGER NOT NULL DEFAULT 0;
      `);
    },
    (db) => {
    // A person's answer to a hold (kbsync resolve --mine / --theirs), for the next run to carry out while the
    // file and the document are still what it was given for (the file's hash, '' when gone; the document's
    // time, '' when unknown). kbsync resolve may write it beside a running daemon, which holds the lock:
    // it is the one table another process writes, one row per file, and the run deletes each row it acts on.
    const triggers = ['INSERT', 'UPDATE', 'DELETE'].map(
      (event) => `CREATE TRIGGER settled_tree_releases_${event.toLowerCase()} AFTER ${event} ON releases BEGIN DELETE FROM settled_tree; END;`,
    );
    db.exec(`
      CREATE TABLE releases (
        path         TEXT PRIMARY KEY NOT NULL,
        side         TEXT NOT NULL CHECK (side IN ('mine', 'theirs')),
        local_hash   TEXT NOT NULL,
        remote_time  TEXT NOT NULL,
        requested_at INTEGER NOT NULL
      ) STRICT;
      ${triggers.join('\n      ')}
    `);
  },
  (db) => {
    db.exec(`
      -- The title the listing showed when this version was agreed on; NULL: the one kbsync gave it (remote_title).
      -- A rename in the web editor moves the document's time once: only a title not seen before excuses that.
      ALTER TABLE documents ADD COLUMN listed_title TEXT;
    `);
  },
  (db) => {
    db.exec(`
      -- When this machine last put the file where it is (a local move, or following its document's move), on
      -- the shared state's clock: another writer's record of an older place does not move it back.
      ALTER TABLE documents ADD COLUMN placed_at INTEGER NOT NULL DEFAULT 0;
    `);
  },
  (db) => {
    const inexact = (row: string) => `(${row}.lossy_base <> 0 OR ${row}.hidden_edit IS NOT NULL)`;
    db.exec(`
      -- Whether the document holds more than the base says, from the body's fields, in the summary row: what the
      -- shared state says of it (l), so that a change of it is republished like any other (model seed 50013).
      ALTER TABLE documents ADD COLUMN inexact INTEGER NOT NULL DEFAULT 0;
      UPDATE documents SET inexact = coalesce((SELECT ${inexact('b')} FROM document_bodies b WHERE b.document_id = documents.id), 0);
      CREATE TRIGGER documents_inexact_insert AFTER INSERT ON document_bodies
        BEGIN UPDATE documents SET inexact = ${inexact('NEW')} WHERE id = NEW.document_id; END;
      CREATE TRIGGER documents_inexact_update AFTER UPDATE OF lossy_base, hidden_edit ON document_bodies
        BEGIN UPDATE documents SET inexact = ${inexact('NEW')} WHERE id = NEW.document_id; END;
    `);
  },
  (db) => {
    const inexact = (row: string) => `(${row}.lossy_base <> 0 OR ${row}.hidden_edit IS NOT NULL)`;
    const formatting = (row: string) => `(${row}.lossy_base <> 0 AND ${row}.formatting_only <> 0 AND ${row}.hidden_edit IS NULL)`;
    const derive = (row: string) => `UPDATE documents SET inexact = ${inexact(row)}, inexact_formatting = ${formatting(row)} WHERE id = ${row}.document_id;`;
    db.exec(`
      -- Of a lossy base, whether all it lacks is the formatting a colleague gave words they wrote in the web editor
      -- (config merge.webEdits decides whether that holds an overwrite), and the same in the summary row, for the
      -- shared state (f).
      ALTER TABLE document_bodies ADD COLUMN formatting_only INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE documents ADD COLUMN inexact_formatting INTEGER NOT NULL DEFAULT 0;
      DROP TRIGGER documents_inexact_insert;
      DROP TRIGGER documents_inexact_update;
      CREATE TRIGGER documents_inexact_insert AFTER INSERT ON document_bodies BEGIN ${derive('NEW')} END;
      CREATE TRIGGER documents_inexact_update AFTER UPDATE OF lossy_base, hidden_edit, formatting_only ON document_bodies BEGIN ${derive('NEW')} END;
    `);
  },
  (db) => {
    const inexact = (row: string) => `(${row}.lossy_base <> 0 OR ${row}.hidden_edit IS NOT NULL)`;
    const formatting = (row: string) => `(${row}.lossy_base <> 0 AND ${row}.formatting_only <> 0 AND ${row}.hidden_edit IS NULL)`;
    const hidden = (row: string) => `(${row}.hidden_edit IS NOT NULL OR (${row}.lossy_base <> 0 AND ${row}.hidden_base <> 0))`;
    const derive = (row: string) =>
      `UPDATE documents SET inexact = ${inexact(row)}, inexact_formatting = ${formatting(row)}, inexact_hidden = ${hidden(row)} WHERE id = ${row}.document_id;`;
    db.exec(`
      -- Of a lossy base, whether it is another writer's version whose record says the document holds an edit reads
      -- cannot show (its hd), and in the summary row whether a hidden edit stands (this machine's or that one): what
      -- the shared state says (hd), so another machine tells a hidden edit from a visible one taken in as plain text.
      ALTER TABLE document_bodies ADD COLUMN hidden_base INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE documents ADD COLUMN inexact_hidden INTEGER NOT NULL DEFAULT 0;
      UPDATE documents SET inexact_hidden = coalesce((SELECT ${hidden('b')} FROM document_bodies b WHERE b.document_id = documents.id), 0);
      DROP TRIGGER documents_inexact_insert;
      DROP TRIGGER documents_inexact_update;
      CREATE TRIGGER documents_inexact_insert AFTER INSERT ON document_bodies BEGIN ${derive('NEW')} END;
      CREATE TRIGGER documents_inexact_update AFTER UPDATE OF lossy_base, hidden_edit, formatting_only, hidden_base ON document_bodies BEGIN ${derive('NEW')} END;
    `);
  },
  (db) => {
    db.exec(`
      -- The base's front matter was kept across a plain reading of another writer's change (DocumentSummary.headCarried).
      ALTER TABLE documents ADD COLUMN head_carried INTEGER NOT NULL DEFAULT 0;
    `);
  },
  (db) => {
    db.exec(`
      -- The front matter this machine's own last change of it replaced (DocumentBody.replacedHead).
      ALTER TABLE document_bodies ADD COLUMN replaced_head TEXT;
    `);
  },
  (db) => {
    db.exec(`
      -- The file's path was chosen here from the document's title, no writer's record of it known (DocumentSummary.namedHere).
      ALTER TABLE documents ADD COLUMN named_here INTEGER NOT NULL DEFAULT 0;
    `);
  },
  (db) => {
    db.exec(`
      -- The version (its source's hash) this version was made from, when known exactly (DocumentBody.builtOn).
      ALTER TABLE document_bodies ADD COLUMN built_on TEXT;
    `);
  },
  (db) => {
    db.exec(`
      -- The document that replaced a retired one (Retirement.successor); NULL: promised before kbsync kept it.
      ALTER TABLE retirements ADD COLUMN successor TEXT;
    `);
  },
  (db) => {
    // No settled_tree trigger: no plan reads it, and the daemon writes it after a cycle that sent the file.
    db.exec(`
      -- What kbsync watch last said of a file's broken links and unpublished images (a JSON array of their keys,
      -- src/daemon/cycle-log.ts), so that a restart does not say again what still stands (issue 44). It goes with
      -- its document's row: a file deleted, or paired afresh, starts with nothing said.
      CREATE TABLE notices_said (
        document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
        said        TEXT NOT NULL
      ) STRICT;
    `);
  },
  (db) => {
    db.exec(`
      -- The base is this machine's layout of another writer's change, taken in from the plain reading (DocumentSummary.readPlainly).
      ALTER TABLE documents ADD COLUMN read_plainly INTEGER NOT NULL DEFAULT 0;
    `);
  },
  (db) => {
    // No settled_tree trigger: no plan reads it, and the daemon writes it after a cycle that said or ended such a hold.
    db.exec(`
      -- What kbsync watch said of the holds and waits nothing else records (src/daemon/unrecorded-said.ts), by path,
      -- as a hash of their words: a restart within their minute or two said each again (issue 44). A path's row goes
      -- when anything else happens to its file, or a sweep does not meet it.
      CREATE TABLE unrecorded_said (
        path  TEXT PRIMARY KEY NOT NULL,
        words TEXT NOT NULL
      ) STRICT;
    `);
  },
];

/** The schema version this kbsync writes; a ledger with a higher user_version comes from a newer kbsync. */
export const LEDGER_SCHEMA_VERSION = migrations.length;

/** Brings the ledger from its user_version up to LEDGER_SCHEMA_VERSION. @internal (openLedger runs it) */
export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current >= migrations.length) return;
  // One commit for all of them: each commit of the ledger waits for the disk (synchronous = FULL), and a new
  // ledger, which every CI job's run makes, took fourteen (112 ms against 20 for opening one made before).
  db.transaction(() => {
    for (const step of migrations.slice(current)) step(db);
    db.pragma(`user_version = ${migrations.length}`);
  })();
}
