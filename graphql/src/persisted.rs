//! Parsed queries kept by the SHA-256 of their text, and automatic persisted queries (Apollo's
//! protocol: a client sends a query's SHA-256 instead of its text once the server holds it):
//! [`parsed_query`]. A client that sends the same query text again (a page it polls) skips
//! its parse (about 3% of the GraphQL page's CPU time in `perf`).
//!
//! [`TeuSchema`](crate::TeuSchema) applies it to every request before the schema runs it. It
//! is not async-graphql's `ApolloPersistedQueries` extension on purpose: while a schema has any
//! extension, async-graphql sends the resolution of every field through the extension chain
//! (a registry lookup and a few boxed futures per field, whatever the extension does). A page
//! of 30 containers with their shipments resolves about 3,700 fields; the chain was a third of
//! its time (issue 16).

use async_graphql::extensions::apollo_persisted_queries::{CacheStorage, LruCacheStorage};
use async_graphql::{Error, Request, ServerError, Value};
use sha2::{Digest, Sha256};

use crate::error::{bad_field, GqlError};

/// Where a persisted query is named: the `extensions.field` of its errors.
const FIELD: &str = "extensions.persistedQuery";

/// The automatic persisted query a request names in `extensions.persistedQuery`
/// (Apollo's protocol, version 1): the SHA-256 of the query text, hex.
struct PersistedQuery {
    sha256_hash: String,
}

impl PersistedQuery {
    /// Reads `extensions.persistedQuery` (`{"version": 1, "sha256Hash": "<hex>"}`).
    ///
    /// Errors: `BAD_USER_INPUT` with field `extensions.persistedQuery`, naming the member at
    /// fault: not an object, `version` missing or not 1, `sha256Hash` missing or not a string.
    fn of(value: &Value) -> Result<Self, Error> {
        let bad = |message: String| bad_field(FIELD, format!("{FIELD}: {message}"));
        let Value::Object(members) = value else {
            return Err(bad("expected an object with version and sha256Hash".into()));
        };
        match members.get("version") {
            Some(Value::Number(n)) if n.as_i64() == Some(1) => {}
            Some(Value::Number(n)) => {
                return Err(bad(format!("version {n} is not supported (only 1)")))
            }
            _ => return Err(bad("version is missing or not a number".into())),
        }
        let Some(Value::String(sha256_hash)) = members.get("sha256Hash") else {
            return Err(bad("sha256Hash is missing or not a string".into()));
        };
        Ok(PersistedQuery {
            sha256_hash: sha256_hash.clone(),
        })
    }
}

/// Gives `request` its parsed query from `cache`, where every query text's parsed document is
/// kept under the SHA-256 of the text (lower-case hex; LRU, `cache`'s capacity), and applies
/// automatic persisted queries (`extensions.persistedQuery`, version 1 only):
///
/// - query text, no persisted query: the cached document, else the text parsed and cached;
/// - a hash without query text: the document cached under it, else `PersistedQueryNotFound`
///   (the client then sends hash and text once);
/// - a hash with query text: the text must hash to it; then as for text alone.
///
/// A request with neither text nor hash is returned unchanged (async-graphql answers it).
///
/// Errors: [`GqlError::PersistedQueryNotFound`]; `BAD_USER_INPUT` with field
/// `extensions.persistedQuery` for a malformed member ([`PersistedQuery::of`]) or a hash that
/// is not the text's; a syntax error of the query text, as async-graphql reports it.
///
/// Also answers the key of the request's document: the SHA-256 of its query text (lower-case
/// hex), `None` for a request with neither text nor hash.
pub(crate) async fn parsed_query(
    cache: &LruCacheStorage,
    mut request: Request,
) -> Result<(Request, Option<String>), ServerError> {
    let server_error = |e: Error| e.into_server_error(Default::default());
    let persisted = match request.extensions.remove("persistedQuery") {
        Some(value) => Some(PersistedQuery::of(&value).map_err(server_error)?),
        None => None,
    };
    if request.query.is_empty() {
        let Some(p) = persisted else {
            return Ok((request, None));
        };
        let hash = p.sha256_hash.to_ascii_lowercase();
        let document = cache
            .get(hash.clone())
            .await
            .ok_or_else(|| server_error(GqlError::PersistedQueryNotFound.into_graphql()))?;
        request.set_parsed_query(document);
        return Ok((request, Some(hash)));
    }
    let hash = hex::encode(Sha256::digest(request.query.as_bytes()));
    if let Some(p) = persisted.filter(|p| !p.sha256_hash.eq_ignore_ascii_case(&hash)) {
        let message = format!(
            "{FIELD}: sha256Hash {} is not the SHA-256 of the query ({hash})",
            p.sha256_hash
        );
        return Err(server_error(bad_field(FIELD, message)));
    }
    match cache.get(hash.clone()).await {
        Some(document) => request.set_parsed_query(document),
        None => {
            let document = request.parsed_query()?.clone();
            cache.set(hash.clone(), document).await;
        }
    }
    Ok((request, Some(hash)))
}
