-- Email submissions and their documents in their native form (issue 16, "UUIDs as
-- uuid/16-byte BLOB, times as timestamptz"), as the event and derived tables are since
-- migrations 28 and 38: every id as its 16 bytes (`BYTEA`, RFC 9562 byte order), every time
-- as `timestamptz`. `Uuid::to_string` and `ts` wrote them as text (times to the
-- millisecond), so the conversion loses nothing, and the list of submissions keeps its order
-- (a UUID's text sorts as its bytes do). A submission's `message_id` is the message's
-- Message-ID header, not a UUID, and stays text, as does its `body` (the submission as JSON,
-- read whole). The account's foreign keys go with the type change, as on the event tables;
-- the indexes and unique constraints are rebuilt by the change itself.
ALTER TABLE email_submissions DROP CONSTRAINT IF EXISTS email_submissions_account_id_fkey;
ALTER TABLE documents DROP CONSTRAINT IF EXISTS documents_account_id_fkey;
ALTER TABLE document_representations
    DROP CONSTRAINT IF EXISTS document_representations_account_id_fkey;

ALTER TABLE email_submissions
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz,
    ALTER COLUMN updated_at TYPE TIMESTAMPTZ USING updated_at::timestamptz;

ALTER TABLE documents
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;

ALTER TABLE email_documents
    ALTER COLUMN email_submission_id TYPE BYTEA
        USING decode(replace(email_submission_id, '-', ''), 'hex'),
    ALTER COLUMN document_id TYPE BYTEA USING decode(replace(document_id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex');

ALTER TABLE document_representations
    ALTER COLUMN id TYPE BYTEA USING decode(replace(id, '-', ''), 'hex'),
    ALTER COLUMN account_id TYPE BYTEA USING decode(replace(account_id, '-', ''), 'hex'),
    ALTER COLUMN document_id TYPE BYTEA USING decode(replace(document_id, '-', ''), 'hex'),
    ALTER COLUMN created_at TYPE TIMESTAMPTZ USING created_at::timestamptz;

ANALYZE email_submissions;
ANALYZE documents;
ANALYZE email_documents;
ANALYZE document_representations;
