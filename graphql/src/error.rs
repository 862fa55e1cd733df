//! GraphQL errors: every error a resolver returns is a [`GqlError`], turned into an
//! `async_graphql::Error` with `extensions.code` in one place ([`GqlError::into_graphql`]).
//! Never convert one with `.into()` or `?`: async-graphql's blanket `From<Display>` would
//! drop the code; the helpers below call `into_graphql`.
//!
//! | code | when | extra extensions |
//! |---|---|---|
//! | `UNAUTHENTICATED` | the request carries no account (the auth middleware was bypassed) | |
//! | `FORBIDDEN` | the account lacks the feature the field needs | |
//! | `NOT_FOUND` | a mutation names a record the account does not have (lookups by id answer null instead) | |
//! | `BAD_USER_INPUT` | an argument is out of range or malformed (`first: 1000`, a bad cursor, a blank number, a list too long) | `field` when one input field is at fault |
//! | `RATE_LIMITED` | the account used up its inference allowance (200 per minute, shared with `/v2`) | `retryAfter` (seconds), also sent as `Retry-After` |
//! | `PERSISTED_QUERY_NOT_FOUND` | an automatic persisted query names a hash the server does not hold (the message is `PersistedQueryNotFound`, as Apollo clients expect); send the hash with the query text once | |
//! | `TIMEOUT` | the query ran longer than the server's limit (HTTP 503) | |
//! | `UNAVAILABLE` | the database is unavailable for now (no connection, busy, shutting down: `teu_api::failure`, the failures `/v2` answers 503); retry later | |
//! | `INTERNAL` | the store failed otherwise; the cause is logged with `tracing`, the client only sees "internal error" | |

use async_graphql::{Context, Error, ErrorExtensions};
use teu_api::limit::RateLimited;
use teu_pipeline::model::Account;
use teu_store::{StoreError, WebhookError};

/// Every error the GraphQL API answers, with its `extensions.code`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GqlError {
    /// No account in the request.
    #[error("authentication required")]
    Unauthenticated,
    /// The account may not use this field.
    #[error("{0}")]
    Forbidden(String),
    /// A mutation names a record the account does not have.
    #[error("{0}")]
    NotFound(String),
    /// An argument the client must fix; `field` names the input field at fault.
    #[error("{message}")]
    BadUserInput {
        /// What is wrong.
        message: String,
        /// The input field at fault, when one is.
        field: Option<&'static str>,
    },
    /// The inference allowance is used up.
    #[error(
        "rate limit of {per_minute} inference requests per minute exceeded for this account; \
         retry after {retry_after} seconds"
    )]
    RateLimited {
        /// The allowance.
        per_minute: u32,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// An automatic persisted query sent by hash alone, and the server does not hold that
    /// hash (Apollo's protocol: the client then sends the hash with the query text).
    #[error("PersistedQueryNotFound")]
    PersistedQueryNotFound,
    /// The query ran out of time.
    #[error("the query took longer than {0} ms and was cancelled")]
    Timeout(u128),
    /// The database is unavailable for now (already logged).
    #[error("the database is temporarily unavailable; retry the request later")]
    Unavailable,
    /// A store failure (already logged).
    #[error("internal error")]
    Internal,
}

impl GqlError {
    /// The `extensions.code` of this error.
    pub fn code(&self) -> &'static str {
        match self {
            GqlError::Unauthenticated => "UNAUTHENTICATED",
            GqlError::Forbidden(_) => "FORBIDDEN",
            GqlError::NotFound(_) => "NOT_FOUND",
            GqlError::BadUserInput { .. } => "BAD_USER_INPUT",
            GqlError::RateLimited { .. } => "RATE_LIMITED",
            GqlError::PersistedQueryNotFound => "PERSISTED_QUERY_NOT_FOUND",
            GqlError::Timeout(_) => "TIMEOUT",
            GqlError::Unavailable => "UNAVAILABLE",
            GqlError::Internal => "INTERNAL",
        }
    }

    /// The GraphQL error: the message and `extensions.code` (plus `field` / `retryAfter`).
    pub fn into_graphql(self) -> Error {
        let code = self.code();
        let field = match &self {
            GqlError::BadUserInput { field, .. } => *field,
            _ => None,
        };
        let retry_after = match &self {
            GqlError::RateLimited { retry_after, .. } => Some(*retry_after),
            _ => None,
        };
        Error::new(self.to_string()).extend_with(move |_, e| {
            e.set("code", code);
            if let Some(field) = field {
                e.set("field", field);
            }
            if let Some(seconds) = retry_after {
                e.set("retryAfter", seconds);
            }
        })
    }
}

/// An argument the client must fix (`extensions.code = "BAD_USER_INPUT"`).
pub(crate) fn bad_user_input(message: impl Into<String>) -> Error {
    GqlError::BadUserInput {
        message: message.into(),
        field: None,
    }
    .into_graphql()
}

