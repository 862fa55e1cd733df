-- Email submissions and their documents in their native form (issue 16, "UUIDs as 16-byte
-- BLOB, times as integer milliseconds"), as the event and derived tables are since
-- migrations 28 and 38: every id as its 16 bytes (RFC 9562 byte order), every time as
-- milliseconds since 1970-01-01T00:00:00Z (UTC). `Uuid::to_string` and `ts` wrote them as
-- text (times to the millisecond), so the conversion loses nothing, and the list of
-- submissions keeps its order (a UUID's text sorts as its bytes do). A submission's
-- `message_id` is the message's Message-ID header, not a UUID, and stays text, as does its
-- `body` (the submission as JSON, read whole). Each table is built again (SQLite changes a
-- column's type no other way); the account's foreign key is left out, as on the event tables.
CREATE TABLE email_submissions_native (
    id           BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of the Message-ID, scoped by account
    account_id   BLOB NOT NULL,               -- 16 bytes
    message_id   TEXT NOT NULL,
    source_file  TEXT NOT NULL,
    created_at   INTEGER NOT NULL,            -- ms since the epoch, UTC
    updated_at   INTEGER NOT NULL,            -- ms since the epoch, UTC
    body         TEXT NOT NULL,
    UNIQUE (account_id, message_id)
);
INSERT INTO email_submissions_native
    (id, account_id, message_id, source_file, created_at, updated_at, body)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), message_id,
       source_file, CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER),
       CAST(round(unixepoch(updated_at, 'subsec') * 1000) AS INTEGER), body
FROM email_submissions;
DROP TABLE email_submissions;
ALTER TABLE email_submissions_native RENAME TO email_submissions;
CREATE INDEX email_submissions_list ON email_submissions (account_id, created_at DESC, id DESC);

CREATE TABLE documents_native (
    id           BLOB NOT NULL PRIMARY KEY,   -- 16 bytes: UUID v5 of the SHA-256, scoped by account
    account_id   BLOB NOT NULL,               -- 16 bytes
    sha256       TEXT NOT NULL,
    file_name    TEXT NOT NULL,
    media_type   TEXT NOT NULL,
    byte_size    BIGINT NOT NULL,
    content      BLOB NOT NULL,
    created_at   INTEGER NOT NULL,            -- ms since the epoch, UTC
    UNIQUE (account_id, sha256)
);
INSERT INTO documents_native
    (id, account_id, sha256, file_name, media_type, byte_size, content, created_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')), sha256, file_name,
       media_type, byte_size, content,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM documents;
DROP TABLE documents;
ALTER TABLE documents_native RENAME TO documents;

CREATE TABLE email_documents_native (
    email_submission_id  BLOB NOT NULL,   -- 16 bytes
    document_id          BLOB NOT NULL,   -- 16 bytes
    account_id           BLOB NOT NULL,   -- 16 bytes
    position             BIGINT NOT NULL, -- order of first appearance in the message
    PRIMARY KEY (email_submission_id, document_id)
);
INSERT INTO email_documents_native (email_submission_id, document_id, account_id, position)
SELECT unhex(replace(email_submission_id, '-', '')), unhex(replace(document_id, '-', '')),
       unhex(replace(account_id, '-', '')), position
FROM email_documents;
DROP TABLE email_documents;
ALTER TABLE email_documents_native RENAME TO email_documents;
CREATE INDEX email_documents_document ON email_documents (account_id, document_id);

CREATE TABLE document_representations_native (
    id           BLOB NOT NULL PRIMARY KEY,   -- 16 bytes
    account_id   BLOB NOT NULL,               -- 16 bytes
    document_id  BLOB NOT NULL,               -- 16 bytes
    kind         TEXT NOT NULL,               -- 'original'
    media_type   TEXT NOT NULL,
    byte_size    BIGINT NOT NULL,
    sha256       TEXT NOT NULL,
    created_at   INTEGER NOT NULL             -- ms since the epoch, UTC
);
INSERT INTO document_representations_native
    (id, account_id, document_id, kind, media_type, byte_size, sha256, created_at)
SELECT unhex(replace(id, '-', '')), unhex(replace(account_id, '-', '')),
       unhex(replace(document_id, '-', '')), kind, media_type, byte_size, sha256,
       CAST(round(unixepoch(created_at, 'subsec') * 1000) AS INTEGER)
FROM document_representations;
DROP TABLE document_representations;
ALTER TABLE document_representations_native RENAME TO document_representations;
CREATE INDEX document_representations_document ON document_representations (account_id, document_id);
