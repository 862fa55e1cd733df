//! JSON:API error documents (interface.md: "Errors").
//!
//! Every failure of the `/v2` layer is an [`ApiError`], turned into a response in exactly one
//! place ([`ApiError`]'s `IntoResponse`). The body is always
//!
//! ```json
//! {"errors":[{"status":"400","title":"Bad Request","detail":"...","code":"invalid_parameter",
//!             "source":{"parameter":"page[size]"}}]}
//! ```
//!
//! with `Content-Type: application/json`. `status` is the HTTP status as text (interface.md: Errors);
//! `source` is present only when a query parameter is at fault. The spec leaves the values of
//! `code` open ("not shown"); teu uses the fixed snake_case values listed on each variant.
//!
//! Store failures are logged with `tracing::error!` and answered with a generic detail: SQL,
//! table names or connection strings never reach the client.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use teu_store::StoreError;

/// One item of a JSON:API `errors` array (interface.md: Errors). Absent optional members are omitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorObject {
    /// The HTTP status code as text, e.g. `"404"`.
    pub status: String,
    /// Short, fixed summary: the HTTP reason phrase (`Not Found`, `Bad Request`, ...).
    pub title: String,
    /// Human-readable explanation of this occurrence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Machine-readable snake_case code (teu's own values; the spec does not list any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What in the request caused the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<ErrorSource>,
}

/// `source` of an [`ErrorObject`]: the query parameter (`parameter`) or the JSON pointer into
/// the request document (`pointer`) at fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorSource {
    /// The query parameter at fault, e.g. `page[size]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// JSON pointer into the request document (unused by the GET routes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

/// A JSON:API error document: `{"errors": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorDocument {
    /// The errors; teu always sends exactly one.
    pub errors: Vec<ErrorObject>,
}

/// A response with one JSON:API error: `{"errors":[{"status","title","detail"}]}`.
///
/// For other crates (GraphQL, the binary's fallbacks) that need the same error shape without an
/// [`ApiError`]; `status` is also written into the body as text.
pub fn error_response(status: StatusCode, title: &str, detail: &str) -> Response {
    document_response(
        status,
        ErrorObject {
            status: status.as_u16().to_string(),
            title: title.to_string(),
            detail: Some(detail.to_string()),
            code: None,
            source: None,
        },
    )
}

/// A request body read as a JSON:API document whose `data.type` is `kind`: 400
/// `malformed_body` when it is not JSON or not an object, 422 at `/data/type` when the type
/// differs, or is absent while `type_required`.
///
/// # Errors
///
/// As above, with the JSON parser's message (line and column) in the detail.
pub fn request_document(
    body: &[u8],
    kind: &str,
    type_required: bool,
) -> Result<serde_json::Value, ApiError> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| ApiError::MalformedBody {
            detail: format!("The request body is not JSON: {e}."),
        })?;
    if !value.is_object() {
        return Err(ApiError::MalformedBody {
            detail: "The request body must be a JSON:API document object.".into(),
        });
    }
    let given = &value["data"]["type"];
    if given != kind && (type_required || !given.is_null()) {
        return Err(ApiError::invalid_attribute(
            "/data/type",
            format!("data.type must be \"{kind}\"."),
        ));
    }
    Ok(value)
}

/// Largest request body `/v2` accepts, in bytes (1 MiB). Every body teu takes (an inferred
/// number, a tracking request) is a few hundred bytes; a larger one is refused with 413 before
/// it is read further.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Middleware that gives every error response of the wrapped routes the JSON:API shape: a 4xx or
/// 5xx response that is not already JSON (axum's own rejections of a body that is too large, not
/// UTF-8 or unreadable, of a malformed path or query) becomes `{"errors":[...]}` with the same
/// status and the rejection's text as `detail`. Responses teu built itself pass unchanged.
pub async fn json_api_errors(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let title = status.canonical_reason().unwrap_or("Error");
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        return error_response(
            status,
            title,
            &format!("The request body is larger than the limit of {MAX_BODY_BYTES} bytes."),
        );
    }
    // Rejection texts are short; anything longer is cut rather than buffered whole.
    let text = match axum::body::to_bytes(resp.into_body(), 4096).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(_) => String::new(),
    };
    let detail = if text.is_empty() {
        title.to_string()
    } else {
        text
    };
    error_response(status, title, &detail)
}

fn document_response(status: StatusCode, error: ErrorObject) -> Response {
    (
        status,
        Json(ErrorDocument {
            errors: vec![error],
        }),
    )
        .into_response()
}

