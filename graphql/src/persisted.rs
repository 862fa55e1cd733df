//! Automatic persisted queries (Apollo's protocol): a client sends a query's SHA-256 instead
//! of its text once the server holds it ([`persisted_query`]).
//!
//! [`TeuSchema`](crate::TeuSchema) applies it to every request before the schema runs it. It
//! is not async-graphql's `ApolloPersistedQueries` extension on purpose: while a schema has any
//! extension, async-graphql sends the resolution of every field through the extension chain
//! (a registry lookup and a few boxed futures per field, whatever the extension does). A page
//! of 30 containers with their shipments resolves about 3,700 fields; the chain was a third of
//! its time (issue 16).

use async_graphql::extensions::apollo_persisted_queries::{CacheStorage, LruCacheStorage};
use async_graphql::{Request, ServerError, Value};
use sha2::{Digest, Sha256};

use crate::error::GqlError;

/// The automatic persisted query a request names in `extensions.persistedQuery`
/// (Apollo's protocol, version 1): the SHA-256 of the query text, lower-case hex.
struct PersistedQuery {
    version: i64,
    sha256_hash: String,
}

impl PersistedQuery {
    /// Reads `extensions.persistedQuery`; an error names the member at fault.
    fn of(value: &Value) -> Result<Self, GqlError> {
        let bad = |message: &str| GqlError::BadUserInput {
            message: format!("extensions.persistedQuery: {message}"),
            field: Some("extensions.persistedQuery"),
        };
        let Value::Object(members) = value else {
            return Err(bad("expected an object with version and sha256Hash"));
        };
        let version = match members.get("version") {
            Some(Value::Number(n)) => n.as_i64().ok_or_else(|| bad("version is not an integer"))?,
            _ => return Err(bad("version is missing or not a number")),
        };
        let sha256_hash = match members.get("sha256Hash") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(bad("sha256Hash is missing or not a string")),
        };
        Ok(PersistedQuery {
            version,
            sha256_hash,
        })
    }
}

/// Applies automatic persisted queries to `request`: without `extensions.persistedQuery` it is
/// returned unchanged. With it (version 1 only) and no query text, the query parsed when the
/// hash was first sent is put in the request, or the answer is `PersistedQueryNotFound`; with
/// query text, the text must hash to `sha256Hash` (SHA-256, hex), and its parsed document is
/// kept under the hash (LRU, `cache`'s capacity) for later requests.
///
/// Errors: [`GqlError::PersistedQueryNotFound`]; `BAD_USER_INPUT` with field
/// `extensions.persistedQuery` for a malformed member, another version, or a hash that is not
/// the text's; a syntax error of the query text, as async-graphql reports it.
pub(crate) async fn persisted_query(
    cache: &LruCacheStorage,
    mut request: Request,
) -> Result<Request, ServerError> {
    let Some(value) = request.extensions.remove("persistedQuery") else {
        return Ok(request);
    };
    let error = |e: GqlError| e.into_graphql().into_server_error(Default::default());
    let persisted = PersistedQuery::of(&value).map_err(error)?;
    if persisted.version != 1 {
        return Err(error(GqlError::BadUserInput {
            message: format!(
                "extensions.persistedQuery: version {} is not supported (only 1)",
                persisted.version
            ),
            field: Some("extensions.persistedQuery"),
        }));
    }
    if request.query.is_empty() {
        let document = cache
            .get(persisted.sha256_hash)
            .await
            .ok_or_else(|| error(GqlError::PersistedQueryNotFound))?;
        request.set_parsed_query(document);
        return Ok(request);
    }
    let hash = hex::encode(Sha256::digest(request.query.as_bytes()));
    if !hash.eq_ignore_ascii_case(&persisted.sha256_hash) {
        return Err(error(GqlError::BadUserInput {
            message: format!(
                "extensions.persistedQuery: sha256Hash {} is not the SHA-256 of the query ({hash})",
                persisted.sha256_hash
            ),
            field: Some("extensions.persistedQuery"),
        }));
    }
    let document = request.parsed_query()?.clone();
    cache.set(hash, document).await;
    Ok(request)
}
