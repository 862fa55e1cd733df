//! Tests over a temporary SQLite store holding the bundled DCSA samples.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use async_graphql::resolver_utils::EnumType;
use async_graphql::Request;
use axum::body::Body;
use axum::http::{header, Method, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use teu_pipeline::model::{self, Account};
use teu_store::Store;
use tower::ServiceExt;
use uuid::Uuid;

use crate::loaders::LoaderStats;
use crate::types::ContainerStatus;
use crate::{router, schema, sdl, TeuSchema};

mod records;
mod submissions;

/// Generated shipments added to the samples, so that lists have more than one page of 30.
const GENERATED: teu_synth::dcsa::GenOptions = teu_synth::dcsa::GenOptions {
    shipments: 16,
    seed: 11,
    events_per_file: 0,
};

/// A store with two accounts: `a` holds the DCSA samples (`data/dcsa/tnt-220-response.json`,
/// `tnt-300-response.json`), [`GENERATED`] shipments and the demo emails, `b` nothing.
struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    schema: TeuSchema,
    a: Account,
    b: Account,
}

fn data_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/dcsa")
        .join(name)
}

/// The demo emails with PDF attachments, `data/email/*.eml`.
fn demo_emails() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/email");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    out.sort();
    assert!(out.len() >= 3, "{out:?}");
    out
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let (a, _) = store.create_account("a", false).await.unwrap();
    let (b, _) = store.create_account("b", false).await.unwrap();
    let mut files = vec![
        data_file("tnt-220-response.json"),
        data_file("tnt-300-response.json"),
    ];
    let generated = teu_synth::dcsa::generate(&GENERATED);
    files.extend(teu_synth::dcsa::write_to_dir(&generated, &dir.path().join("gen")).unwrap());
    // The demo emails (`data/email`, sent to demo@inbound.teu.local) belong to `a`.
    store
        .add_inbound_address(a.id, "demo@inbound.teu.local")
        .await
        .unwrap();
    files.extend(demo_emails());
    for file in &files {
        teu_pipeline::ingest::ingest_file(&store, &a, file)
            .await
            .unwrap();
    }
    Fixture {
        schema: schema(store.clone(), teu_api::limit::AccountLimiter::default()),
        _dir: dir,
        store,
        a,
        b,
    }
}

/// Runs `query` as `account`; returns `data` and `errors` as JSON.
async fn run(schema: &TeuSchema, account: Option<&Account>, query: &str) -> (Value, Vec<Value>) {
    let mut request = Request::new(query);
    if let Some(a) = account {
        request = request.data(a.clone());
    }
    let response = serde_json::to_value(schema.execute(request).await).unwrap();
    let errors = response
        .get("errors")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    (response["data"].clone(), errors)
}

/// Runs `query` as `account` and fails on any error.
async fn ok(schema: &TeuSchema, account: &Account, query: &str) -> Value {
    let (data, errors) = run(schema, Some(account), query).await;
    assert!(errors.is_empty(), "{query}: {errors:#?}");
    data
}

fn codes(errors: &[Value]) -> Vec<&str> {
    errors
        .iter()
        .map(|e| e["extensions"]["code"].as_str().unwrap_or("<none>"))
        .collect()
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

fn camel_to_snake(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The GraphQL JSON with its keys in snake_case (the model's serde names).
fn snake_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (camel_to_snake(k), snake_keys(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(snake_keys).collect()),
        other => other.clone(),
    }
}

/// Asserts every field of `got` (GraphQL, camelCase) equals the model's serde value.
fn assert_same_values(what: &str, got: &Value, model: &Value, skip: &[&str]) {
    for (key, value) in snake_keys(got).as_object().unwrap() {
        if skip.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(
            value,
            &model[key.as_str()],
            "{what}.{key}: GraphQL value differs from the model's"
        );
    }
}

/// A document that passed the full validation without variables runs with the fast one next
/// time ([`crate::Validated`]) and answers the same; a document that failed it, or a request
/// with variables, is validated in full every time, so a bad variable is still refused.
#[tokio::test]
async fn a_validated_document_answers_the_same_when_run_fast() {
    let f = fixture().await;
    use sha2::Digest;
    let key = |query: &str| hex::encode(sha2::Sha256::digest(query.as_bytes()));
    let page = "{ containers(first: 30) { totalCount nodes { id number currentStatus \
                podDischargedAt holdsAtPodTerminal { name status } events { id } \
                shipment { billOfLadingNumber podEtaAt containers { id } } } } }";
    assert!(!f.schema.validated.contains(&key(page)));
    let first = ok(&f.schema, &f.a, page).await;
    assert!(f.schema.validated.contains(&key(page)));
    assert!(first["containers"]["nodes"].as_array().unwrap().len() > 5);
    assert_eq!(ok(&f.schema, &f.a, page).await, first);

    // Invalid: refused with the same errors every time, never marked.
    let bad = "{ containers(first: 5) { nodes { nope } } }";
    let (_, once) = run(&f.schema, Some(&f.a), bad).await;
    let (_, twice) = run(&f.schema, Some(&f.a), bad).await;
    assert!(!once.is_empty());
    assert_eq!(once, twice);
    assert!(!f.schema.validated.contains(&key(bad)));

    // With variables: validated in full each time.
    let counted = "query($n: Int!) { containers(first: $n) { totalCount } }";
    let with = |n: Value| {
        Request::new(counted)
            .variables(async_graphql::Variables::from_json(json!({ "n": n })))
            .data(f.a.clone())
    };
    let good = f.schema.execute(with(json!(3))).await;
    assert!(good.errors.is_empty(), "{:?}", good.errors);
    assert!(!f.schema.validated.contains(&key(counted)));
    let refused = f.schema.execute(with(json!("three"))).await;
    assert!(
        refused
            .errors
            .iter()
            .any(|e| e.message.contains("\"three\"")),
        "{:?}",
        refused.errors
    );

    // An operation of a document is its own entry.
    let two = "query A { containers(first: 2) { totalCount } } query B { shipments(first: 2) { totalCount } }";
    let named = |name: &str| Request::new(two).operation_name(name).data(f.a.clone());
    let a = f.schema.execute(named("A")).await;
    assert!(a.errors.is_empty(), "{:?}", a.errors);
    assert!(f.schema.validated.contains(&format!("{}:A", key(two))));
    assert!(!f.schema.validated.contains(&format!("{}:B", key(two))));
    let b = f.schema.execute(named("B")).await;
    assert!(b.errors.is_empty(), "{:?}", b.errors);
    assert_ne!(
        serde_json::to_value(&a.data).unwrap(),
        serde_json::to_value(&b.data).unwrap()
    );
}
