//! What a client changes on a shipment: `PATCH /shipments/{id}` (Terminal49 API reference
//! "Edit a shipment": `ref_numbers` and `tags`, each replacing the list it names; rules in
//! `teu_pipeline::shipment_edits`) and `PATCH /shipments/{id}/stop_tracking` /
//! `resume_tracking` (no body needed). Each answers 200 with the shipment document, 404 for an
//! unknown, malformed or other account's id, and 422 with `source.pointer` for a bad value.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::Extension;
use serde_json::Value;
use teu_pipeline::model::Account;
use teu_pipeline::shipment_edits::{parse_ref_numbers, parse_tag_list, ShipmentPatch};

use crate::base::Base;
use crate::error::ApiError;
use crate::routes::{path_id, shipment_document};
use crate::RestState;

/// The strings of the array at `pointer` of a request document: `None` when absent, an empty
/// list for null, 422 (with the pointer of the bad member) for anything but an array of
/// strings.
pub(crate) fn string_array(doc: &Value, pointer: &str) -> Result<Option<Vec<String>>, ApiError> {
    match doc.pointer(pointer) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(Vec::new())),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ApiError::invalid_attribute(&format!("{pointer}/{i}"), "must be a string.")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(ApiError::invalid_attribute(
            pointer,
            "must be an array of strings.",
        )),
    }
}

/// The patch a body asks for: `data.attributes.ref_numbers` and `data.attributes.tags`
/// (`shipment_tags`, the older name, is read when `tags` is absent); `data.type`, when given,
/// must be `shipment`.
fn patch_of(body: &[u8]) -> Result<ShipmentPatch, ApiError> {
    // Terminal49's schema for this body has no `data.type`: absent is fine, another is not.
    let doc = crate::error::request_document(body, "shipment", false)?;
    if !doc["data"]["attributes"].is_object() {
        return Err(ApiError::invalid_attribute(
            "/data/attributes",
            "data.attributes must be an object.",
        ));
    }
    let refs = string_array(&doc, "/data/attributes/ref_numbers")?;
    let (tags_pointer, tags) = match string_array(&doc, "/data/attributes/tags")? {
        Some(t) => ("/data/attributes/tags", Some(t)),
        None => (
            "/data/attributes/shipment_tags",
            string_array(&doc, "/data/attributes/shipment_tags")?,
        ),
    };
    Ok(ShipmentPatch {
        ref_numbers: refs
            .map(|r| parse_ref_numbers(&r))
            .transpose()
            .map_err(|e| {
                ApiError::invalid_attribute("/data/attributes/ref_numbers", format!("{e}."))
            })?,
        tags: tags
            .map(|t| parse_tag_list(&t))
            .transpose()
            .map_err(|e| ApiError::invalid_attribute(tags_pointer, format!("{e}.")))?,
    })
}

/// `PATCH /shipments/{id}`.
pub(crate) async fn patch_shipment(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    Path(raw): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let id = path_id(&raw, "Shipment")?;
    let patch = patch_of(&body)?;
    let shipment = state.store.patch_shipment(account.id, id, &patch).await?;
    answer(&state, &account, &base, &raw, shipment).await
}

/// `PATCH /shipments/{id}/stop_tracking`: `line_tracking_stopped_at` now, reason
/// `cancelled_by_user`; the tracking requests of the shipment emit
/// `tracking_request.tracking_stopped`.
pub(crate) async fn stop_tracking(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = path_id(&raw, "Shipment")?;
    let shipment = state.store.stop_tracking(account.id, id).await?;
    answer(&state, &account, &base, &raw, shipment).await
}

/// `PATCH /shipments/{id}/resume_tracking`: undoes the user's stop.
pub(crate) async fn resume_tracking(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = path_id(&raw, "Shipment")?;
    let shipment = state.store.resume_tracking(account.id, id).await?;
    answer(&state, &account, &base, &raw, shipment).await
}

/// The answer of an edit: the shipment's document, or 404 naming the id as given.
async fn answer(
    state: &RestState,
    account: &Account,
    base: &Base,
    raw: &str,
    shipment: Option<teu_pipeline::model::Shipment>,
) -> Result<Response, ApiError> {
    let shipment = shipment.ok_or_else(|| ApiError::not_found("Shipment", raw))?;
    shipment_document(state, account, base, shipment, false).await
}
