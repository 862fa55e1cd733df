//! GraphQL errors: every error a resolver returns carries `extensions.code`.
//!
//! - `BAD_USER_INPUT`: an argument is out of range or malformed (`first: 1000`, a bad cursor);
//! - `UNAUTHENTICATED`: the request carries no account (the auth middleware was bypassed);
//! - `FORBIDDEN`: the account lacks the Routing Data feature (`Container.route`);
//! - `INTERNAL`: the store failed. The cause is logged with `tracing`; the client only sees
//!   "internal error", never SQL or database details.

use async_graphql::{Context, Error, ErrorExtensions};
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

/// The account lacks a paid feature (`extensions.code = "FORBIDDEN"`).
pub(crate) fn forbidden(message: impl Into<String>) -> Error {
    coded(message, "FORBIDDEN")
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
