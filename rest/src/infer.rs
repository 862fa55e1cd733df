//! `POST /tracking_requests/infer_number` (spec: endpoint of that name, Limits).
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

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::{Extension, Json};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::{json, Value};
use teu_pipeline::infer;
use teu_pipeline::model::Account;
use uuid::Uuid;

use crate::error::ApiError;
use crate::RestState;

/// Requests per minute and account on the infer operation (spec: Limits).
pub const INFER_REQUESTS_PER_MINUTE: u32 = 200;

/// A per-account limiter (GCRA, the `governor` crate): bursts of up to the per-minute
/// allowance, refilled evenly over the minute.
#[derive(Clone)]
pub struct AccountLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<Uuid>>,
    per_minute: u32,
}

impl AccountLimiter {
    /// A limiter allowing `per_minute` requests per minute per account (at least 1).
    pub fn per_minute(per_minute: u32) -> Self {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        AccountLimiter {
            limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(n))),
            per_minute: n.get(),
        }
    }

    /// Counts one request of `account`.
    ///
    /// # Errors
    ///
    /// [`ApiError::RateLimited`] with the whole seconds to wait (at least 1) when the
    /// allowance is used up.
    pub fn check(&self, account: Uuid) -> Result<(), ApiError> {
        self.limiter.check_key(&account).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::RateLimited {
                retry_after: (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1),
                limit: format!("{} requests per minute", self.per_minute),
            }
        })
    }
}

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
    fn limiter_counts_per_account() {
        let limiter = AccountLimiter::per_minute(3);
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        for _ in 0..3 {
            limiter.check(a).unwrap();
        }
        match limiter.check(a) {
            Err(ApiError::RateLimited { retry_after, .. }) => {
                assert!((1..=20).contains(&retry_after), "{retry_after}")
            }
            other => panic!("{other:?}"),
        }
        limiter.check(b).unwrap();
    }
}
