//! `POST /tracking_requests/infer_number` (interface.md: endpoint of that name, Limits).
//!
//! Body `{"number": "..."}`. Answers 200 with
//! `{"data": {"id": NORMALIZED, "type": "inferred_number", "attributes": {number, number_type,
//! validation, shipping_line}}}` for any string that is not blank, whatever the number (an
//! invalid number is reported in `validation`); 422 with `source.pointer` `/number` when the
//! member is missing, not a string or blank; 400 when the body is not a JSON object; 429 with
//! `Retry-After` beyond [`INFER_REQUESTS_PER_MINUTE`] per account.
//!
//! The scoring is `teu_pipeline::infer`, with the account's own history
//! (`Store::scac_history`) as evidence.

use axum::body::Bytes;
use axum::extract::State;
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::infer;
use teu_pipeline::model::Account;

use crate::error::ApiError;
use crate::RestState;

pub use teu_api::limit::{AccountLimiter, INFER_REQUESTS_PER_MINUTE};

/// The number in an infer request body, or the error to answer.
fn number_of(body: &[u8]) -> Result<String, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| ApiError::MalformedBody {
        detail: format!("The request body is not JSON: {e}."),
    })?;
    let object = value.as_object().ok_or_else(|| ApiError::MalformedBody {
        detail: "The request body must be a JSON object: {\"number\": \"...\"}.".into(),
    })?;
    match object.get("number") {
        None | Some(Value::Null) => Err(ApiError::invalid_attribute(
            "/number",
            "number is required: a container, bill of lading or booking number.",
        )),
        Some(Value::String(s)) if s.trim().is_empty() => Err(ApiError::invalid_attribute(
            "/number",
            "number must not be empty.",
        )),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ApiError::invalid_attribute(
            "/number",
            format!(
                "number must be a string, not {}.",
                match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::Array(_) => "an array",
                    _ => "an object",
                }
            ),
        )),
    }
}

/// `POST /tracking_requests/infer_number` (module documentation).
pub(crate) async fn infer_number(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    state.infer_limiter.check(account.id)?;
    let number = number_of(&body)?;
    let history = state.store.scac_history(account.id).await?;
    let result = infer::infer(&number, &history);
    Ok(Json(json!({
        "data": {
            "id": result.number,
            "type": "inferred_number",
            "attributes": result,
        }
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_errors_point_at_number() {
        for (body, status, pointer) in [
            (r#"{"number": ""}"#, 422, Some("/number")),
            (r#"{"number": "  "}"#, 422, Some("/number")),
            (r#"{"number": 42}"#, 422, Some("/number")),
            (r#"{}"#, 422, Some("/number")),
            (r#"[]"#, 400, None),
            (r#"nope"#, 400, None),
        ] {
            let e = number_of(body.as_bytes()).unwrap_err();
            assert_eq!(e.status().as_u16(), status, "{body}");
            let o = e.to_object();
            assert_eq!(
                o.source.and_then(|s| s.pointer).as_deref(),
                pointer,
                "{body}"
            );
        }
        assert_eq!(number_of(br#"{"number": "X"}"#).unwrap(), "X");
    }

    #[test]
    fn limiter_refusals_are_429_with_retry_after() {
        let limiter = AccountLimiter::per_minute(1);
        let a = uuid::Uuid::new_v4();
        limiter.check(a).unwrap();
        let e = ApiError::from(limiter.check(a).unwrap_err());
        assert_eq!(e.status().as_u16(), 429);
        match e {
            ApiError::RateLimited { retry_after, limit } => {
                assert!((1..=60).contains(&retry_after), "{retry_after}");
                assert_eq!(limit, "1 requests per minute");
            }
            other => panic!("{other:?}"),
        }
    }
}
