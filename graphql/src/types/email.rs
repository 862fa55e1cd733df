//! Email submissions, their documents, and document schemas (`/v2` email_submission,
//! document, document_representation, document_schema, with the same values).
//!
//! `/v2`'s `user` relationship is always null (teu has no users yet), so `EmailSubmission` has
//! no `user` field.

use async_graphql::{ComplexObject, Context, Json, SimpleObject, ID};
use teu_pipeline::document_schemas;
use teu_pipeline::email;
use uuid::Uuid;

use super::DateTime;
use crate::context::loader;
use crate::error;
use crate::loaders::{DocumentKey, RepresentationKey};

/// An account (`/v2` included account resource).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The account id (UUID).
    id: ID,
    /// The company's name.
    company_name: String,
}

impl From<&teu_pipeline::model::Account> for Account {
    /// The GraphQL account of an account: its id and company name.
    fn from(a: &teu_pipeline::model::Account) -> Self {
        Account {
            id: ID(a.id.to_string()),
            company_name: a.company_name.clone(),
        }
    }
}

/// An email an account sent in, with its attachments as documents (`/v2` email_submission,
/// same values).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
#[graphql(complex)]
pub struct EmailSubmission {
    /// The submission id (UUID), the same as in `/v2`.
    id: ID,
    subject: Option<String>,
    /// Plain text body (an HTML-only message turned into text).
    body: Option<String>,
    /// Sender addresses.
    from: Vec<String>,
    /// Recipient addresses.
    to: Vec<String>,
    cc: Vec<String>,
    /// The `Date` header, in UTC.
    sent_at: Option<DateTime>,
    /// The Message-ID, without angle brackets.
    message_id: String,
    in_reply_to: Option<String>,
    references: Vec<String>,
    /// Top-level MIME type, e.g. `multipart/mixed`.
    content_type: Option<String>,
    /// Distinct documents attached.
    documents_count: i64,
    created_at: DateTime,
    updated_at: DateTime,
    // Not a field of the schema: what `documents` looks up.
    #[graphql(skip)]
    document_ids: Vec<Uuid>,
}

impl From<email::EmailSubmission> for EmailSubmission {
    /// The GraphQL submission of a stored one. Every model field is named here, so a field
    /// added to the model does not compile until it is served or left out on purpose.
    fn from(e: email::EmailSubmission) -> Self {
        let email::EmailSubmission {
            id,
            account_id: _,
            user_id: _,
            subject,
            body,
            from,
            to,
            cc,
            sent_at,
            message_id,
            in_reply_to,
            references,
            content_type,
            documents_count,
            document_ids,
            created_at,
            updated_at,
        } = e;
        EmailSubmission {
            id: ID(id.to_string()),
            subject,
            body,
            from,
            to,
            cc,
            sent_at: sent_at.map(DateTime),
            message_id,
            in_reply_to,
            references,
            content_type,
            documents_count,
            created_at: DateTime(created_at),
            updated_at: DateTime(updated_at),
            document_ids,
        }
    }
}

/// The fields of a submission that are looked up: its account and documents.
#[ComplexObject]
impl EmailSubmission {
    /// The account it belongs to.
    async fn account(&self, ctx: &Context<'_>) -> async_graphql::Result<Account> {
        Ok(Account::from(error::account(ctx)?))
    }

