//! Email submissions and document schemas over GraphQL, with the values of the `/v2`
//! resources (`GET /v2/email_submissions`, `/v2/document_schemas/{id}`; spec:
//! email_submission, document_schema).
//!
//! - `emailSubmissions` is a Relay connection with `totalCount`, newest first like `/v2`;
//!   `emailSubmission(id)` is null for an unknown, malformed or other account's id.
//! - `EmailSubmission.documents` and `Document.lastDocumentRepresentation` are batch-loaded
//!   (one store call per field and page).
//! - `documentSchema(id)` takes the `<document_type>@<version>` id (null when unknown);
//!   `documentSchemas(documentType)` lists all schemas, or one type's, by type then version.
//!   Schemas are shared by all accounts, but reading them still needs an API key.
//!
//! `/v2`'s `user` relationship is always null (teu has no users yet), so the GraphQL type has
//! no `user` field.

use async_graphql::{Context, Json, Object, ID};
use teu_pipeline::document_schemas;
use teu_pipeline::email;

use crate::context::{loader, parse_id, store};
use crate::error;
use crate::loaders::{DocumentKey, RepresentationKey};
use crate::paging::{connection, page, ConnectionFields, Cursor};
use crate::types::DateTime;

/// The account an email submission belongs to (always the request's own).
pub struct Account(pub teu_pipeline::model::Account);

/// An account (`/v2` included account resource).
#[Object]
impl Account {
    /// The account id (UUID).
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// The company's name.
    async fn company_name(&self) -> &str {
        &self.0.company_name
    }
}

/// An email an account sent in, with its attachments.
pub struct EmailSubmission(pub email::EmailSubmission);