/// An input field the client must fix: `BAD_USER_INPUT` with `extensions.field`.
pub(crate) fn bad_field(field: &'static str, message: impl Into<String>) -> Error {
    GqlError::BadUserInput {
        message: message.into(),
        field: Some(field),
    }
    .into_graphql()
}

/// A record the account does not have (`NOT_FOUND`).
pub(crate) fn not_found(message: impl Into<String>) -> Error {
    GqlError::NotFound(message.into()).into_graphql()
}

/// The inference allowance is used up: `RATE_LIMITED` with `extensions.retryAfter` (seconds).
/// The caller also sets the `Retry-After` HTTP header.
pub(crate) fn rate_limited(e: &RateLimited) -> Error {
    GqlError::RateLimited {
        per_minute: e.per_minute,
        retry_after: e.retry_after,
    }
    .into_graphql()
}

/// The account lacks a paid feature such as Routing Data (`FORBIDDEN`).
pub(crate) fn forbidden(message: impl Into<String>) -> Error {
    GqlError::Forbidden(message.into()).into_graphql()
}

/// A store failure: logged in full, answered as `UNAVAILABLE` when the database is unavailable
/// for now (`teu_api::failure::is_unavailable`, where `/v2` answers 503), else as a bare
/// `INTERNAL` error; a refused tag list is the client's to fix (`BAD_USER_INPUT`, field `tags`).
pub(crate) fn internal(err: &StoreError) -> Error {
    if let StoreError::Tags(e) = err {
        return bad_field("tags", e.to_string());
    }
    tracing::error!(error = %err, "graphql: store query failed");
    if teu_api::failure::is_unavailable(err) {
        return GqlError::Unavailable.into_graphql();
    }
    internal_opaque()
}

/// A refused webhook input (`BAD_USER_INPUT` with `extensions.field` the input field at fault:
/// `url`, `events` or `headers`; the message names the list item, `events[1]`) or a store
/// failure (`INTERNAL`). The rules are the pipeline's ([`WebhookAttributes::check`]), the same
/// as `/v2/webhooks`.
///
/// [`WebhookAttributes::check`]: teu_pipeline::webhooks::WebhookAttributes::check
pub(crate) fn webhook(err: WebhookError) -> Error {
    match err {
        WebhookError::Invalid(invalid) => {
            // `events/1` is `input.events[1]`, `headers/0/name` is `input.headers[0].name`.
            let mut path = String::from("input");
            for (i, part) in invalid.attribute.split('/').enumerate() {
                if i > 0 && part.bytes().all(|b| b.is_ascii_digit()) {
                    path.push_str(&format!("[{part}]"));
                } else {
                    path.push('.');
                    path.push_str(part);
                }
            }
            let field = match invalid.attribute.split('/').next() {
                Some("url") => Some("url"),
                Some("active") => Some("active"),
                Some("events") => Some("events"),
                Some("headers") => Some("headers"),
                _ => None,
            };
            GqlError::BadUserInput {
                message: format!("{path}: {}", invalid.detail),
                field,
            }
            .into_graphql()
        }
        WebhookError::Store(e) => internal(&e),
    }
}

/// The client-facing side of a store failure that was already logged (by a loader).
pub(crate) fn internal_opaque() -> Error {
    GqlError::Internal.into_graphql()
}

/// The account the request is scoped to (put in the request data by the HTTP handler).
pub(crate) fn account<'a>(ctx: &Context<'a>) -> Result<&'a Account, Error> {
    ctx.data_opt::<Account>()
        .ok_or_else(|| GqlError::Unauthenticated.into_graphql())
}

#[cfg(test)]
mod tests {
    use super::*;
    use teu_pipeline::webhooks::{check_events, check_headers, WebhookHeader};

    /// The extension `name` of `e` as text.
    fn extension(e: &Error, name: &str) -> Option<String> {
        match e.extensions.as_ref()?.get(name)? {
            async_graphql::Value::String(s) => Some(s.clone()),
            _ => None,
        }
    }

    #[test]
    fn a_refused_webhook_input_names_its_field_and_item() {
        let events = vec![
            "container.updated".to_string(),
            "container.sunk".to_string(),
        ];
        let e = webhook(check_events(&events).unwrap_err().into());
        assert!(e.message.starts_with("input.events[1]: "), "{}", e.message);
        assert_eq!(extension(&e, "field").as_deref(), Some("events"));
        assert_eq!(extension(&e, "code").as_deref(), Some("BAD_USER_INPUT"));

        let headers = vec![WebhookHeader {
            name: "Host".into(),
            value: "x".into(),
        }];
        let e = webhook(check_headers(&headers).unwrap_err().into());
        assert!(
            e.message.starts_with("input.headers[0].name: "),
            "{}",
            e.message
        );
        assert_eq!(extension(&e, "field").as_deref(), Some("headers"));

        let e = webhook(check_events(&[]).unwrap_err().into());
        assert!(e.message.starts_with("input.events: "), "{}", e.message);
    }
}
