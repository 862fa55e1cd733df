//! The HTTP answer of a GraphQL request: the response as JSON, written by [`json`], with
//! the headers async-graphql-axum's `GraphQLResponse` gives it.
//!
//! [`json`] writes the same bytes as `serde_json::to_vec` of the `async_graphql::Response`
//! (tested byte for byte below), faster: the `data` tree is walked directly rather than
//! through serde's serializer, and strings are scanned eight bytes at a time for the bytes
//! JSON must escape (RFC 8259 section 7: `"`, `\` and U+0000 to U+001F), where serde_json
//! looks each byte up in a table ([`teu_domain::json::push_str`], which `/v2` writes with too).
//! Writing the page of 30 containers of `scripts/page.sh` (130 KB) was a fifth of the
//! GraphQL page's instructions, most of it in that scan (docs/NOTES.md, forty-first session).
//! A value that is JSON text already ([`raw_json`]) is copied as it is. Values other than
//! lists, objects and strings, and the `extensions` and `errors` members, are written by
//! serde_json itself.

use async_graphql::indexmap::IndexMap;
use async_graphql::{Name, Response, Value};
use async_graphql_value::RAW_VALUE_TOKEN;
use axum::http::{header, HeaderValue};
use teu_domain::json::push_str;

/// A response value that is the JSON text `text` already: serde_json writes it as that text
/// (async-graphql-value's `raw_value` feature: an object of one key, [`RAW_VALUE_TOKEN`],
/// whose value is the text), and so does [`json`], copying it. `text` must be one complete
/// JSON value; only teu's own writers make one (a page's event-id lists, `types::event`), which
/// skips building an object per item, dropping it and writing it again (about a sixth of the
/// GraphQL page's instructions, docs/NOTES.md). Field merging cannot look into it, so it
/// stands only where no merge with another selection can happen
/// (`types::in_place::only_field_with_key`).
pub(crate) fn raw_json(text: String) -> Value {
    let mut object = IndexMap::with_capacity(1);
    object.insert(Name::new(RAW_VALUE_TOKEN), Value::String(text));
    Value::Object(object)
}

/// The HTTP response of GraphQL response `response` (status 200): its JSON ([`json`]),
/// `Content-Type: application/graphql-response+json`, `Cache-Control` when the response has
/// no error and a cache-control value, and the headers its resolvers set, as
/// `async_graphql_axum::GraphQLResponse` answers it.
pub(crate) fn http(response: Response) -> axum::response::Response {
    let mut answer = axum::response::Response::new(axum::body::Body::from(json(&response)));
    let headers = answer.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/graphql-response+json"),
    );
    if response.is_ok() {
        if let Some(value) = response
            .cache_control
            .value()
            .and_then(|v| HeaderValue::from_str(&v).ok())
        {
            headers.insert(header::CACHE_CONTROL, value);
        }
    }
    headers.extend(response.http_headers);
    answer
}

