//! Authentication in front of `POST /graphql` (`teu_api::auth`, the rules of `/v2`).
//!
//! `GET /graphql` serves the GraphiQL page (no data) without a key; every other request needs
//! `Authorization: Token <API_KEY>`. A refused key is answered 401 with
//! `WWW-Authenticate: Token realm="teu"` and one error that both kinds of client read: the
//! JSON:API fields of `/v2` (`status`, `title`, `detail`, `code` `unauthorized`) and GraphQL's
//! `message` and `extensions.code` `UNAUTHENTICATED`. A store failure while checking the key is
//! a 503 `UNAVAILABLE` when the database is unavailable (`teu_api::failure`), else a 500
//! `INTERNAL`, in the same shape.

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use teu_api::auth::AuthError;
use teu_store::Store;

/// The middleware (`axum::middleware::from_fn_with_state(store, require_account)`): puts the
/// key's [`teu_pipeline::model::Account`] into the request extensions, or answers the error
/// described in the module documentation.
pub async fn require_account(State(store): State<Store>, mut req: Request, next: Next) -> Response {
    if req.method() == Method::GET {
        return next.run(req).await;
    }
    let header = req
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes());
    match teu_api::auth::account(&store, header).await {
        Ok(account) => {
            req.extensions_mut().insert(account);
            next.run(req).await
        }
        Err(AuthError::Store(e)) => {
            tracing::error!(error = %e, "graphql: checking an API key failed");
            if teu_api::failure::is_unavailable(&e) {
                refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "service_unavailable",
                    "UNAVAILABLE",
                    "The database is temporarily unavailable; retry the request later.",
                )
            } else {
                refusal(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal_error",
                    "INTERNAL",
                    "The server could not complete the request.",
                )
            }
        }
        Err(refused) => {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "UNAUTHENTICATED",
                &refused.to_string(),
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Token realm=\"teu\""),
            );
            response
        }
    }
}

/// One error in both shapes (module documentation).
fn refusal(status: StatusCode, code: &str, graphql_code: &str, detail: &str) -> Response {
    let body = json!({"errors": [{
        "status": status.as_str(),
        "title": status.canonical_reason().unwrap_or(""),
        "detail": detail,
        "code": code,
        "message": detail,
        "extensions": {"code": graphql_code},
    }]});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
