/**
 * The ledger's database schema as an ordered list of migrations. A database records
 * the number of migrations applied in `PRAGMA user_version`; opening it applies the
 * rest in one transaction. Never edit a shipped migration: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE artifact (
    id           TEXT PRIMARY KEY,
    chain_id     TEXT NOT NULL,
    version      INTEGER NOT NULL,
    is_latest    INTEGER NOT NULL DEFAULT 1,
    type         TEXT NOT NULL,
    scope        TEXT NOT NULL,
    task_id      TEXT,
    paths        TEXT NOT NULL DEFAULT '[]',
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    summary      TEXT,
    tags         TEXT NOT NULL DEFAULT '[]',
    conditions   TEXT NOT NULL DEFAULT '{}',
    status       TEXT NOT NULL DEFAULT 'active',
    supersedes   TEXT,
    pinned       INTEGER NOT NULL DEFAULT 0,
    source       TEXT NOT NULL DEFAULT 'user',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    extra        TEXT NOT NULL DEFAULT '{}',
    UNIQUE (chain_id, version)
  );
  CREATE INDEX artifact_latest ON artifact (is_latest, status);

  CREATE TABLE token_count (
    content_hash TEXT NOT NULL,
    tokenizer    TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (content_hash, tokenizer)
  ) WITHOUT ROWID;

  CREATE TABLE task (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    labels      TEXT NOT NULL DEFAULT '[]',
    stage       TEXT NOT NULL DEFAULT 'plan',
    status      TEXT NOT NULL DEFAULT 'open',
    active      INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  );

  CREATE TABLE task_event (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    at      TEXT NOT NULL
  );
  CREATE INDEX task_event_task ON task_event (task_id, at);

  CREATE TABLE file_activity (
    path            TEXT PRIMARY KEY,
    opens           INTEGER NOT NULL DEFAULT 0,
    edits           INTEGER NOT NULL DEFAULT 0,
    saves           INTEGER NOT NULL DEFAULT 0,
    last_opened_at  TEXT,
    last_edited_at  TEXT,
    last_saved_at   TEXT
  );

  CREATE TABLE assembly_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    task_id     TEXT,
    budget      INTEGER NOT NULL,
    tokens_used INTEGER NOT NULL,
    tokenizer   TEXT NOT NULL,
    candidates  INTEGER NOT NULL,
    included    TEXT NOT NULL,
    degraded    TEXT NOT NULL,
    excluded    TEXT NOT NULL,
    layers      TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    output_hash TEXT NOT NULL,
    trigger     TEXT NOT NULL DEFAULT 'cli'
  );

  CREATE TABLE feedback (
    artifact_id    TEXT PRIMARY KEY,
    times_injected INTEGER NOT NULL DEFAULT 0,
    useful         INTEGER NOT NULL DEFAULT 0,
    not_useful     INTEGER NOT NULL DEFAULT 0
  );
  `,
  // Issue 42: the artifact files are the ledger; the index records, per file, what it last read
  // (size, modification time, hash of the text) and the chain it holds, so a refresh stats the
  // files and reads only those that changed. Saved with the index, so the two never disagree.
  `
  CREATE TABLE artifact_file (
    path     TEXT PRIMARY KEY,
    chain_id TEXT NOT NULL,
    size     INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    hash     TEXT NOT NULL
  );
  CREATE INDEX artifact_file_chain ON artifact_file (chain_id);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
