//! Store methods for inbound addresses, email submissions and documents (tables in
//! `migrations/*/20261121000006_email.sql`). Message files are read by `teu_pipeline::ingest::email`.
//!
//! All statements run on SQLite and PostgreSQL alike. Every query takes the account id (or ids
//! scoped by it: UUID v5 with the account, `teu_domain::ids::scoped`). A message is written in one transaction: documents and their
//! representation (once per SHA-256 per account, `ON CONFLICT DO NOTHING`), the links and the
//! submission; an existing Message-ID leaves everything as it was. Several messages may share
//! one transaction ([`Store::save_emails`]).

use crate::db::{DbRow, RecordId, RecordTime};
use uuid::Uuid;

use super::{account_row, now, record_id, record_time, Result, Store, StoreError};
use teu_domain::ids;
use teu_domain::model::Account;
use teu_feeds::email::{
    inbound_address, Document, DocumentRepresentation, EmailSubmission, ParsedAttachment,
    ParsedEmail,
};

/// Kind of the representation recorded for every document: its bytes as received.
pub const ORIGINAL: &str = "original";

/// A message to store with [`Store::save_emails`]: its owner's account, the message as read,
/// and the file it came from (kept as the submission's `source_file`).
#[derive(Debug, Clone, Copy)]
pub struct NewEmail<'a> {
    pub account: Uuid,
    pub email: &'a ParsedEmail,
    pub source_file: &'a str,
}

/// An attachment's size in bytes as stored (`byte_size`).
fn byte_size(a: &ParsedAttachment) -> i64 {
    i64::try_from(a.bytes.len()).unwrap_or(i64::MAX)
}

impl Store {
    /// Gives `account` a new inbound address (see [`inbound_address`]) and returns it.
    pub async fn create_inbound_address(&self, account: Uuid) -> Result<String> {
        let address = inbound_address();
        crate::db::query(
            "INSERT INTO inbound_addresses (address, account_id, created_at) VALUES ($1, $2, $3)",
        )
        .bind(&address)
        .bind(RecordId(account))
        .bind(RecordTime(now()))
        .execute(self.writer())
        .await?;
        Ok(address)
    }

    /// Gives `account` the inbound address `address` (lower-cased; any local part at any
    /// domain) unless it already has it: idempotent, for fixed addresses such as the demo
    /// account's.
    ///
    /// # Errors
    ///
    /// [`StoreError::InboundAddressTaken`] when another account owns the address,
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn add_inbound_address(&self, account: Uuid, address: &str) -> Result<()> {
        let address = address.trim().to_ascii_lowercase();
        crate::db::query(
            "INSERT INTO inbound_addresses (address, account_id, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (address) DO NOTHING",
        )
        .bind(&address)
        .bind(RecordId(account))
        .bind(RecordTime(now()))
        .execute(self.writer())
        .await?;
        match self.account_by_inbound_address(&address).await? {
            Some(owner) if owner.id == account => Ok(()),
            _ => Err(StoreError::InboundAddressTaken(address)),
        }
    }

