//! Carrier inference over GraphQL: `inferNumber(number)` and `inferNumbers(numbers)`, with the
//! values of `POST /v2/tracking_requests/infer_number` (interface.md: that endpoint).
//!
//! - `inferNumber` scores one number with `teu_pipeline::infer::infer`; a blank number is a
//!   `BAD_USER_INPUT` error (`extensions.field` `number`), as `/v2` answers 422. Any other
//!   number gets a result, an invalid one with `validation.reason`.
//! - `inferNumbers` scores a list with the pipeline's batch path
//!   (`teu_pipeline::infer::batch::infer_many`): one result per input, in input order, each
//!   distinct number scored once, a malformed or blank entry reported in its own result. At most
//!   [`MAX_BATCH`] numbers; more is `BAD_USER_INPUT`.
//! - Both use the account's own history as evidence (`Store::scac_history`), like `/v2`.
//!
//! **Rate limit**: the account's allowance of 200 inference requests per minute is shared with
//! `/v2` (one `AccountLimiter` in the schema data and the REST state). Each `inferNumber` or
//! `inferNumbers` field executed counts as **one request**, whatever the length of the list:
//! the limit is on requests (interface.md: Limits), the work of one is bounded by [`MAX_BATCH`], and
//! the cost of a request is dominated by its history query, not by scoring (millions of
//! numbers per second). Aliases count one each. Beyond the allowance the field fails with
//! `RATE_LIMITED` (`extensions.retryAfter`, and a `Retry-After` header on the response).

use async_graphql::{Context, Enum, Object, SimpleObject};
use teu_api::limit::AccountLimiter;
use teu_pipeline::infer::{self, batch, Scorer};

use crate::context::store;
use crate::error;

/// Most numbers one `inferNumbers` call accepts.
pub const MAX_BATCH: usize = 10_000;

/// Kind of number (`/v2` `number_type`; also a tracking request's `requestType`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "infer::NumberType")]
pub enum NumberType {
    /// `container`: an ISO 6346 container number.
    Container,
    /// `bill_of_lading`: a bill of lading number.
    BillOfLading,
    /// `booking`: a carrier booking number.
    Booking,
}

/// What `validation.type` says the number identifies.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationType {
    /// `container`: a container number.
    Container,
    /// `shipment`: a bill of lading or booking number.
    Shipment,
}

/// Classification of one result (`/v2` `shipping_line.decision`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "infer::Decision")]
pub enum Decision {
    /// `auto_select`: confidence ≥ 0.95.
    AutoSelect,
    /// `needs_confirmation`: confidence from 0.70 to below 0.95.
    NeedsConfirmation,
    /// `no_prediction`: below 0.70, or no candidate.
    NoPrediction,
}

/// The result of inferring one number: its kind, validity and shipping line (the
/// `data.attributes` of `/v2` `infer_number`).
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct InferredNumber {
    /// The number as teu reads it: upper case, without spaces, dashes, dots and slashes.
    number: String,
    /// Container, bill of lading or booking.
    number_type: NumberType,
    /// Validity of the number's format.
    validation: Validation,
    /// The shipping line prediction.
    shipping_line: ShippingLine,
}

impl From<infer::Inference> for InferredNumber {
    /// The GraphQL result of an inference.
    fn from(i: infer::Inference) -> Self {
        let infer::Inference {
            number,
            number_type,
            validation,
            shipping_line,
        } = i;
        InferredNumber {
            number,
            number_type: number_type.into(),
            validation: validation.into(),
            shipping_line: shipping_line.into(),
        }
    }
}

/// Validity of a number's format (`/v2` `validation`).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    /// `true` valid format, `false` invalid, null unknown (bookings: each line has its own).
    is_valid: Option<bool>,
    /// `CONTAINER` for container numbers, `SHIPMENT` for bills of lading and bookings.
    #[graphql(name = "type")]
    kind: ValidationType,
    /// For containers, the ISO 6346 check digit result; false for other numbers.
    check_digit_passed: bool,
    /// Why the number is invalid; null when it is valid or unknown.
    reason: Option<String>,
}