/// An email an account sent in, with its attachments as documents (`/v2` email_submission,
/// same values).
#[Object]
impl EmailSubmission {
    /// The submission id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    async fn subject(&self) -> Option<&str> {
        self.0.subject.as_deref()
    }

    /// Plain text body (an HTML-only message turned into text).
    async fn body(&self) -> Option<&str> {
        self.0.body.as_deref()
    }

    /// Sender addresses.
    async fn from(&self) -> &[String] {
        &self.0.from
    }

    /// Recipient addresses.
    async fn to(&self) -> &[String] {
        &self.0.to
    }

    async fn cc(&self) -> &[String] {
        &self.0.cc
    }

    /// The `Date` header, in UTC.
    async fn sent_at(&self) -> Option<DateTime> {
        self.0.sent_at.map(DateTime)
    }

    /// The Message-ID, without angle brackets.
    async fn message_id(&self) -> &str {
        &self.0.message_id
    }

    async fn in_reply_to(&self) -> Option<&str> {
        self.0.in_reply_to.as_deref()
    }

    async fn references(&self) -> &[String] {
        &self.0.references
    }

    /// Top-level MIME type, e.g. `multipart/mixed`.
    async fn content_type(&self) -> Option<&str> {
        self.0.content_type.as_deref()
    }

    /// Distinct documents attached.
    async fn documents_count(&self) -> i64 {
        self.0.documents_count
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    async fn updated_at(&self) -> DateTime {
        DateTime(self.0.updated_at)
    }

    /// The account it belongs to.
    async fn account(&self, ctx: &Context<'_>) -> async_graphql::Result<Account> {
        Ok(Account(error::account(ctx)?.clone()))
    }

    /// The attached documents, in order of first appearance in the message, each once.
    async fn documents(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Document>> {
        let account = error::account(ctx)?;
        let keys = self.0.document_ids.iter().map(|&document| DocumentKey {
            account: account.id,
            document,
        });
        let mut found = loader(ctx)?
            .load_many(keys)
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(self
            .0
            .document_ids
            .iter()
            .filter_map(|&document| {
                found.remove(&DocumentKey {
                    account: account.id,
                    document,
                })
            })
            .map(Document)
            .collect())
    }
}

/// An attachment, stored once per content.
pub struct Document(pub email::Document);

/// An attachment, stored once per content (SHA-256) per account (`/v2` document).
#[Object]
impl Document {
    /// The document id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// File name of the first attachment seen with these bytes.
    async fn file_name(&self) -> &str {
        &self.0.file_name
    }

    /// MIME type as the message declared it, e.g. `application/pdf`.
    async fn media_type(&self) -> &str {
        &self.0.media_type
    }

    /// Size of the decoded bytes.
    async fn byte_size(&self) -> i64 {
        self.0.byte_size
    }

    /// SHA-256 of the decoded bytes, lower-case hex.
    async fn sha256(&self) -> &str {
        &self.0.sha256
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    /// Its latest representation (today the `original` bytes).
    async fn last_document_representation(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Option<DocumentRepresentation>> {
        let account = error::account(ctx)?;
        let found = loader(ctx)?
            .load_one(RepresentationKey {
                account: account.id,
                representation: self.0.last_document_representation_id,
            })
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(found.map(DocumentRepresentation))
    }
}

/// A representation of a document.
pub struct DocumentRepresentation(pub email::DocumentRepresentation);

/// A representation of a document (`/v2` document_representation).
#[Object]
impl DocumentRepresentation {
    /// The representation id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// `original`: the bytes as received.
    async fn kind(&self) -> &str {
        &self.0.kind
    }

    async fn media_type(&self) -> &str {
        &self.0.media_type
    }

    async fn byte_size(&self) -> i64 {
        self.0.byte_size
    }

    /// SHA-256 of the bytes, lower-case hex.
    async fn sha256(&self) -> &str {
        &self.0.sha256
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }
}

/// A versioned JSON Schema of a document type.
pub struct DocumentSchema(pub document_schemas::DocumentSchema);

/// A versioned JSON Schema of the fields extracted from a document type (`/v2`
/// document_schema, same values).
#[Object]
impl DocumentSchema {
    /// `<document_type>@<version>`, the same as `fullVersion` and the `/v2` id.
    async fn id(&self) -> ID {
        ID(self.0.full_version.clone())
    }

    /// bill_of_lading, arrival_notice, commercial_invoice, packing_list, delivery_order.
    async fn document_type(&self) -> &str {
        &self.0.document_type
    }

    async fn label(&self) -> &str {
        &self.0.label
    }

    async fn schema_version(&self) -> &str {
        &self.0.schema_version
    }

    /// `<document_type>@<version>`.
    async fn full_version(&self) -> &str {
        &self.0.full_version
    }

    /// Whether documents of this type are extracted into this version now.
    async fn current(&self) -> bool {
        self.0.current
    }

    /// Not yet in use.
    async fn draft(&self) -> bool {
        self.0.draft
    }

    async fn active_at(&self) -> Option<DateTime> {
        self.0.active_at.map(DateTime)
    }

    /// `json_schema`.
    async fn schema_format(&self) -> &str {
        &self.0.schema_format
    }

    async fn description(&self) -> &str {
        &self.0.description
    }

    /// The JSON Schema itself.
    async fn schema_payload(&self) -> Json<serde_json::Value> {
        Json(self.0.schema_payload.clone())
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    async fn updated_at(&self) -> DateTime {
        DateTime(self.0.updated_at)
    }
}

/// A page of email submissions.
type EmailSubmissionConnection = async_graphql::connection::Connection<
    Cursor,
    EmailSubmission,
    ConnectionFields,
    async_graphql::connection::EmptyFields,
>;

/// The email and document schema part of [`crate::Query`].
#[derive(Default)]
pub struct EmailQuery;

/// The account's email submissions, and the document schemas.
#[Object]
impl EmailQuery {
    /// The account's email submissions, newest first (the `/v2` list order). `first` defaults
    /// to 30 and may be at most 100.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn email_submissions(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<EmailSubmissionConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let (items, total) = store(ctx)?
            .list_email_submissions(account.id, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(connection(offset, items, total, EmailSubmission))
    }

    /// One of the account's email submissions; null when the id is unknown, malformed or
    /// another account's.
    async fn email_submission(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<EmailSubmission>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .email_submission(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(EmailSubmission))
    }

    /// One document schema by id, `<document_type>@<version>` (`bill_of_lading@1.0`); null
    /// when there is none.
    async fn document_schema(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<DocumentSchema>> {
        error::account(ctx)?;
        let found = store(ctx)?
            .document_schema(id.as_str())
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(DocumentSchema))
    }

    /// The document schemas, all or those of one `documentType` (`bill_of_lading`), by type
    /// then version.
    async fn document_schemas(
        &self,
        ctx: &Context<'_>,
        document_type: Option<String>,
    ) -> async_graphql::Result<Vec<DocumentSchema>> {
        error::account(ctx)?;
        let found = store(ctx)?
            .document_schemas(document_type.as_deref())
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.into_iter().map(DocumentSchema).collect())
    }
}
