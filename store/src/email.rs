//! Store methods for inbound addresses, email submissions and documents (tables in
//! `migrations/*/20261121000006_email.sql`). Message files are read by `teu_pipeline::ingest::email`.
//!
//! All statements use numbered `$n` placeholders and run on SQLite and PostgreSQL alike. Every
//! query takes the account id. A message is written in one transaction: documents and their
//! representation (once per SHA-256 per account, `ON CONFLICT DO NOTHING`), the links and the
//! submission; an existing Message-ID leaves everything as it was.

use crate::db::DbRow;
use uuid::Uuid;

use super::{now, parse_ts, ts, Result, Store, StoreError};
use teu_domain::ids;
use teu_domain::model::Account;
use teu_feeds::email::{
    inbound_address, Document, DocumentRepresentation, EmailSubmission, ParsedEmail,
};

/// Kind of the representation recorded for every document: its bytes as received.
pub const ORIGINAL: &str = "original";

impl Store {
    /// Gives `account` a new inbound address (see [`inbound_address`]) and returns it.
    pub async fn create_inbound_address(&self, account: Uuid) -> Result<String> {
        let address = inbound_address();
        crate::db::query(
            "INSERT INTO inbound_addresses (address, account_id, created_at) VALUES ($1, $2, $3)",
        )
        .bind(&address)
        .bind(account.to_string())
        .bind(ts(now()))
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
        .bind(account.to_string())
        .bind(ts(now()))
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
        .bind(account.to_string())
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
        row.map(|r| {
            let id: String = r.try_get("id")?;
            Ok(Account {
                id: uuid(&id, "account")?,
                name: r.try_get("name")?,
                company_name: r.try_get("company_name")?,
                routing_data: r.try_get::<i64, _>("routing_data")? != 0,
                created_at: parse_ts(&r.try_get::<String, _>("created_at")?, "account")?,
            })
        })
        .transpose()
    }