impl From<infer::Validation> for Validation {
    /// The GraphQL validity of an inference's: `kind` `container` is `CONTAINER`, anything
    /// else (`shipment`) `SHIPMENT`.
    fn from(v: infer::Validation) -> Self {
        let infer::Validation {
            is_valid,
            kind,
            check_digit_passed,
            reason,
        } = v;
        Validation {
            is_valid,
            kind: if kind == "container" {
                ValidationType::Container
            } else {
                ValidationType::Shipment
            },
            check_digit_passed,
            reason,
        }
    }
}

/// The shipping line prediction of a number (`/v2` `shipping_line`).
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct ShippingLine {
    /// What to do with the top candidate.
    decision: Decision,
    /// The top candidate; null when the decision is `NO_PREDICTION`.
    selected: Option<Candidate>,
    /// Every plausible line, highest confidence first (ties by SCAC).
    candidates: Vec<Candidate>,
}

impl From<infer::ShippingLine> for ShippingLine {
    /// The GraphQL prediction of an inference's.
    fn from(l: infer::ShippingLine) -> Self {
        let infer::ShippingLine {
            decision,
            selected,
            candidates,
        } = l;
        ShippingLine {
            decision: decision.into(),
            selected: selected.map(Candidate::from),
            candidates: candidates.into_iter().map(Candidate::from).collect(),
        }
    }
}

/// One possible shipping line for a number.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The line's SCAC, e.g. `MSCU`.
    scac: String,
    /// The line's name, or the SCAC when the line is not in the reference list.
    name: String,
    /// Confidence in [0, 1], 3 decimals.
    confidence: f64,
}

impl From<infer::Candidate> for Candidate {
    /// The GraphQL candidate of an inference's.
    fn from(c: infer::Candidate) -> Self {
        let infer::Candidate {
            scac,
            name,
            confidence,
        } = c;
        Candidate {
            scac,
            name,
            confidence,
        }
    }
}

/// Counts one inference request of the request's account against the shared allowance.
fn count_request(ctx: &Context<'_>, account: uuid::Uuid) -> async_graphql::Result<()> {
    let limiter = ctx
        .data_opt::<AccountLimiter>()
        .ok_or_else(error::internal_opaque)?;
    limiter.check(account).map_err(|e| {
        ctx.insert_http_header("Retry-After", e.retry_after.to_string());
        error::rate_limited(&e)
    })
}

/// The carrier inference part of [`crate::Query`].
#[derive(Default)]
pub struct InferenceQuery;

/// Carrier inference: which kind of number and which shipping line.
#[Object]
impl InferenceQuery {
    /// Infers the kind, validity and shipping line of one number (a container, bill of lading
    /// or booking number), with the account's history as evidence. Counts one request of the
    /// account's 200 inference requests per minute (shared with `/v2`). A blank number is a
    /// `BAD_USER_INPUT` error.
    async fn infer_number(
        &self,
        ctx: &Context<'_>,
        number: String,
    ) -> async_graphql::Result<InferredNumber> {
        let account = error::account(ctx)?;
        count_request(ctx, account.id)?;
        if number.trim().is_empty() {
            return Err(error::bad_field("number", "number must not be empty"));
        }
        let history = store(ctx)?
            .scac_history(account.id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(InferredNumber::from(infer::infer(&number, &history)))
    }

    /// Infers every number of a list (at most 10,000): one result per input, in input order; a
    /// malformed or blank entry gets its own result with `validation.reason`. Counts one
    /// request of the account's inference allowance, whatever the list's length.
    async fn infer_numbers(
        &self,
        ctx: &Context<'_>,
        numbers: Vec<String>,
    ) -> async_graphql::Result<Vec<InferredNumber>> {
        let account = error::account(ctx)?;
        count_request(ctx, account.id)?;
        if numbers.len() > MAX_BATCH {
            return Err(error::bad_field(
                "numbers",
                format!(
                    "numbers may hold at most {MAX_BATCH} numbers, got {}",
                    numbers.len()
                ),
            ));
        }
        if numbers.is_empty() {
            return Ok(Vec::new());
        }
        let history = store(ctx)?
            .scac_history(account.id)
            .await
            .map_err(|e| error::internal(&e))?;
        let refs: Vec<&str> = numbers.iter().map(String::as_str).collect();
        Ok(batch::infer_many(Scorer::bundled(), &refs, &history)
            .into_iter()
            .map(InferredNumber::from)
            .collect())
    }
}