    /// The attached documents, in order of first appearance in the message, each once.
    async fn documents(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Document>> {
        let account = error::account(ctx)?;
        let keys = self.document_ids.iter().map(|&document| DocumentKey {
            account: account.id,
            document,
        });
        let mut found = loader(ctx)?
            .load_many(keys)
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(self
            .document_ids
            .iter()
            .filter_map(|&document| {
                found.remove(&DocumentKey {
                    account: account.id,
                    document,
                })
            })
            .map(Document::from)
            .collect())
    }
}

/// An attachment, stored once per content (SHA-256) per account (`/v2` document).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
#[graphql(complex)]
pub struct Document {
    /// The document id (UUID), the same as in `/v2`.
    id: ID,
    /// File name of the first attachment seen with these bytes.
    file_name: String,
    /// MIME type as the message declared it, e.g. `application/pdf`.
    media_type: String,
    /// Size of the decoded bytes.
    byte_size: i64,
    /// SHA-256 of the decoded bytes, lower-case hex.
    sha256: String,
    created_at: DateTime,
    // Not a field of the schema: what `lastDocumentRepresentation` looks up.
    #[graphql(skip)]
    last_document_representation_id: Uuid,
}

impl From<email::Document> for Document {
    /// The GraphQL document of a stored one.
    fn from(d: email::Document) -> Self {
        let email::Document {
            id,
            account_id: _,
            file_name,
            media_type,
            byte_size,
            sha256,
            last_document_representation_id,
            created_at,
        } = d;
        Document {
            id: ID(id.to_string()),
            file_name,
            media_type,
            byte_size,
            sha256,
            created_at: DateTime(created_at),
            last_document_representation_id,
        }
    }
}

/// The field of a document that is looked up: its latest representation.
#[ComplexObject]
impl Document {
    /// Its latest representation (today the `original` bytes).
    async fn last_document_representation(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Option<DocumentRepresentation>> {
        let account = error::account(ctx)?;
        let found = loader(ctx)?
            .load_one(RepresentationKey {
                account: account.id,
                representation: self.last_document_representation_id,
            })
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(found.map(DocumentRepresentation::from))
    }
}

/// A representation of a document (`/v2` document_representation).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct DocumentRepresentation {
    /// The representation id (UUID), the same as in `/v2`.
    id: ID,
    /// `original`: the bytes as received.
    kind: String,
    media_type: String,
    byte_size: i64,
    /// SHA-256 of the bytes, lower-case hex.
    sha256: String,
    created_at: DateTime,
}

impl From<email::DocumentRepresentation> for DocumentRepresentation {
    /// The GraphQL representation of a stored one.
    fn from(r: email::DocumentRepresentation) -> Self {
        let email::DocumentRepresentation {
            id,
            document_id: _,
            kind,
            media_type,
            byte_size,
            sha256,
            created_at,
        } = r;
        DocumentRepresentation {
            id: ID(id.to_string()),
            kind,
            media_type,
            byte_size,
            sha256,
            created_at: DateTime(created_at),
        }
    }
}

/// A versioned JSON Schema of the fields extracted from a document type (`/v2`
/// document_schema, same values).
#[derive(SimpleObject, Debug, Clone)]
pub struct DocumentSchema {
    /// `<document_type>@<version>`, the same as `fullVersion` and the `/v2` id.
    id: ID,
    /// bill_of_lading, arrival_notice, commercial_invoice, packing_list, delivery_order.
    document_type: String,
    label: String,
    schema_version: String,
    /// `<document_type>@<version>`.
    full_version: String,
    /// Whether documents of this type are extracted into this version now.
    current: bool,
    /// Not yet in use.
    draft: bool,
    active_at: Option<DateTime>,
    /// `json_schema`.
    schema_format: String,
    description: String,
    /// The JSON Schema itself.
    schema_payload: Json<serde_json::Value>,
    created_at: DateTime,
    updated_at: DateTime,
}

impl From<document_schemas::DocumentSchema> for DocumentSchema {
    /// The GraphQL schema of a stored one.
    fn from(s: document_schemas::DocumentSchema) -> Self {
        let document_schemas::DocumentSchema {
            full_version,
            document_type,
            schema_version,
            label,
            description,
            current,
            draft,
            active_at,
            schema_format,
            schema_payload,
            created_at,
            updated_at,
        } = s;
        DocumentSchema {
            id: ID(full_version.clone()),
            document_type,
            label,
            schema_version,
            full_version,
            current,
            draft,
            active_at: active_at.map(DateTime),
            schema_format,
            description,
            schema_payload: Json(schema_payload),
            created_at: DateTime(created_at),
            updated_at: DateTime(updated_at),
        }
    }
}