    /// The inbound addresses of `account`, oldest first.
    pub async fn inbound_addresses(&self, account: Uuid) -> Result<Vec<String>> {
        let rows = crate::db::query(
            "SELECT address FROM inbound_addresses WHERE account_id = $1 ORDER BY created_at, address",
        )
        .bind(RecordId(account))
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("address").map_err(Into::into))
            .collect()
    }

    /// The account owning the inbound address `address` (lower-case), if any.
    pub async fn account_by_inbound_address(&self, address: &str) -> Result<Option<Account>> {
        let row = crate::db::query(
            "SELECT a.id, a.name, a.company_name, a.routing_data, a.created_at FROM inbound_addresses i \
             JOIN accounts a ON a.id = i.account_id WHERE i.address = $1",
        )
        .bind(address)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| account_row(&r)).transpose()
    }

    /// Stores parsed messages, each for its owner, in one transaction: a message whose
    /// Message-ID its account has stored already (or an earlier message of `emails` with the
    /// same account and Message-ID) is left as it was. For each new message: its attachments as
    /// documents with their original representation (once per SHA-256 per account), their
    /// links to the submission in order of first appearance, and the submission itself.
    /// Returns, for each message of `emails` in order, whether it was new.
    ///
    /// The whole list takes one transaction of a few multi-row statements, not a transaction
    /// per message: `teu ingest` stores a run of email files read ahead together
    /// (`teu_pipeline::ingest::store_emails`), and a transaction costs a handful of round trips
    /// to the database whatever it holds.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the database refuses a statement or the connection fails:
    /// nothing of `emails` is kept then. [`StoreError::Corrupt`] when a submission cannot be
    /// written as JSON.
    pub async fn save_emails(&self, emails: &[NewEmail<'_>]) -> Result<Vec<bool>> {
        if emails.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Uuid> = emails
            .iter()
            .map(|e| ids::scoped(e.account, "email_submission", &[&e.email.message_id]))
            .collect();
        // The lock first: the transaction reads before it writes, and SQLite does not wait
        // for another writer when a transaction that has read asks for the write lock.
        let mut tx = self.writer().begin_immediate().await?;
        // The ids stored already; each new message's id joins them below, so that a later
        // message of `emails` with the same id is not new either.
        let mut stored = std::collections::HashSet::new();
        for chunk in ids.chunks(self.rows_per_list(1)) {
            let sql = format!(
                "SELECT id FROM email_submissions WHERE id IN ({})",
                self.list(chunk.len())
            );
            let mut q = crate::db::query(&sql);
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            for row in q.fetch_all(self.counted(&mut tx)).await? {
                stored.insert(record_id(&row, "id", "email submission")?);
            }
        }
        let created = now();
        let mut new = Vec::with_capacity(emails.len());
        let mut documents: Vec<(Uuid, Uuid, &ParsedAttachment)> = Vec::new();
        let mut seen_documents = std::collections::HashSet::new();
        let mut links: Vec<(Uuid, Uuid, Uuid, i64)> = Vec::new();
        let mut submissions: Vec<(&NewEmail<'_>, Uuid, String)> = Vec::new();
        for (e, id) in emails.iter().zip(&ids) {
            let fresh = stored.insert(*id);
            new.push(fresh);
            if !fresh {
                continue;
            }
            let mut document_ids: Vec<Uuid> = Vec::new();
            for a in &e.email.attachments {
                let doc_id = ids::scoped(e.account, "document", &[&a.sha256]);
                if document_ids.contains(&doc_id) {
                    continue;
                }
                if seen_documents.insert(doc_id) {
                    documents.push((doc_id, e.account, a));
                }
                links.push((*id, doc_id, e.account, document_ids.len() as i64));
                document_ids.push(doc_id);
            }
            let email = e.email;
            let submission = EmailSubmission {
                id: *id,
                account_id: e.account,
                user_id: None,
                subject: email.subject.clone(),
                body: email.body.clone(),
                from: email.from.clone(),
                to: email.to.clone(),
                cc: email.cc.clone(),
                sent_at: email.sent_at,
                message_id: email.message_id.clone(),
                in_reply_to: email.in_reply_to.clone(),
                references: email.references.clone(),
                content_type: email.content_type.clone(),
                documents_count: document_ids.len() as i64,
                document_ids,
                created_at: created,
                updated_at: created,
            };
            let body = serde_json::to_string(&submission).map_err(|err| StoreError::Corrupt {
                what: "email submission",
                id: id.to_string(),
                detail: err.to_string(),
            })?;
            submissions.push((e, *id, body));
        }
        let created = RecordTime(created);
        for chunk in documents.chunks(self.rows_per_list(8)) {
            let sql = format!(
                "INSERT INTO documents (id, account_id, sha256, file_name, media_type, byte_size, content, created_at) \
                 VALUES {} ON CONFLICT (id) DO NOTHING",
                self.values(chunk.len(), 8)
            );
            let mut q = crate::db::query(&sql);
            for (doc_id, account, a) in chunk {
                q = q
                    .bind(RecordId(*doc_id))
                    .bind(RecordId(*account))
                    .bind(a.sha256.as_str())
                    .bind(a.file_name.as_str())
                    .bind(a.media_type.as_str())
                    .bind(byte_size(a))
                    .bind(a.bytes.as_slice())
                    .bind(created);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        for chunk in documents.chunks(self.rows_per_list(8)) {
            let sql = format!(
                "INSERT INTO document_representations (id, account_id, document_id, kind, media_type, byte_size, sha256, created_at) \
                 VALUES {} ON CONFLICT (id) DO NOTHING",
                self.values(chunk.len(), 8)
            );
            let mut q = crate::db::query(&sql);
            for (doc_id, account, a) in chunk {
                let rep_id =
                    ids::scoped(*account, "document_representation", &[&a.sha256, ORIGINAL]);
                q = q
                    .bind(RecordId(rep_id))
                    .bind(RecordId(*account))
                    .bind(RecordId(*doc_id))
                    .bind(ORIGINAL)
                    .bind(a.media_type.as_str())
                    .bind(byte_size(a))
                    .bind(a.sha256.as_str())
                    .bind(created);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        for chunk in links.chunks(self.rows_per_list(4)) {
            let sql = format!(
                "INSERT INTO email_documents (email_submission_id, document_id, account_id, position) \
                 VALUES {} ON CONFLICT (email_submission_id, document_id) DO NOTHING",
                self.values(chunk.len(), 4)
            );
            let mut q = crate::db::query(&sql);
            for (id, doc_id, account, position) in chunk {
                q = q
                    .bind(RecordId(*id))
                    .bind(RecordId(*doc_id))
                    .bind(RecordId(*account))
                    .bind(*position);
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        for chunk in submissions.chunks(self.rows_per_list(7)) {
            let sql = format!(
                "INSERT INTO email_submissions (id, account_id, message_id, source_file, created_at, updated_at, body) \
                 VALUES {} ON CONFLICT (id) DO NOTHING",
                self.values(chunk.len(), 7)
            );
            let mut q = crate::db::query(&sql);
            for (e, id, body) in chunk {
                q = q
                    .bind(RecordId(*id))
                    .bind(RecordId(e.account))
                    .bind(e.email.message_id.as_str())
                    .bind(e.source_file)
                    .bind(created)
                    .bind(created)
                    .bind(body.as_str());
            }
            q.execute(self.counted(&mut tx)).await?;
        }
        tx.commit().await?;
        Ok(new)
    }

    /// One page of the account's email submissions, newest first (then id), and the total.
    pub async fn list_email_submissions(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<EmailSubmission>, i64)> {
        let total: i64 =
            crate::db::query("SELECT COUNT(*) AS n FROM email_submissions WHERE account_id = $1")
                .bind(RecordId(account))
                .fetch_one(self.pool())
                .await?
                .try_get("n")?;
        let rows = crate::db::query(
            "SELECT id, body FROM email_submissions WHERE account_id = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
        )
        .bind(RecordId(account))
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await?;
        let items = rows
            .iter()
            .map(submission_row)
            .collect::<Result<Vec<_>>>()?;
        Ok((items, total))
    }

    /// One of the account's email submissions.
    pub async fn email_submission(
        &self,
        account: Uuid,
        id: Uuid,
    ) -> Result<Option<EmailSubmission>> {
        let row = crate::db::query(
            "SELECT id, body FROM email_submissions WHERE account_id = $1 AND id = $2",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(submission_row).transpose()
    }

    /// The account's documents with these ids (unknown ids and other accounts' skipped), in no
    /// set order, without their bytes, with their latest representation id. One statement per
    /// chunk of ids (`Store::select_in`, on the reader's connections).
    ///
    /// # Errors
    /// [`StoreError::Sql`] when a statement fails; [`StoreError::Corrupt`] when a stored id or
    /// time does not decode.
    pub async fn documents_by_ids(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<Document>> {
        self.select_in(
            "SELECT id, account_id, sha256, file_name, media_type, byte_size, created_at \
             FROM documents WHERE account_id = $1 AND id IN",
            account,
            ids,
            document_row,
        )
        .await
    }

    /// The account's document representations with these ids (unknown ids and other
    /// accounts' skipped), in no set order, read as [`Store::documents_by_ids`] reads.
    ///
    /// # Errors
    /// As [`Store::documents_by_ids`].
    pub async fn document_representations_by_ids(
        &self,
        account: Uuid,
        ids: &[Uuid],
    ) -> Result<Vec<DocumentRepresentation>> {
        self.select_in(
            "SELECT id, document_id, kind, media_type, byte_size, sha256, created_at \
             FROM document_representations WHERE account_id = $1 AND id IN",
            account,
            ids,
            representation_row,
        )
        .await
    }

    /// The stored bytes of one of the account's documents.
    pub async fn document_content(&self, account: Uuid, id: Uuid) -> Result<Option<Vec<u8>>> {
        let row =
            crate::db::query("SELECT content FROM documents WHERE account_id = $1 AND id = $2")
                .bind(RecordId(account))
                .bind(RecordId(id))
                .fetch_optional(self.pool())
                .await?;
        Ok(row
            .map(|r| r.try_get::<Vec<u8>, _>("content"))
            .transpose()?)
    }
}

/// A document of a row of `documents` (without its bytes), with the id of its original
/// representation (UUID v5 of its account and SHA-256, as `Store::save_emails` wrote it).
fn document_row(r: &DbRow) -> Result<Document> {
    let account = record_id(r, "account_id", "document")?;
    let sha256: String = r.try_get("sha256")?;
    Ok(Document {
        id: record_id(r, "id", "document")?,
        account_id: account,
        file_name: r.try_get("file_name")?,
        media_type: r.try_get("media_type")?,
        byte_size: r.try_get("byte_size")?,
        last_document_representation_id: ids::scoped(
            account,
            "document_representation",
            &[&sha256, ORIGINAL],
        ),
        sha256,
        created_at: record_time(r, "created_at")?,
    })
}

/// A representation of a row of `document_representations`.
fn representation_row(r: &DbRow) -> Result<DocumentRepresentation> {
    Ok(DocumentRepresentation {
        id: record_id(r, "id", "document representation")?,
        document_id: record_id(r, "document_id", "document representation")?,
        kind: r.try_get("kind")?,
        media_type: r.try_get("media_type")?,
        byte_size: r.try_get("byte_size")?,
        sha256: r.try_get("sha256")?,
        created_at: record_time(r, "created_at")?,
    })
}

fn submission_row(r: &DbRow) -> Result<EmailSubmission> {
    let id = record_id(r, "id", "email submission")?;
    let body: String = r.try_get("body")?;
    serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
        what: "email submission",
        id: id.to_string(),
        detail: e.to_string(),
    })
}