/// Everything a `/v2` request can fail with. Each variant maps to one status:
///
/// | variant | status | `code` |
/// |---|---|---|
/// | [`ApiError::Unauthorized`] | 401 (with `WWW-Authenticate: Token`) | `unauthorized` |
/// | [`ApiError::InvalidParameter`] | 400, `source.parameter` set | `invalid_parameter` |
/// | [`ApiError::UnsupportedParameter`] | 400, `source.parameter` set | `unsupported_parameter` |
/// | [`ApiError::Forbidden`] | 403 | `routing_data_required` |
/// | [`ApiError::NotFound`] | 404 | `not_found` |
/// | [`ApiError::MethodNotAllowed`] | 405 | `method_not_allowed` |
/// | [`ApiError::MalformedBody`] | 400 | `malformed_body` |
/// | [`ApiError::InvalidAttribute`] | 422, `source.pointer` set | `invalid_attribute` |
/// | [`ApiError::RateLimited`] | 429 (with `Retry-After` seconds) | `rate_limited` |
/// | [`ApiError::Store`], database unreachable / pool exhausted | 503 | `service_unavailable` |
/// | [`ApiError::Store`], anything else | 500 | `internal_error` |
///
/// The spec does not show the status for missing credentials (Authentication, rule 3); teu
/// answers 401. Another account's resource is 404, never 403, so ids cannot be probed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Missing, malformed or unknown API key.
    #[error("unauthorized: {detail}")]
    Unauthorized {
        /// What is wrong with the credentials.
        detail: String,
    },
    /// A query parameter has a value teu cannot accept (not an integer, out of range, unknown
    /// include, given twice).
    #[error("invalid query parameter {parameter}: {detail}")]
    InvalidParameter {
        /// The parameter as written in the query, e.g. `page[size]`.
        parameter: String,
        /// What is wrong with its value.
        detail: String,
    },
    /// A JSON:API query parameter family teu does not implement (`sort`, `filter[...]`):
    /// JSON:API requires a 400 rather than silently ignoring it.
    #[error("unsupported query parameter {parameter}: {detail}")]
    UnsupportedParameter {
        /// The parameter as written in the query, e.g. `filter[status]`.
        parameter: String,
        /// Why it is refused.
        detail: String,
    },
    /// The account lacks the paid feature the resource belongs to (Routing Data for
    /// `map_geojson`, spec: GET /containers/{id}/map_geojson).
    #[error("forbidden: {detail}")]
    Forbidden {
        /// Which feature is missing and how to get it.
        detail: String,
    },
    /// No such resource for this account (including malformed ids and other accounts' ids).
    #[error("not found: {detail}")]
    NotFound {
        /// Which resource could not be found.
        detail: String,
    },
    /// The path exists but not for this method.
    #[error("method {method} not allowed")]
    MethodNotAllowed {
        /// The request's method.
        method: String,
    },
    /// The request body is not a JSON document of the expected kind (not JSON, not an object).
    #[error("malformed body: {detail}")]
    MalformedBody {
        /// What is wrong with the body.
        detail: String,
    },
    /// A member of the request document is missing or has a value teu cannot accept.
    #[error("invalid attribute {pointer}: {detail}")]
    InvalidAttribute {
        /// JSON pointer to the member at fault, e.g. `/number` or `/data/attributes/scac`.
        pointer: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The account has used up its request allowance for this operation (interface.md: Limits).
    #[error("rate limit exceeded; retry after {retry_after} s")]
    RateLimited {
        /// Whole seconds until a request will be accepted again (at least 1); sent as
        /// `Retry-After`.
        retry_after: u64,
        /// The allowance, for the detail text: `200 requests per minute`.
        limit: String,
    },
    /// The store failed; see [`is_unavailable`] for which failures are 503.
    #[error("store: {0}")]
    Store(#[from] StoreError),
}

impl ApiError {
    /// Shorthand for [`ApiError::InvalidParameter`].
    pub fn invalid(parameter: &str, detail: impl Into<String>) -> Self {
        ApiError::InvalidParameter {
            parameter: parameter.to_string(),
            detail: detail.into(),
        }
    }

    /// Shorthand for [`ApiError::InvalidAttribute`].
    pub fn invalid_attribute(pointer: &str, detail: impl Into<String>) -> Self {
        ApiError::InvalidAttribute {
            pointer: pointer.to_string(),
            detail: detail.into(),
        }
    }

    /// Shorthand for [`ApiError::NotFound`] worded as Terminal49's documented examples
    /// (`Couldn't find DocumentSchema with 'id'=unknown@2026-03-23`): "Couldn't find {kind} with
    /// 'id'={id}" (`kind` is the model name, e.g. `Container`, `EmailSubmission`).
    pub fn not_found(kind: &str, id: &str) -> Self {
        ApiError::NotFound {
            detail: format!("Couldn't find {kind} with 'id'={id}"),
        }
    }

    /// The HTTP status of this error (table on [`ApiError`]).
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::InvalidParameter { .. } | ApiError::UnsupportedParameter { .. } => {
                StatusCode::BAD_REQUEST
            }
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::MalformedBody { .. } => StatusCode::BAD_REQUEST,
            ApiError::InvalidAttribute { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Store(e) if is_unavailable(e) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The JSON:API error object of this error (what the response body holds).
    pub fn to_object(&self) -> ErrorObject {
        let status = self.status();
        let pointer = match self {
            ApiError::InvalidAttribute { pointer, .. } => Some(pointer.clone()),
            _ => None,
        };
        let (detail, code, parameter) = match self {
            ApiError::Unauthorized { detail } => (detail.clone(), "unauthorized", None),
            ApiError::InvalidParameter { parameter, detail } => {
                (detail.clone(), "invalid_parameter", Some(parameter.clone()))
            }
            ApiError::UnsupportedParameter { parameter, detail } => (
                detail.clone(),
                "unsupported_parameter",
                Some(parameter.clone()),
            ),
            ApiError::Forbidden { detail } => (detail.clone(), "routing_data_required", None),
            ApiError::NotFound { detail } => (detail.clone(), "not_found", None),
            ApiError::MethodNotAllowed { method } => (
                format!("The method {method} is not allowed for this resource."),
                "method_not_allowed",
                None,
            ),
            ApiError::MalformedBody { detail } => (detail.clone(), "malformed_body", None),
            ApiError::InvalidAttribute { detail, .. } => {
                (detail.clone(), "invalid_attribute", None)
            }
            ApiError::RateLimited { retry_after, limit } => (
                format!(
                    "Rate limit of {limit} exceeded for this account; retry after {retry_after} seconds."
                ),
                "rate_limited",
                None,
            ),
            ApiError::Store(_) if status == StatusCode::SERVICE_UNAVAILABLE => (
                "The database is temporarily unavailable; retry the request later.".to_string(),
                "service_unavailable",
                None,
            ),
            ApiError::Store(_) => (
                "The server could not complete the request.".to_string(),
                "internal_error",
                None,
            ),
        };
        ErrorObject {
            status: status.as_u16().to_string(),
            title: status.canonical_reason().unwrap_or("Error").to_string(),
            detail: Some(detail),
            code: Some(code.to_string()),
            source: (parameter.is_some() || pointer.is_some())
                .then_some(ErrorSource { parameter, pointer }),
        }
    }
}

impl From<teu_api::limit::RateLimited> for ApiError {
    fn from(e: teu_api::limit::RateLimited) -> Self {
        ApiError::RateLimited {
            retry_after: e.retry_after,
            limit: format!("{} requests per minute", e.per_minute),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if let ApiError::Store(e) = &self {
            // The only place store errors are reported; the client sees a generic detail.
            tracing::error!(error = %e, status = status.as_u16(), "store failure while serving /v2");
        }
        let mut response = document_response(status, self.to_object());
        if let ApiError::RateLimited { retry_after, .. } = &self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
        }
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Token realm=\"teu\""),
            );
        }
        response
    }
}

