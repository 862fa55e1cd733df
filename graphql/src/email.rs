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
//! The object types (`EmailSubmission`, `Document`, `DocumentRepresentation`,
//! `DocumentSchema`) are in `types::email`.

use async_graphql::{Context, Object, ID};

use crate::context::{parse_id, store};
use crate::error;
use crate::paging::{connection, page, Page};
use crate::types::{DocumentSchema, EmailSubmission};

/// A page of email submissions.
type EmailSubmissionConnection = Page<EmailSubmission>;

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
        Ok(connection(offset, items, total, EmailSubmission::from))
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
        Ok(found.map(EmailSubmission::from))
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
        Ok(found.map(DocumentSchema::from))
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
        Ok(found.into_iter().map(DocumentSchema::from).collect())
    }
}
