//! The absolute-URI base of `/v2` links: `scheme://host` and the router's mount point, read
//! from the request (interface.md: links are absolute URIs).

use axum::extract::{FromRequestParts, OriginalUri};
use axum::http::header;
use axum::http::request::Parts;
use uuid::Uuid;

/// Where the request came from, for absolute links: `origin` is `scheme://host`, `prefix` the
/// mount point of the router (`/v2` when nested there, empty when not).
///
/// The scheme is the first value of `X-Forwarded-Proto` when it is `http` or `https`, else
/// `http`; the host is the `Host` header (or the URI's authority, for HTTP/2), else
/// `localhost`. A host with characters that cannot appear in an authority is replaced by
/// `localhost`.
pub(crate) struct Base {
    origin: String,
    prefix: String,
}

impl Base {
    /// Absolute URI of `path` under the router, e.g. `/containers` → `http://h/v2/containers`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{}{}", self.origin, self.prefix, path)
    }

    pub(crate) fn shipment_url(&self, id: Uuid) -> String {
        self.url(&format!("/shipments/{id}"))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Base {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let proto = parts
            .headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_ascii_lowercase());
        let scheme = match proto.as_deref() {
            Some("https") => "https",
            _ => "http",
        };
        let host = parts
            .headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .or_else(|| parts.uri.authority().map(|a| a.to_string()))
            .filter(|h| valid_host(h))
            .unwrap_or_else(|| "localhost".to_string());
        // Nesting strips the mount point from `uri`; `OriginalUri` keeps the full path.
        let full = parts
            .extensions
            .get::<OriginalUri>()
            .map(|o| o.0.path().to_string())
            .unwrap_or_else(|| parts.uri.path().to_string());
        let prefix = full
            .strip_suffix(parts.uri.path())
            .unwrap_or("")
            .trim_end_matches('/')
            .to_string();
        Ok(Base {
            origin: format!("{scheme}://{host}"),
            prefix,
        })
    }
}

/// Whether `h` looks like `host[:port]` (names, IPv4, bracketed IPv6).
fn valid_host(h: &str) -> bool {
    !h.is_empty()
        && h.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert!(valid_host("api.example.com:8080"));
        assert!(valid_host("[::1]:3000"));
        assert!(!valid_host("evil.com/path"));
        assert!(!valid_host("a b"));
        assert!(!valid_host(""));
    }
}
