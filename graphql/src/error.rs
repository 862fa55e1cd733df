//! GraphQL errors: every error a resolver returns carries `extensions.code`.
//!
//! - `BAD_USER_INPUT`: an argument is out of range or malformed (`first: 1000`, a bad cursor,
//!   a blank number, a list too long); when one input field is at fault, `extensions.field`
//!   names it (`requestNumber`);
//! - `RATE_LIMITED`: the account used up its inference allowance (200 per minute, shared with
//!   `/v2`); `extensions.retryAfter` holds the seconds to wait, also sent as `Retry-After`;
//! - `UNAUTHENTICATED`: the request carries no account (the auth middleware was bypassed);
//! - `INTERNAL`: the store failed. The cause is logged with `tracing`; the client only sees
//!   "internal error", never SQL or database details.

use async_graphql::{Context, Error, ErrorExtensions};
use teu_pipeline::infer::limit::RateLimited;
use teu_pipeline::model::Account;
use teu_pipeline::store::StoreError;

/// An error with the given message and `extensions.code`.
fn coded(message: impl Into<String>, code: &'static str) -> Error {
    Error::new(message).extend_with(|_, e| e.set("code", code))
}

/// An argument the client must fix (`extensions.code = "BAD_USER_INPUT"`).
pub(crate) fn bad_user_input(message: impl Into<String>) -> Error {
    coded(message, "BAD_USER_INPUT")
}

/// An input field the client must fix: `BAD_USER_INPUT` with `extensions.field`.
pub(crate) fn bad_field(field: &'static str, message: impl Into<String>) -> Error {
    Error::new(message).extend_with(|_, e| {
        e.set("code", "BAD_USER_INPUT");
        e.set("field", field);
    })
}

/// The inference allowance is used up: `RATE_LIMITED` with `extensions.retryAfter` (seconds).
/// The caller also sets the `Retry-After` HTTP header.
pub(crate) fn rate_limited(e: &RateLimited) -> Error {
    let retry_after = e.retry_after;
    Error::new(format!(
        "rate limit of {} inference requests per minute exceeded for this account; \
         retry after {retry_after} seconds",
        e.per_minute
    ))
    .extend_with(move |_, ext| {
        ext.set("code", "RATE_LIMITED");
        ext.set("retryAfter", retry_after);
    })
}

/// A store failure: logged in full, answered as a bare `INTERNAL` error.
pub(crate) fn internal(err: &StoreError) -> Error {
    tracing::error!(error = %err, "graphql: store query failed");
    internal_opaque()
}

/// The client-facing side of a store failure that was already logged (by a loader).
pub(crate) fn internal_opaque() -> Error {
    coded("internal error", "INTERNAL")
}

/// The account the request is scoped to (put in the request data by the HTTP handler).
pub(crate) fn account<'a>(ctx: &Context<'a>) -> Result<&'a Account, Error> {
    ctx.data_opt::<Account>()
        .ok_or_else(|| coded("authentication required", "UNAUTHENTICATED"))
}
