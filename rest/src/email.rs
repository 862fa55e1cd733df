//! `GET /email_submissions`, `GET /email_submissions/{id}` and `GET /document_schemas/{id}`
//! (interface.md: email_submission, document_schema).
//!
//! - `include` accepts `account`, `user`, `documents`, `documents.last_document_representation`;
//!   without an `include` parameter the default is `documents,documents.last_document_representation`
//!   (spec); `include=` (empty) includes nothing. `user` is accepted but teu has no users yet, so
//!   the relationship is null and nothing is included for it.
//! - Included `account` resources carry `company_name`; `document` resources carry `file_name`,
//!   `media_type`, `byte_size`, `sha256`, `created_at` and a `last_document_representation`
//!   relationship; `document_representation` resources carry `kind`, `media_type`, `byte_size`,
//!   `sha256`, `created_at` (teu's choice: the spec does not show their fields).
//! - Pagination, links and meta as on the other lists ([`crate::pagination`], [`crate::query`]).
//! - An unknown, malformed or other account's submission id is a 404 whose detail says the
//!   EmailSubmission could not be found; an unknown schema id a 404 saying the DocumentSchema
//!   with that id could not be found (`Couldn't find DocumentSchema with 'id'=…`, the wording of
//!   Terminal49's examples).
//!
//! Store calls per request: the page (or one submission), then at most one `documents_by_ids`
//! and one `document_representations_by_ids`, whatever the page size.

use std::collections::HashMap;

use axum::extract::{OriginalUri, Path, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::document_schemas::DocumentSchema;
use teu_pipeline::email::{Document, DocumentRepresentation, EmailSubmission};
use teu_pipeline::model::Account;
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;
use crate::pagination::{page_links, PageMeta};
use crate::query::{parse_list, parse_single, INCLUDE};
use crate::resources::timestamp;
use crate::RestState;

/// Relationship names `include` accepts on email submission endpoints.
pub(crate) const EMAIL_INCLUDES: &[&str] = &[
    "account",
    "user",
    "documents",
    "documents.last_document_representation",
];
/// What is included when the request has no `include` parameter (spec).
const DEFAULT_INCLUDES: &[&str] = &["documents", "documents.last_document_representation"];

/// Whether the query string names `include` at all (an empty value still counts).
fn has_include(query: Option<&str>) -> bool {
    form_urlencoded::parse(query.unwrap_or("").as_bytes()).any(|(k, _)| k == INCLUDE)
}

fn ts(t: &Option<chrono::DateTime<chrono::Utc>>) -> Value {
    t.as_ref()
        .map(|t| Value::String(timestamp(t)))
        .unwrap_or(Value::Null)
}

/// The email_submission resource object (interface.md: email_submission).
fn submission_value(e: &EmailSubmission, base: &Base) -> Value {
    json!({
        "id": e.id.to_string(),
        "type": "email_submission",
        "attributes": {
            "subject": e.subject,
            "body": e.body,
            "from": e.from,
            "to": e.to,
            "cc": e.cc,
            "sent_at": ts(&e.sent_at),
            "message_id": e.message_id,
            "in_reply_to": e.in_reply_to,
            "references": e.references,
            "content_type": e.content_type,
            "documents_count": e.documents_count,
            "created_at": timestamp(&e.created_at),
            "updated_at": timestamp(&e.updated_at),
        },
        "relationships": {
            "account": {"data": {"id": e.account_id.to_string(), "type": "account"}},
            "user": {"data": e.user_id.map(|u| json!({"id": u.to_string(), "type": "user"}))},
            "documents": {"data": e.document_ids.iter()
                .map(|d| json!({"id": d.to_string(), "type": "document"})).collect::<Vec<_>>()},
        },
        "links": {"self": base.url(&format!("/email_submissions/{}", e.id))},
    })
}

fn document_value(d: &Document) -> Value {
    json!({
        "id": d.id.to_string(),
        "type": "document",
        "attributes": {
            "file_name": d.file_name,
            "media_type": d.media_type,
            "byte_size": d.byte_size,
            "sha256": d.sha256,
            "created_at": timestamp(&d.created_at),
        },
        "relationships": {
            "last_document_representation": {"data": {
                "id": d.last_document_representation_id.to_string(),
                "type": "document_representation",
            }},
        },
    })
}

fn representation_value(r: &DocumentRepresentation) -> Value {
    json!({
        "id": r.id.to_string(),
        "type": "document_representation",
        "attributes": {
            "kind": r.kind,
            "media_type": r.media_type,
            "byte_size": r.byte_size,
            "sha256": r.sha256,
            "created_at": timestamp(&r.created_at),
        },
        "relationships": {
            "document": {"data": {"id": r.document_id.to_string(), "type": "document"}},
        },
    })
}

/// The `included` array for `submissions`: the account, then documents, then their
/// representations, each once, in order of first reference.
async fn included(
    state: &RestState,
    account: &Account,
    submissions: &[EmailSubmission],
    include: &[&str],
) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::new();
    if include.contains(&"account") && !submissions.is_empty() {
        out.push(json!({
            "id": account.id.to_string(),
            "type": "account",
            "attributes": {"company_name": account.company_name},
        }));
    }
    let want_docs = include.contains(&"documents");
    let want_reps = include.contains(&"documents.last_document_representation");
    if !(want_docs || want_reps) {
        return Ok(out);
    }
    let mut ids: Vec<Uuid> = Vec::new();
    for s in submissions {
        for d in &s.document_ids {
            if !ids.contains(d) {
                ids.push(*d);
            }
        }
    }
    if ids.is_empty() {
        return Ok(out);
    }
    let mut docs: HashMap<Uuid, Document> = state
        .store
        .documents_by_ids(account.id, &ids)
        .await?
        .into_iter()
        .map(|d| (d.id, d))
        .collect();
    let ordered: Vec<Document> = ids.iter().filter_map(|id| docs.remove(id)).collect();
    if want_docs {
        out.extend(ordered.iter().map(document_value));
    }
    if want_reps {
        let rep_ids: Vec<Uuid> = ordered
            .iter()
            .map(|d| d.last_document_representation_id)
            .collect();
        let mut reps: HashMap<Uuid, DocumentRepresentation> = state
            .store
            .document_representations_by_ids(account.id, &rep_ids)
            .await?
            .into_iter()
            .map(|r| (r.id, r))
            .collect();
        out.extend(
            rep_ids
                .iter()
                .filter_map(|id| reps.remove(id))
                .map(|r| representation_value(&r)),
        );
    }
    Ok(out)
}