pub use teu_api::failure::is_unavailable;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn body(e: &ApiError) -> Value {
        serde_json::to_value(ErrorDocument {
            errors: vec![e.to_object()],
        })
        .unwrap()
    }

    #[test]
    fn invalid_parameter_names_the_parameter() {
        let e = ApiError::invalid("page[size]", "must be at least 1");
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            body(&e),
            json!({"errors":[{"status":"400","title":"Bad Request","detail":"must be at least 1",
                "code":"invalid_parameter","source":{"parameter":"page[size]"}}]})
        );
    }

    #[test]
    fn unauthorized_and_not_found_have_no_source() {
        let e = ApiError::Unauthorized {
            detail: "no key".into(),
        };
        assert_eq!(
            body(&e),
            json!({"errors":[{"status":"401","title":"Unauthorized","detail":"no key","code":"unauthorized"}]})
        );
        let e = ApiError::not_found("Container", "abc");
        assert_eq!(e.status(), StatusCode::NOT_FOUND);
        let v = body(&e);
        assert_eq!(v["errors"][0]["status"], "404");
        assert_eq!(v["errors"][0]["title"], "Not Found");
        assert_eq!(
            v["errors"][0]["detail"],
            "Couldn't find Container with 'id'=abc"
        );
    }

    #[test]
    fn store_errors_do_not_leak_and_pool_timeouts_are_503() {
        let e = ApiError::Store(StoreError::Sql(sqlx::Error::PoolTimedOut));
        assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body(&e)["errors"][0]["code"], "service_unavailable");

        let e = ApiError::Store(StoreError::Corrupt {
            what: "container",
            id: "SELECT secret FROM t".into(),
            detail: "bad json".into(),
        });
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let text = body(&e).to_string();
        assert!(!text.contains("SELECT"), "{text}");
        assert!(text.contains("\"status\":\"500\""), "{text}");

        let e = ApiError::Store(StoreError::Sql(sqlx::Error::RowNotFound));
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[tokio::test]
    async fn helper_and_401_header() {
        let r = error_response(StatusCode::NOT_FOUND, "Not Found", "nothing here");
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert_eq!(r.headers()[header::CONTENT_TYPE], "application/json");
        let bytes = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            v,
            json!({"errors":[{"status":"404","title":"Not Found","detail":"nothing here"}]})
        );

        let r = ApiError::Unauthorized { detail: "x".into() }.into_response();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert!(r.headers().contains_key(header::WWW_AUTHENTICATE));
    }
}
