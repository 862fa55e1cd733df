//! The request body limit of `/v2` ([`crate::error::MAX_BODY_BYTES`]) in a way clients can
//! read: a request whose `Content-Length` is over the limit gets its 413 at once, and the
//! body still on its way is read and thrown away in the background (up to
//! [`DRAIN_MAX_BYTES`] or [`DRAIN_TIMEOUT`]), so a client that sends its whole body before
//! reading the answer (Python's `urllib`, `curl` without `Expect`) reads the 413 instead of a
//! connection reset. Bodies without a length (chunked) are cut by the extractors' own limit.

use std::time::Duration;

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;

use crate::error::{error_response, MAX_BODY_BYTES};

/// Most bytes of an oversized body read and discarded; a larger body is cut (the client may
/// then see the connection close before it finishes sending).
pub const DRAIN_MAX_BYTES: u64 = 64 << 20;
/// Longest time spent discarding an oversized body.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Middleware: 413 (JSON:API error, `Connection: close`) for a declared body over the limit,
/// discarding the body in the background; other requests pass unchanged.
pub async fn limit_body(req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let Some(len) = declared.filter(|l| *l > MAX_BODY_BYTES as u64) else {
        return next.run(req).await;
    };
    if len <= DRAIN_MAX_BYTES {
        let mut body = req.into_body();
        tokio::spawn(async move {
            let drain = async {
                let mut read = 0u64;
                while let Some(frame) = body.frame().await {
                    match frame {
                        Ok(f) => {
                            read += f.data_ref().map_or(0, |d| d.len() as u64);
                            if read >= DRAIN_MAX_BYTES {
                                break;
                            }
                        }
                        Err(_) => break,
                    }
                }
            };
            let _ = tokio::time::timeout(DRAIN_TIMEOUT, drain).await;
        });
    }
    let mut resp = error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        "Payload Too Large",
        &format!("The request body is larger than the limit of {MAX_BODY_BYTES} bytes."),
    );
    resp.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    resp
}