/// `GET /email_submissions`: the account's email submissions, newest first.
pub(crate) async fn list_email_submissions(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Response, ApiError> {
    let mut q = parse_list(uri.query(), EMAIL_INCLUDES)?;
    if !has_include(uri.query()) {
        q.include = DEFAULT_INCLUDES.to_vec();
    }
    let (submissions, total) = state
        .store
        .list_email_submissions(account.id, q.page.offset(), q.page.limit())
        .await?;
    let data: Vec<Value> = submissions
        .iter()
        .map(|s| submission_value(s, &base))
        .collect();
    let included = included(&state, &account, &submissions, &q.include).await?;
    let total = u64::try_from(total).unwrap_or(0);
    Ok(Json(json!({
        "data": data,
        "included": included,
        "links": page_links(&base.url("/email_submissions"), &q.link_suffix(), q.page, total),
        "meta": PageMeta { size: q.page.size, total },
    }))
    .into_response())
}

/// `GET /email_submissions/{id}`: one of the account's email submissions, else 404.
pub(crate) async fn get_email_submission(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let raw = id.map(|Path(id)| id).unwrap_or_default();
    let mut include = parse_single(uri.query(), EMAIL_INCLUDES)?;
    if !has_include(uri.query()) {
        include = DEFAULT_INCLUDES.to_vec();
    }
    let not_found = || ApiError::not_found("EmailSubmission", &raw);
    let id = Uuid::parse_str(&raw).map_err(|_| not_found())?;
    let submission = state
        .store
        .email_submission(account.id, id)
        .await?
        .ok_or_else(not_found)?;
    let included = included(
        &state,
        &account,
        std::slice::from_ref(&submission),
        &include,
    )
    .await?;
    Ok(Json(json!({
        "data": submission_value(&submission, &base),
        "included": included,
        "links": {"self": base.url(&format!("/email_submissions/{id}"))},
    }))
    .into_response())
}

/// The document_schema resource object (interface.md: document_schema).
fn schema_value(s: &DocumentSchema, self_link: String) -> Value {
    json!({
        "id": s.full_version,
        "type": "document_schema",
        "attributes": {
            "document_type": s.document_type,
            "label": s.label,
            "schema_version": s.schema_version,
            "full_version": s.full_version,
            "current": s.current,
            "draft": s.draft,
            "active_at": ts(&s.active_at),
            "schema_format": s.schema_format,
            "description": s.description,
            "schema_payload": s.schema_payload,
            "created_at": timestamp(&s.created_at),
            "updated_at": timestamp(&s.updated_at),
        },
        "links": {"self": self_link},
    })
}

/// `GET /document_schemas/{id}`: one schema by full version (`bill_of_lading@1.0`), else 404.
/// Schemas are shared by all accounts.
pub(crate) async fn get_document_schema(
    State(state): State<RestState>,
    base: Base,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let raw = id.map(|Path(id)| id).unwrap_or_default();
    let schema = state
        .store
        .document_schema(&raw)
        .await?
        .ok_or_else(|| ApiError::not_found("DocumentSchema", &raw))?;
    let self_link = base.url(&format!("/document_schemas/{}", schema.full_version));
    Ok(Json(json!({
        "data": schema_value(&schema, self_link.clone()),
        "links": {"self": self_link},
    }))
    .into_response())
}