    /// Stores a parsed message for `account`, unless its Message-ID is already stored there.
    /// Returns the stored submission and whether it was new.
    pub async fn save_email(
        &self,
        account: Uuid,
        email: &ParsedEmail,
        source_file: &str,
    ) -> Result<(EmailSubmission, bool)> {
        let id = ids::scoped(account, "email_submission", &[&email.message_id]);
        if let Some(existing) = self.email_submission(account, id).await? {
            return Ok((existing, false));
        }
        let created = now();
        let mut tx = self.writer().begin().await?;
        let mut document_ids: Vec<Uuid> = Vec::new();
        for a in &email.attachments {
            let doc_id = ids::scoped(account, "document", &[&a.sha256]);
            if document_ids.contains(&doc_id) {
                continue;
            }
            let rep_id = ids::scoped(account, "document_representation", &[&a.sha256, ORIGINAL]);
            let size = i64::try_from(a.bytes.len()).unwrap_or(i64::MAX);
            crate::db::query(
                "INSERT INTO documents (id, account_id, sha256, file_name, media_type, byte_size, content, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
            )
            .bind(doc_id.to_string())
            .bind(account.to_string())
            .bind(&a.sha256)
            .bind(&a.file_name)
            .bind(&a.media_type)
            .bind(size)
            .bind(a.bytes.clone())
            .bind(ts(created))
            .execute(self.counted(&mut tx))
            .await?;
            crate::db::query(
                "INSERT INTO document_representations (id, account_id, document_id, kind, media_type, byte_size, sha256, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
            )
            .bind(rep_id.to_string())
            .bind(account.to_string())
            .bind(doc_id.to_string())
            .bind(ORIGINAL)
            .bind(&a.media_type)
            .bind(size)
            .bind(&a.sha256)
            .bind(ts(created))
            .execute(self.counted(&mut tx))
            .await?;
            crate::db::query(
                "INSERT INTO email_documents (email_submission_id, document_id, account_id, position) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (email_submission_id, document_id) DO NOTHING",
            )
            .bind(id.to_string())
            .bind(doc_id.to_string())
            .bind(account.to_string())
            .bind(document_ids.len() as i64)
            .execute(self.counted(&mut tx))
            .await?;
            document_ids.push(doc_id);
        }
        let submission = EmailSubmission {
            id,
            account_id: account,
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
        let body = serde_json::to_string(&submission).map_err(|e| StoreError::Corrupt {
            what: "email submission",
            id: id.to_string(),
            detail: e.to_string(),
        })?;
        crate::db::query(
            "INSERT INTO email_submissions (id, account_id, message_id, source_file, created_at, updated_at, body) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
        )
        .bind(id.to_string())
        .bind(account.to_string())
        .bind(&submission.message_id)
        .bind(source_file)
        .bind(ts(created))
        .bind(ts(created))
        .bind(body)
        .execute(self.counted(&mut tx))
        .await?;
        tx.commit().await?;
        Ok((submission, true))
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
                .bind(account.to_string())
                .fetch_one(self.pool())
                .await?
                .try_get("n")?;
        let rows = crate::db::query(
            "SELECT id, body FROM email_submissions WHERE account_id = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
        )
        .bind(account.to_string())
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
        .bind(account.to_string())
        .bind(id.to_string())
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(submission_row).transpose()
    }

    /// The account's documents with these ids (unknown ids skipped), without their bytes, with
    /// their latest representation id.
    pub async fn documents_by_ids(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<Document>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for chunk in ids.chunks(400) {
            let sql = format!(
                "SELECT id, sha256, file_name, media_type, byte_size, created_at FROM documents \
                 WHERE account_id = $1 AND id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(account.to_string());
            for id in chunk {
                q = q.bind(id.to_string());
            }
            for r in q.fetch_all(self.pool()).await? {
                let id: String = r.try_get("id")?;
                let sha256: String = r.try_get("sha256")?;
                out.push(Document {
                    id: uuid(&id, "document")?,
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
                    created_at: parse_ts(&r.try_get::<String, _>("created_at")?, "document")?,
                });
            }
        }
        Ok(out)
    }

    /// The account's document representations with these ids (unknown ids skipped).
    pub async fn document_representations_by_ids(
        &self,
        account: Uuid,
        ids: &[Uuid],
    ) -> Result<Vec<DocumentRepresentation>> {
        let mut out = Vec::new();
        for chunk in ids.chunks(400) {
            let sql = format!(
                "SELECT id, document_id, kind, media_type, byte_size, sha256, created_at \
                 FROM document_representations WHERE account_id = $1 AND id IN ({})",
                in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(account.to_string());
            for id in chunk {
                q = q.bind(id.to_string());
            }
            for r in q.fetch_all(self.pool()).await? {
                out.push(DocumentRepresentation {
                    id: uuid(&r.try_get::<String, _>("id")?, "document representation")?,
                    document_id: uuid(
                        &r.try_get::<String, _>("document_id")?,
                        "document representation",
                    )?,
                    kind: r.try_get("kind")?,
                    media_type: r.try_get("media_type")?,
                    byte_size: r.try_get("byte_size")?,
                    sha256: r.try_get("sha256")?,
                    created_at: parse_ts(
                        &r.try_get::<String, _>("created_at")?,
                        "document representation",
                    )?,
                });
            }
        }
        Ok(out)
    }

    /// The stored bytes of one of the account's documents.
    pub async fn document_content(&self, account: Uuid, id: Uuid) -> Result<Option<Vec<u8>>> {
        let row =
            crate::db::query("SELECT content FROM documents WHERE account_id = $1 AND id = $2")
                .bind(account.to_string())
                .bind(id.to_string())
                .fetch_optional(self.pool())
                .await?;
        Ok(row
            .map(|r| r.try_get::<Vec<u8>, _>("content"))
            .transpose()?)
    }
}

fn in_list(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn uuid(s: &str, what: &'static str) -> Result<Uuid> {
    Uuid::parse_str(s).map_err(|e| StoreError::Corrupt {
        what,
        id: s.to_string(),
        detail: e.to_string(),
    })
}

fn submission_row(r: &DbRow) -> Result<EmailSubmission> {
    let id: String = r.try_get("id")?;
    let body: String = r.try_get("body")?;
    serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
        what: "email submission",
        id,
        detail: e.to_string(),
    })
}