thread_local! {
    /// The length of the last response [`json`] wrote on this thread, for the next one's first
    /// capacity: a client polling one page gets answers of about one length, and a buffer
    /// grown from 4 KiB by doubling to the page's 116 KB was copied five times over (about
    /// 2% of the GraphQL page's instructions, docs/NOTES.md).
    static LAST_LENGTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The first capacity of a response's buffer: 4 KiB, or the last length on this thread and an
/// eighth more, at most 1 MiB.
fn first_capacity() -> usize {
    let last = LAST_LENGTH.get();
    (last + last / 8).clamp(4096, 1 << 20)
}

/// `response` as JSON: `{"data":…}`, then `"extensions"` when there are any and `"errors"`
/// when there are any: the bytes of `serde_json::to_vec(response)`.
pub(crate) fn json(response: &Response) -> Vec<u8> {
    let mut out = Vec::with_capacity(first_capacity());
    out.extend_from_slice(b"{\"data\":");
    write_value(&mut out, &response.data);
    if !response.extensions.is_empty() {
        out.extend_from_slice(b",\"extensions\":");
        serde(&mut out, &response.extensions);
    }
    if !response.errors.is_empty() {
        out.extend_from_slice(b",\"errors\":");
        serde(&mut out, &response.errors);
    }
    out.push(b'}');
    LAST_LENGTH.set(out.len());
    out
}

/// Appends `v` as serde_json writes it (numbers, binary, raw values, errors, extensions).
fn serde<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    // Writing to a Vec fails only when `Serialize` fails, which the types here never do
    // (string keys, finite numbers); `serde_json::to_vec` of the whole response would
    // have failed the same way, and async-graphql-axum unwraps it.
    // What a failed write left behind is cut off, so the body stays valid JSON.
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, v) {
        tracing::error!(error = %e, "a GraphQL response value could not be written as JSON");
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

/// Appends `v` as serde_json writes it: what [`json`] writes for the response's data, and
/// `types::in_place` for a field's value inside an object it writes as text.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Boolean(true) => out.extend_from_slice(b"true"),
        Value::Boolean(false) => out.extend_from_slice(b"false"),
        Value::String(s) => push_str(out, s),
        Value::Enum(name) => push_str(out, name),
        Value::List(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        // A raw JSON value ([`raw_json`]) is an object of one key that is no GraphQL name
        // ([`RAW_VALUE_TOKEN`]): its text is copied, as serde_json writes it.
        Value::Object(map) if map.len() == 1 && map.keys().any(|k| k.starts_with('$')) => {
            match map.get(RAW_VALUE_TOKEN) {
                Some(Value::String(text)) => out.extend_from_slice(text.as_bytes()),
                _ => serde(out, v),
            }
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_str(out, key);
                out.push(b':');
                write_value(out, item);
            }
            out.push(b'}');
        }
        Value::Number(_) | Value::Binary(_) => serde(out, v),
    }
}

#[cfg(test)]
mod tests {
    use async_graphql::indexmap::IndexMap;
    use async_graphql::{Name, Number, Response, ServerError, Value};
    use proptest::prelude::*;

    use super::json;

    fn serde_json_bytes(response: &Response) -> Vec<u8> {
        serde_json::to_vec(response).expect("a response serializes")
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[ -~]{0,40}",
            proptest::collection::vec(
                prop_oneof![
                    Just('"'),
                    Just('\\'),
                    Just('é'),
                    Just('\u{1}'),
                    Just('a'),
                    Just('\u{7f}'),
                    Just('\u{1f}'),
                    Just('\n')
                ],
                0..40
            )
            .prop_map(|c| c.into_iter().collect()),
        ]
    }

    fn values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Boolean),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
            text().prop_map(Value::String),
            "[A-Z_]{1,12}".prop_map(|n| Value::Enum(Name::new(n))),
            proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| Value::Binary(b.into())),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::List),
                // A value made JSON text, as `raw_json` stands for a list in a response.
                inner.clone().prop_map(|v| super::raw_json(
                    serde_json::to_string(&v).expect("a value serializes")
                )),
                proptest::collection::vec(("[a-zA-Z_][a-zA-Z0-9_]{0,12}", inner), 0..8).prop_map(
                    |fields| Value::Object(
                        fields
                            .into_iter()
                            .map(|(k, v)| (Name::new(k), v))
                            .collect::<IndexMap<_, _>>()
                    )
                ),
            ]
        })
    }

    proptest! {
        #[test]
        fn writes_what_serde_json_writes(data in values(), errors in proptest::collection::vec(text(), 0..3)) {
            let mut response = Response::new(data);
            response.errors = errors.into_iter().map(|m| ServerError::new(m, None)).collect();
            prop_assert_eq!(json(&response), serde_json_bytes(&response));
        }
    }

    #[test]
    fn extensions_and_errors_follow_data() {
        let mut response =
            Response::new(Value::from_json(serde_json::json!({"a": [1, "x"]})).unwrap())
                .extension("cost", Value::Number(3.into()));
        response
            .errors
            .push(ServerError::new("bad \"thing\"", None));
        assert_eq!(json(&response), serde_json_bytes(&response));
        assert_eq!(json(&Response::default()), b"{\"data\":null}");
    }
}
