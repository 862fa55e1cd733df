-- Email submissions, documents and inbound addresses (pipeline/src/email). Ids are UUID text,
-- timestamps RFC 3339 UTC text; `body` holds the full record as JSON.

CREATE TABLE inbound_addresses (
    address     TEXT PRIMARY KEY,             -- lower-case, e.g. 3f9a0c1d2e4b@inbound.teu.local
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    created_at  TEXT NOT NULL
);
CREATE INDEX inbound_addresses_account ON inbound_addresses (account_id);

CREATE TABLE email_submissions (
    id           TEXT PRIMARY KEY,            -- UUID v5 of the Message-ID, scoped by account
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    message_id   TEXT NOT NULL,
    source_file  TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    body         TEXT NOT NULL,
    UNIQUE (account_id, message_id)
);
CREATE INDEX email_submissions_list ON email_submissions (account_id, created_at DESC, id DESC);

-- One row per distinct content (SHA-256) per account; the bytes are kept here.
CREATE TABLE documents (
    id           TEXT PRIMARY KEY,            -- UUID v5 of the SHA-256, scoped by account
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    sha256       TEXT NOT NULL,
    file_name    TEXT NOT NULL,
    media_type   TEXT NOT NULL,
    byte_size    BIGINT NOT NULL,
    content      BYTEA NOT NULL,
    created_at   TEXT NOT NULL,
    UNIQUE (account_id, sha256)
);

CREATE TABLE email_documents (
    email_submission_id  TEXT NOT NULL,
    document_id          TEXT NOT NULL,
    account_id           TEXT NOT NULL,
    position             BIGINT NOT NULL,     -- order of first appearance in the message
    PRIMARY KEY (email_submission_id, document_id)
);
CREATE INDEX email_documents_document ON email_documents (account_id, document_id);

CREATE TABLE document_representations (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    document_id  TEXT NOT NULL,
    kind         TEXT NOT NULL,               -- 'original'
    media_type   TEXT NOT NULL,
    byte_size    BIGINT NOT NULL,
    sha256       TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX document_representations_document ON document_representations (account_id, document_id);

-- Document schemas (pipeline/schemas/*.json), loaded at start-up; shared by all accounts.
CREATE TABLE document_schemas (
    id              TEXT PRIMARY KEY,         -- full_version: <document_type>@<version>
    document_type   TEXT NOT NULL,
    schema_version  TEXT NOT NULL,
    label           TEXT NOT NULL,
    description     TEXT NOT NULL,
    current_flag    BIGINT NOT NULL,          -- 0 or 1
    draft           BIGINT NOT NULL,          -- 0 or 1
    active_at       TEXT,
    schema_format   TEXT NOT NULL,
    schema_payload  TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX document_schemas_type ON document_schemas (document_type);
