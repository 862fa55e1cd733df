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
use teu_pipeline::store::Store;
use tower::ServiceExt;
use uuid::Uuid;

use crate::loaders::LoaderStats;
use crate::types::ContainerStatus;
use crate::{router, schema, sdl, TeuSchema};

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
        schema: schema(
            store.clone(),
            teu_pipeline::infer::limit::AccountLimiter::default(),
        ),
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

const CONTAINER_FIELDS: &str = "id number refNumbers sealNumber createdAt equipmentType \
    equipmentLength equipmentHeight weightInLbs pickupLfd pickupAppointmentAt availabilityKnown \
    availableForPickup podArrivedAt podDischargedAt podFullOutAt terminalCheckedAt \
    podFullOutChassisNumber locationAtPodTerminal finalDestinationFullOutAt emptyTerminatedAt \
    holdsAtPodTerminal { name status description } feesAtPodTerminal { type amount currencyCode } \
    podTimezone finalDestinationTimezone emptyTerminatedTimezone podRailCarrierScac \
    indRailCarrierScac podLastTrackingRequestAt shipmentLastTrackingRequestAt podRailLoadedAt \
    podRailDepartedAt indEtaAt indAtaAt indRailUnloadedAt indFacilityLfdOn \
    importDeadlines { pickupLfdTerminal pickupLfdRail pickupLfdLine } currentStatus";

const SHIPMENT_FIELDS: &str = "id billOfLadingNumber normalizedNumber refNumbers createdAt tags \
    portOfLadingLocode portOfLadingName portOfDischargeLocode portOfDischargeName \
    destinationLocode destinationName shippingLineScac shippingLineName shippingLineShortName \
    customerName podVesselName podVesselImo podVoyageNumber polEtdAt polAtdAt podEtaAt \
    podOriginalEtaAt podAtaAt destinationEtaAt destinationAtaAt polTimezone podTimezone \
    destinationTimezone lineTrackingLastAttemptedAt lineTrackingLastSucceededAt \
    lineTrackingStoppedAt lineTrackingStoppedReason";

const EVENT_FIELDS: &str = "id rawEventId eventType classifier code eventAt eventCreatedAt \
    containerNumber billOfLading booking locode locationName facilityCode modeOfTransport \
    vesselImo vesselName voyage delayReason remark timezone";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn containers_connection_pages_through_everything() {
    let f = fixture().await;
    let (_, total) = f.store.list_containers(f.a.id, 0, 1000).await.unwrap();
    assert!(
        total > 30,
        "the fixture should fill more than one default page, got {total} containers"
    );

    let data = ok(
        &f.schema,
        &f.a,
        "{ containers { totalCount edges { cursor node { id number } } nodes { id } \
           pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }",
    )
    .await;
    let conn = &data["containers"];
    assert_eq!(conn["totalCount"], json!(total));
    let edges = conn["edges"].as_array().unwrap();
    assert_eq!(edges.len() as i64, total.min(30));
    assert_eq!(conn["pageInfo"]["hasNextPage"], json!(total > 30));
    assert_eq!(conn["pageInfo"]["hasPreviousPage"], json!(false));
    assert_eq!(conn["pageInfo"]["startCursor"], edges[0]["cursor"]);
    assert_eq!(
        conn["pageInfo"]["endCursor"],
        edges[edges.len() - 1]["cursor"]
    );
    let first_page: Vec<String> = edges
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(first_page, ids(&conn["nodes"]));
    // Same order as the store (and so as /v2).
    let (stored, _) = f.store.list_containers(f.a.id, 0, 30).await.unwrap();
    let stored: Vec<String> = stored.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(first_page, stored);

    // One at a time, following endCursor, gives the same list.
    let mut after: Option<String> = None;
    let mut walked = Vec::new();
    loop {
        let arg = after
            .as_ref()
            .map(|c| format!(", after: \"{c}\""))
            .unwrap_or_default();
        let data = ok(
            &f.schema,
            &f.a,
            &format!(
                "{{ containers(first: 1{arg}) {{ totalCount edges {{ cursor node {{ id }} }} \
                 pageInfo {{ hasNextPage hasPreviousPage endCursor }} }} }}"
            ),
        )
        .await;
        let conn = &data["containers"];
        assert_eq!(conn["totalCount"], json!(total));
        assert_eq!(conn["pageInfo"]["hasPreviousPage"], json!(after.is_some()));
        let edges = conn["edges"].as_array().unwrap();
        assert_eq!(edges.len(), 1);
        let cursor = edges[0]["cursor"].as_str().unwrap().to_string();
        assert!(
            cursor.parse::<u64>().is_err(),
            "cursors are opaque, got {cursor}"
        );
        walked.push(edges[0]["node"]["id"].as_str().unwrap().to_string());
        if conn["pageInfo"]["hasNextPage"] == json!(false) {
            break;
        }
        after = Some(conn["pageInfo"]["endCursor"].as_str().unwrap().to_string());
        assert!(walked.len() as i64 <= total, "pagination does not end");
    }
    assert_eq!(walked.len() as i64, total);
    assert_eq!(walked[..first_page.len()], first_page[..]);

    // Past the end: empty page, still the total.
    let last = after.unwrap_or_default();
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ containers(first: 0) {{ totalCount edges {{ cursor }} pageInfo {{ hasNextPage }} }} \
             shipments {{ totalCount edges {{ node {{ id }} }} }} \
             tail: containers(after: \"{last}\") {{ edges {{ cursor }} }} }}"
        ),
    )
    .await;
    assert_eq!(data["containers"]["edges"], json!([]));
    assert_eq!(data["containers"]["pageInfo"]["hasNextPage"], json!(true));
    assert_eq!(data["tail"]["edges"].as_array().unwrap().len(), 1);
    let (shipments, shipment_total) = f.store.list_shipments(f.a.id, 0, 100).await.unwrap();
    assert!(shipment_total >= 1);
    assert_eq!(data["shipments"]["totalCount"], json!(shipment_total));
    let got: Vec<String> = data["shipments"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = shipments.iter().map(|s| s.id.to_string()).collect();
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_size_and_cursor_are_validated() {
    let f = fixture().await;
    for query in [
        "{ containers(first: 1000) { totalCount } }",
        "{ containers(first: 101) { totalCount } }",
        "{ shipments(first: -1) { totalCount } }",
        "{ containers(after: \"not a cursor\") { totalCount } }",
        "{ shipments(after: \"bm9wZQ\") { totalCount } }",
    ] {
        let (data, errors) = run(&f.schema, Some(&f.a), query).await;
        assert_eq!(codes(&errors), ["BAD_USER_INPUT"], "{query}: {errors:#?}");
        assert_eq!(data, Value::Null, "{query}");
    }
    let data = ok(&f.schema, &f.a, "{ containers(first: 100) { totalCount } }").await;
    assert!(data["containers"]["totalCount"].as_i64().unwrap() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn container_shipment_containers_round_trip() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id number shipment { id billOfLadingNumber \
           containers { id number shipment { id } } } } } }",
    )
    .await;
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    assert!(!nodes.is_empty());
    for node in nodes {
        let shipment = &node["shipment"];
        assert!(shipment.is_object(), "container {node} has no shipment");
        let siblings = shipment["containers"].as_array().unwrap();
        assert!(
            siblings.iter().any(|c| c["id"] == node["id"]),
            "shipment {} does not list its container {}",
            shipment["id"],
            node["id"]
        );
        for c in siblings {
            assert_eq!(c["shipment"]["id"], shipment["id"]);
        }
        let numbers: Vec<&str> = siblings
            .iter()
            .map(|c| c["number"].as_str().unwrap())
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort();
        assert_eq!(numbers, sorted, "Shipment.containers is ordered by number");
    }

    // And by id.
    let id = nodes[0]["id"].as_str().unwrap();
    let data = ok(
        &f.schema,
        &f.a,
        &format!("{{ container(id: \"{id}\") {{ id shipment {{ id }} }} }}"),
    )
    .await;
    assert_eq!(data["container"]["id"], json!(id));
    let shipment_id = data["container"]["shipment"]["id"].as_str().unwrap();
    let data = ok(
        &f.schema,
        &f.a,
        &format!("{{ shipment(id: \"{shipment_id}\") {{ id containers {{ id }} }} }}"),
    )
    .await;
    assert!(ids(&data["shipment"]["containers"]).contains(&id.to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_are_ordered_by_time() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { number events { id eventAt code containerNumber } } } }",
    )
    .await;
    let mut seen = 0;
    for node in data["containers"]["nodes"].as_array().unwrap() {
        let events = node["events"].as_array().unwrap();
        seen += events.len();
        let times: Vec<chrono::DateTime<chrono::Utc>> = events
            .iter()
            .map(|e| e["eventAt"].as_str().unwrap().parse().unwrap())
            .collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "events of {} are not in time order: {times:?}",
            node["number"]
        );
    }
    assert!(seen > 0, "the samples should link events to containers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_sees_nothing() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers { nodes { id shipment { id } } } }",
    )
    .await;
    let container_id = data["containers"]["nodes"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shipment_id = data["containers"]["nodes"][0]["shipment"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let data = ok(
        &f.schema,
        &f.b,
        &format!(
            "{{ containers {{ totalCount edges {{ cursor }} pageInfo {{ hasNextPage }} }} \
             shipments {{ totalCount nodes {{ id }} }} \
             container(id: \"{container_id}\") {{ id }} shipment(id: \"{shipment_id}\") {{ id }} }}"
        ),
    )
    .await;
    assert_eq!(
        data,
        json!({
            "containers": { "totalCount": 0, "edges": [], "pageInfo": { "hasNextPage": false } },
            "shipments": { "totalCount": 0, "nodes": [] },
            "container": null,
            "shipment": null,
        })
    );

    // Unknown and malformed ids are null too, not errors.
    let data = ok(
        &f.schema,
        &f.a,
        "{ container(id: \"00000000-0000-0000-0000-000000000000\") { id } \
           shipment(id: \"not-a-uuid\") { id } }",
    )
    .await;
    assert_eq!(data, json!({ "container": null, "shipment": null }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_account_nothing_is_served() {
    let f = fixture().await;
    let (data, errors) = run(&f.schema, None, "{ containers { totalCount } }").await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_have_the_model_values() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ containers(first: 100) {{ nodes {{ {CONTAINER_FIELDS} \
               shipment {{ {SHIPMENT_FIELDS} }} events {{ {EVENT_FIELDS} }} }} }} }}"
        ),
    )
    .await;
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    let (containers, _) = f.store.list_containers(f.a.id, 0, 100).await.unwrap();
    assert_eq!(nodes.len(), containers.len());
    for (node, c) in nodes.iter().zip(&containers) {
        let model = serde_json::to_value(c).unwrap();
        assert_same_values(
            "Container",
            node,
            &model,
            &["current_status", "shipment", "events"],
        );
        assert_eq!(
            node["currentStatus"].as_str().unwrap(),
            c.current_status.as_str().to_uppercase()
        );

        let shipment = f
            .store
            .shipment(f.a.id, c.shipment_id)
            .await
            .unwrap()
            .unwrap();
        // Enums are upper case in GraphQL (`ALL_CONTAINERS_TERMINATED`).
        let mut model = serde_json::to_value(&shipment).unwrap();
        if let Some(reason) = shipment.line_tracking_stopped_reason.as_deref() {
            model["line_tracking_stopped_reason"] = json!(reason.to_uppercase());
        }
        assert_same_values("Shipment", &node["shipment"], &model, &[]);

        let mut events = f.store.events_of_containers(f.a.id, &[c.id]).await.unwrap();
        let events = events.remove(&c.id).unwrap_or_default();
        let got = node["events"].as_array().unwrap();
        assert_eq!(got.len(), events.len());
        for (g, e) in got.iter().zip(&events) {
            // The single-valued GraphQL fields show the first of the event's sets.
            let mut model = serde_json::to_value(e).unwrap();
            model["container_number"] = json!(e.event.container_number());
            model["bill_of_lading"] = json!(e.event.bill_of_lading());
            model["booking"] = json!(e.event.booking());
            assert_same_values("TransportEvent", g, &model, &["voyage"]);
            let voyage = e
                .event
                .import_voyage
                .clone()
                .or(e.event.export_voyage.clone());
            assert_eq!(g["voyage"], json!(voyage));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_fields_are_batched() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id events { id } shipment { id containers { id } } } } }",
    )
    .await;
    assert!(data["containers"]["nodes"].as_array().unwrap().len() > 30);
    // One store call per nested field for the whole page (N+1 would be one per container or
    // shipment, here 30+). A second call is tolerated only for the case where a loaded thread
    // misses the DataLoader's 1 ms batching window.
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    for (name, n) in [
        ("shipments_by_ids", &calls.shipments_by_ids),
        ("events_of_containers", &calls.events_of_containers),
        ("containers_of_shipments", &calls.containers_of_shipments),
    ] {
        let n = n.load(Ordering::Relaxed);
        assert!((1..=2).contains(&n), "{name} was called {n} times");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn router_serves_graphiql_and_executes_with_the_account() {
    let f = fixture().await;
    let app = router(f.schema.clone());

    let response = app
        .clone()
        .oneshot(
            axum::http::Request::get("/graphql")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let html = response.into_body().collect().await.unwrap().to_bytes();
    let html = String::from_utf8_lossy(&html);
    assert!(
        html.contains("graphiql"),
        "GET /graphql should serve GraphiQL"
    );
    assert!(html.contains("/graphql"));

    let post = |account: Option<Account>| {
        let mut request = axum::http::Request::builder()
            .method(Method::POST)
            .uri("/graphql")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({ "query": "{ containers { totalCount } }" }).to_string(),
            ))
            .unwrap();
        if let Some(account) = account {
            request.extensions_mut().insert(account);
        }
        request
    };
    let (_, total) = f.store.list_containers(f.a.id, 0, 1).await.unwrap();
    for (account, want) in [
        (
            Some(f.a.clone()),
            json!({ "data": { "containers": { "totalCount": total } } }),
        ),
        (
            Some(f.b.clone()),
            json!({ "data": { "containers": { "totalCount": 0 } } }),
        ),
    ] {
        let response = app.clone().oneshot(post(account)).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body, want);
    }
    let response = app.oneshot(post(None)).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body["errors"][0]["extensions"]["code"],
        json!("UNAUTHENTICATED")
    );
}

#[test]
fn status_enum_matches_the_spec_values() {
    for status in model::ContainerStatus::ALL {
        let ours = ContainerStatus::from(status);
        let item = ContainerStatus::items()
            .iter()
            .find(|i| i.value == ours)
            .unwrap();
        assert_eq!(item.name, status.as_str().to_uppercase());
    }
    assert_eq!(
        ContainerStatus::items().len(),
        model::ContainerStatus::ALL.len()
    );
}

#[test]
fn schema_file_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema.graphql");
    let sdl = sdl();
    if std::env::var_os("UPDATE_SCHEMA").is_some_and(|v| v == "1") {
        std::fs::write(&path, &sdl).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == sdl,
        "{} is out of date with the schema; regenerate it with\n  \
         UPDATE_SCHEMA=1 cargo test --workspace --lib schema_file_is_up_to_date",
        path.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_deep_queries_are_refused() {
    let f = fixture().await;
    // containers.nodes.shipment.containers.shipment.containers.shipment.containers.shipment
    // .containers.shipment.containers.id: depth 13.
    let mut inner = String::from("id");
    for _ in 0..5 {
        inner = format!("shipment {{ containers {{ {inner} }} }}");
    }
    let query = format!("{{ containers {{ nodes {{ {inner} }} }} }}");
    let (data, errors) = run(&f.schema, Some(&f.a), &query).await;
    assert_eq!(data, Value::Null);
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("nested too deep"),
        "{errors:#?}"
    );
}

/// `SCREAMING_SNAKE` of a `/v2` snake_case enum value (`auto_select` → `AUTO_SELECT`).
fn enum_name(v: &Value) -> Value {
    json!(v.as_str().unwrap().to_uppercase())
}

const INFERRED_FIELDS: &str = "number numberType validation { isValid type checkDigitPassed reason } \
    shippingLine { decision selected { scac name confidence } candidates { scac name confidence } }";

/// Asserts a GraphQL `InferredNumber` carries the values of the pipeline's result (which `/v2`
/// serializes as they are).
fn assert_inferred(got: &Value, want: &teu_pipeline::infer::Inference) {
    let want = serde_json::to_value(want).unwrap();
    assert_eq!(got["number"], want["number"]);
    assert_eq!(got["numberType"], enum_name(&want["number_type"]));
    let (gv, wv) = (&got["validation"], &want["validation"]);
    assert_eq!(gv["isValid"], wv["is_valid"]);
    assert_eq!(gv["type"], enum_name(&wv["type"]));
    assert_eq!(gv["checkDigitPassed"], wv["check_digit_passed"]);
    assert_eq!(
        gv["reason"],
        wv.get("reason").cloned().unwrap_or(Value::Null)
    );
    let (gs, ws) = (&got["shippingLine"], &want["shipping_line"]);
    assert_eq!(gs["decision"], enum_name(&ws["decision"]));
    assert_eq!(
        gs["selected"],
        ws.get("selected").cloned().unwrap_or(Value::Null)
    );
    assert_eq!(gs["candidates"], ws["candidates"]);
}

const SAMPLE_NUMBERS: [&str; 7] = [
    "APZU 481209-0",
    "APZU2134567",
    "MEDU1234567",
    "TCLU 123456 5",
    "ABC709951",
    "not a number!",
    "reserved-HHL123",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infer_number_has_the_pipeline_values() {
    let f = fixture().await;
    let history = f.store.scac_history(f.a.id).await.unwrap();
    assert!(
        !history.owner.is_empty(),
        "the fixture gives account a a history"
    );
    for number in SAMPLE_NUMBERS {
        for (account, history) in [
            (&f.a, &history),
            (&f.b, teu_pipeline::infer::History::empty()),
        ] {
            let data = ok(
                &f.schema,
                account,
                &format!(
                    "{{ inferNumber(number: {}) {{ {INFERRED_FIELDS} }} }}",
                    json!(number)
                ),
            )
            .await;
            assert_inferred(
                &data["inferNumber"],
                &teu_pipeline::infer::infer(number, history),
            );
        }
    }
    // The DCSA sample container: auto-selected CMA CGM.
    let data = ok(
        &f.schema,
        &f.b,
        "{ inferNumber(number: \"APZU4812090\") { numberType validation { type checkDigitPassed } \
           shippingLine { decision selected { scac } } } }",
    )
    .await;
    assert_eq!(
        data["inferNumber"],
        json!({ "numberType": "CONTAINER",
                "validation": { "type": "CONTAINER", "checkDigitPassed": true },
                "shippingLine": { "decision": "AUTO_SELECT", "selected": { "scac": "CMDU" } } })
    );
    // A blank number is refused, naming the argument.
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        "{ inferNumber(number: \"  \") { number } }",
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["BAD_USER_INPUT"]);
    assert_eq!(errors[0]["extensions"]["field"], "number");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infer_numbers_keeps_order_and_caps_the_list() {
    let f = fixture().await;
    let history = f.store.scac_history(f.a.id).await.unwrap();
    let mut numbers: Vec<&str> = SAMPLE_NUMBERS.to_vec();
    numbers.extend(["", "APZU 481209-0", "???"]);
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ inferNumbers(numbers: {}) {{ {INFERRED_FIELDS} }} }}",
            json!(numbers)
        ),
    )
    .await;
    let got = data["inferNumbers"].as_array().unwrap();
    assert_eq!(got.len(), numbers.len());
    for (g, n) in got.iter().zip(&numbers) {
        assert_inferred(g, &teu_pipeline::infer::infer(n, &history));
    }
    // A blank entry is reported in its own result, not refused.
    assert_eq!(got[7]["validation"]["isValid"], false);
    assert!(got[7]["validation"]["reason"]
        .as_str()
        .unwrap()
        .contains("empty"));
    let data = ok(&f.schema, &f.a, "{ inferNumbers(numbers: []) { number } }").await;
    assert_eq!(data["inferNumbers"], json!([]));

    // At most MAX_BATCH numbers, sent as a variable like a real client would.
    for (n, accepted) in [(crate::MAX_BATCH, true), (crate::MAX_BATCH + 1, false)] {
        let list: Vec<String> = (0..n).map(|i| format!("MSKU{i:07}")).collect();
        let request =
            Request::new("query($n: [String!]!) { inferNumbers(numbers: $n) { number } }")
                .variables(async_graphql::Variables::from_json(json!({ "n": list })))
                .data(f.a.clone());
        let response = serde_json::to_value(f.schema.execute(request).await).unwrap();
        if accepted {
            assert!(response.get("errors").is_none(), "{:?}", response["errors"]);
            assert_eq!(
                response["data"]["inferNumbers"].as_array().unwrap().len(),
                n
            );
            assert_eq!(response["data"]["inferNumbers"][5]["number"], "MSKU0000005");
        } else {
            let errors = response["errors"].as_array().unwrap();
            assert_eq!(codes(errors), ["BAD_USER_INPUT"]);
            assert_eq!(errors[0]["extensions"]["field"], "numbers");
            assert!(errors[0]["message"].as_str().unwrap().contains("10000"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inference_rate_limit_is_shared_and_counts_each_field_once() {
    let f = fixture().await;
    let limiter = teu_pipeline::infer::limit::AccountLimiter::per_minute(3);
    let schema = schema(f.store.clone(), limiter.clone());
    // Four inference fields in one request, one of them a batch of three numbers: each field
    // counts one request, so exactly one of the four is refused.
    let (data, errors) = run(
        &schema,
        Some(&f.a),
        "{ a: inferNumber(number: \"APZU4812090\") { number } \
           b: inferNumbers(numbers: [\"MEDU1234567\", \"ABC709951\", \"X\"]) { number } \
           c: inferNumber(number: \"MEDU1234567\") { number } \
           d: inferNumber(number: \"TCLU1234565\") { number } }",
    )
    .await;
    assert_eq!(codes(&errors), ["RATE_LIMITED"], "{errors:#?}");
    let retry = errors[0]["extensions"]["retryAfter"].as_u64().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("3 inference requests per minute"));
    let refused = errors[0]["path"][0].as_str().unwrap();
    assert!(data[refused].is_null());
    let answered = ["a", "b", "c", "d"]
        .iter()
        .filter(|k| !data[**k].is_null())
        .count();
    assert_eq!(answered, 3, "{data}");
    // The allowance is the limiter's: the REST side (same limiter) is refused too.
    assert!(limiter.check(f.a.id).is_err());
    // Another account keeps its own allowance; other fields are not limited.
    ok(
        &schema,
        &f.b,
        "{ inferNumber(number: \"APZU4812090\") { number } }",
    )
    .await;
    ok(&schema, &f.a, "{ containers(first: 1) { totalCount } }").await;

    // Over HTTP the refusal also sets Retry-After.
    let app = router(schema);
    let mut request = axum::http::Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({ "query": "{ inferNumber(number: \"X\") { number } }" }).to_string(),
        ))
        .unwrap();
    request.extensions_mut().insert(f.a.clone());
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let retry: u64 = response.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
}

const TRACKING_FIELDS: &str =
    "id requestNumber requestType scac status createdAt updatedAt shipment { id }";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracking_requests_are_created_and_listed_through_the_domain_path() {
    let f = fixture().await;
    let create = |number: &str, kind: &str, scac: &str| {
        format!(
            "mutation {{ createTrackingRequest(input: {{ requestNumber: {}, requestType: {kind}, \
             scac: {} }}) {{ {TRACKING_FIELDS} }} }}",
            json!(number),
            json!(scac)
        )
    };
    // The sample container is stored: the request is linked at once.
    let data = ok(
        &f.schema,
        &f.a,
        &create("apzu 481209-0", "CONTAINER", "cmdu"),
    )
    .await;
    let linked = &data["createTrackingRequest"];
    assert_eq!(linked["requestNumber"], "APZU4812090");
    assert_eq!(linked["requestType"], "CONTAINER");
    assert_eq!(linked["scac"], "CMDU");
    assert_eq!(linked["status"], "CREATED");
    let shipment_id = linked["shipment"]["id"].as_str().unwrap().to_string();
    let id = linked["id"].as_str().unwrap().to_string();
    // The same request again is the same request (the /v2 id rule).
    let again = ok(&f.schema, &f.a, &create("APZU4812090", "CONTAINER", "CMDU")).await;
    assert_eq!(again["createTrackingRequest"]["id"], json!(id));
    let data = ok(
        &f.schema,
        &f.a,
        &create("ABCD1234567890", "BOOKING", "MAEU"),
    )
    .await;
    let pending = data["createTrackingRequest"].clone();
    assert_eq!(pending["status"], "PENDING");
    assert!(pending["shipment"].is_null());

    // The stored rows are the ones /v2 serves.
    let stored = f
        .store
        .tracking_request(f.a.id, id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, "created");
    assert_eq!(stored.shipment_id.map(|s| s.to_string()), Some(shipment_id));
    let mut model = serde_json::to_value(&stored).unwrap();
    model["request_type"] = enum_name(&model["request_type"]);
    model["status"] = enum_name(&model["status"]);
    assert_same_values("TrackingRequest", linked, &model, &["shipment"]);

    // Rule violations: BAD_USER_INPUT naming the input field, nothing stored.
    for (mutation, field, fragment) in [
        (
            create("", "CONTAINER", "CMDU"),
            "requestNumber",
            "requestNumber is required",
        ),
        (
            create("APZU#4812090", "CONTAINER", "CMDU"),
            "requestNumber",
            "letters and digits",
        ),
        (
            create("APZU4812090", "CONTAINER", "C-1"),
            "scac",
            "scac must be a SCAC",
        ),
        (
            create("APZU4812090", "CONTAINER", " "),
            "scac",
            "scac is required",
        ),
    ] {
        let (data, errors) = run(&f.schema, Some(&f.a), &mutation).await;
        assert_eq!(data, Value::Null, "{mutation}");
        assert_eq!(codes(&errors), ["BAD_USER_INPUT"], "{mutation}");
        assert_eq!(errors[0]["extensions"]["field"], field, "{mutation}");
        let message = errors[0]["message"].as_str().unwrap();
        assert!(message.contains(fragment), "{mutation}: {message}");
    }
    // A request type outside the enum is refused by GraphQL validation.
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        &create("APZU4812090", "PALLET", "CMDU"),
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(errors.len(), 1, "{errors:#?}");

    // The connection: newest first, the store's order and total.
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ trackingRequests {{ totalCount nodes {{ {TRACKING_FIELDS} }} }} \
               first: trackingRequests(first: 1) {{ totalCount edges {{ node {{ id }} }} pageInfo {{ hasNextPage }} }} }}"
        ),
    )
    .await;
    let (page, total) = f.store.list_tracking_requests(f.a.id, 0, 30).await.unwrap();
    assert_eq!(total, 2);
    assert_eq!(data["trackingRequests"]["totalCount"], json!(2));
    let want: Vec<String> = page.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(ids(&data["trackingRequests"]["nodes"]), want);
    assert_eq!(data["first"]["pageInfo"]["hasNextPage"], json!(true));
    assert_eq!(data["first"]["edges"][0]["node"]["id"], json!(want[0]));

    // By id; another account sees nothing.
    let q = format!(
        "{{ trackingRequest(id: \"{id}\") {{ id status }} trackingRequests {{ totalCount }} }}"
    );
    let data = ok(&f.schema, &f.a, &q).await;
    assert_eq!(data["trackingRequest"]["id"], json!(id));
    let data = ok(&f.schema, &f.b, &q).await;
    assert_eq!(
        data,
        json!({ "trackingRequest": null, "trackingRequests": { "totalCount": 0 } })
    );
    let data = ok(&f.schema, &f.a, "{ trackingRequest(id: \"nope\") { id } }").await;
    assert_eq!(data["trackingRequest"], Value::Null);
    let (_, errors) = run(&f.schema, None, &create("APZU4812090", "CONTAINER", "CMDU")).await;
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}

const SUBMISSION_FIELDS: &str = "id subject body from to cc sentAt messageId inReplyTo references \
    contentType documentsCount createdAt updatedAt";
const DOCUMENT_FIELDS: &str = "id fileName mediaType byteSize sha256 createdAt";
const REPRESENTATION_FIELDS: &str = "id kind mediaType byteSize sha256 createdAt";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_submissions_have_the_store_values_and_stay_in_their_account() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ emailSubmissions {{ totalCount nodes {{ {SUBMISSION_FIELDS} \
               account {{ id companyName }} \
               documents {{ {DOCUMENT_FIELDS} lastDocumentRepresentation {{ {REPRESENTATION_FIELDS} }} }} }} }} }}"
        ),
    )
    .await;
    let (stored, total) = f
        .store
        .list_email_submissions(f.a.id, 0, 100)
        .await
        .unwrap();
    assert_eq!(total, demo_emails().len() as i64);
    assert_eq!(data["emailSubmissions"]["totalCount"], json!(total));
    let nodes = data["emailSubmissions"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), stored.len());
    let mut documents_seen = 0;
    for (node, e) in nodes.iter().zip(&stored) {
        assert_same_values(
            "EmailSubmission",
            node,
            &serde_json::to_value(e).unwrap(),
            &["account", "documents"],
        );
        assert_eq!(
            node["account"],
            json!({ "id": f.a.id.to_string(), "companyName": f.a.company_name })
        );
        assert_eq!(node["to"][0], "demo@inbound.teu.local");
        let documents = node["documents"].as_array().unwrap();
        assert_eq!(documents.len() as i64, e.documents_count);
        assert!(e.documents_count >= 1, "every demo email has a PDF");
        let want_ids: Vec<String> = e.document_ids.iter().map(Uuid::to_string).collect();
        assert_eq!(ids(&node["documents"]), want_ids, "message order");
        let models = f
            .store
            .documents_by_ids(f.a.id, &e.document_ids)
            .await
            .unwrap();
        for d in documents {
            documents_seen += 1;
            let model = models
                .iter()
                .find(|m| m.id.to_string() == d["id"].as_str().unwrap())
                .unwrap();
            assert_same_values(
                "Document",
                d,
                &serde_json::to_value(model).unwrap(),
                &["last_document_representation"],
            );
            assert_eq!(d["mediaType"], "application/pdf");
            let reps = f
                .store
                .document_representations_by_ids(f.a.id, &[model.last_document_representation_id])
                .await
                .unwrap();
            assert_same_values(
                "DocumentRepresentation",
                &d["lastDocumentRepresentation"],
                &serde_json::to_value(&reps[0]).unwrap(),
                &[],
            );
            assert_eq!(d["lastDocumentRepresentation"]["kind"], "original");
            assert_eq!(d["lastDocumentRepresentation"]["sha256"], d["sha256"]);
        }
    }
    assert!(documents_seen >= 4, "{documents_seen}");
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    for (name, n) in [
        ("documents_by_ids", &calls.documents_by_ids),
        (
            "document_representations_by_ids",
            &calls.document_representations_by_ids,
        ),
    ] {
        let n = n.load(Ordering::Relaxed);
        assert!((1..=2).contains(&n), "{name} was called {n} times");
    }

    // By id, and never across accounts.
    let id = stored[0].id.to_string();
    let q = format!(
        "{{ emailSubmission(id: \"{id}\") {{ id messageId documents {{ id }} }} \
           emailSubmissions(first: 1) {{ totalCount edges {{ node {{ id }} }} }} }}"
    );
    let data = ok(&f.schema, &f.a, &q).await;
    assert_eq!(data["emailSubmission"]["id"], json!(id));
    assert_eq!(
        data["emailSubmission"]["messageId"],
        json!(stored[0].message_id)
    );
    assert_eq!(
        data["emailSubmissions"]["edges"][0]["node"]["id"],
        json!(id)
    );
    let data = ok(&f.schema, &f.b, &q).await;
    assert_eq!(
        data,
        json!({ "emailSubmission": null, "emailSubmissions": { "totalCount": 0, "edges": [] } })
    );
    let data = ok(
        &f.schema,
        &f.a,
        "{ emailSubmission(id: \"not-a-uuid\") { id } }",
    )
    .await;
    assert_eq!(data["emailSubmission"], Value::Null);
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        "{ emailSubmissions(first: 101) { totalCount } }",
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["BAD_USER_INPUT"]);
}

const SCHEMA_FIELDS: &str = "id documentType label schemaVersion fullVersion current draft \
    activeAt schemaFormat description schemaPayload createdAt updatedAt";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_schemas_by_id_and_by_type() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.b,
        &format!(
            "{{ one: documentSchema(id: \"bill_of_lading@1.0\") {{ {SCHEMA_FIELDS} }} \
               all: documentSchemas {{ id }} \
               notices: documentSchemas(documentType: \"arrival_notice\") {{ id documentType }} \
               none: documentSchemas(documentType: \"menu\") {{ id }} \
               missing: documentSchema(id: \"bill_of_lading@9.9\") {{ id }} }}"
        ),
    )
    .await;
    let model = f
        .store
        .document_schema("bill_of_lading@1.0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(data["one"]["id"], "bill_of_lading@1.0");
    assert_same_values(
        "DocumentSchema",
        &data["one"],
        &serde_json::to_value(&model).unwrap(),
        &["id", "schema_payload"],
    );
    // The payload is the JSON Schema object itself, not a string.
    assert_eq!(data["one"]["schemaPayload"], model.schema_payload);
    assert_eq!(data["one"]["schemaPayload"]["type"], "object");
    let all: Vec<String> = f
        .store
        .document_schemas(None)
        .await
        .unwrap()
        .iter()
        .map(|s| s.full_version.clone())
        .collect();
    assert_eq!(all.len(), 5);
    assert_eq!(ids(&data["all"]), all);
    assert_eq!(
        data["notices"],
        json!([{ "id": "arrival_notice@1.0", "documentType": "arrival_notice" }])
    );
    assert_eq!(data["none"], json!([]));
    assert_eq!(data["missing"], Value::Null);
    let (_, errors) = run(&f.schema, None, "{ documentSchemas { id } }").await;
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}

/// A store with [`N_PLUS_ONE_SHIPMENTS`] generated shipments (well over 100 containers) and
/// their terminal availability (holds, fees, last free days), line deadlines and rail legs.
const N_PLUS_ONE: teu_synth::dcsa::GenOptions = teu_synth::dcsa::GenOptions {
    shipments: 45,
    seed: 5,
    events_per_file: 0,
};

/// The statements one query costs, counted by the store.
async fn statements_of(schema: &TeuSchema, store: &Store, account: &Account, query: &str) -> u64 {
    let before = store.statement_count();
    let data = ok(schema, account, query).await;
    assert!(data.is_object());
    store.statement_count() - before
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_costs_a_constant_number_of_statements() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let (a, _) = store.create_account("a", false).await.unwrap();
    let generated = teu_synth::dcsa::generate(&N_PLUS_ONE);
    let extra = teu_synth::terminal::extra_feeds(&generated, N_PLUS_ONE.seed);
    for file in generated {
        let batch =
            teu_pipeline::feeds::dcsa::read_value(Value::Array(file.events), &file.name).unwrap();
        teu_pipeline::ingest::ingest_batch(&store, &a, batch)
            .await
            .unwrap();
    }
    for (name, content) in extra.files {
        let batch = teu_pipeline::feeds::read_bytes(content.as_bytes(), &name).unwrap();
        teu_pipeline::ingest::ingest_batch(&store, &a, batch)
            .await
            .unwrap();
    }
    let schema = schema(
        store.clone(),
        teu_pipeline::infer::limit::AccountLimiter::default(),
    );
    let (_, total) = store.list_containers(a.id, 0, 1).await.unwrap();
    assert!(total >= 100, "only {total} containers");

    let page = |n: u32| {
        format!(
            "{{ containers(first: {n}) {{ totalCount nodes {{ number currentStatus hasHolds \
               holdsAtPodTerminal {{ name status }} feesAtPodTerminal {{ type amount }} pickupLfd \
               podTerminal {{ name port {{ locode }} }} vessels {{ imo name }} \
               shipment {{ billOfLadingNumber podEtaAt podTimezone portOfDischarge {{ name }} }} \
               events {{ code eventAt timezone vessel {{ imo }} }} }} }} }}"
        )
    };
    let small = statements_of(&schema, &store, &a, &page(10)).await;
    let large = statements_of(&schema, &store, &a, &page(100)).await;
    println!("containers page: 10 → {small} statements, 100 → {large} statements");
    // count + page, one batch of shipments, one batch of events: 4.
    assert!(large <= 8, "{large} statements for 100 containers");
    assert_eq!(small, large, "the cost must not grow with the page");

    let shipments = |n: u32| {
        format!(
            "{{ shipments(first: {n}, filter: {{hasHolds: false}}, orderBy: POD_ETA_ASC) {{ nodes {{ \
               billOfLadingNumber portOfLading {{ name }} podVessel {{ name }} \
               containers {{ number hasHolds events {{ code }} shipment {{ id }} }} }} }} }}"
        )
    };
    let small = statements_of(&schema, &store, &a, &shipments(5)).await;
    let large = statements_of(&schema, &store, &a, &shipments(40)).await;
    println!("shipments page: 5 → {small} statements, 40 → {large} statements");
    assert!(large <= 8, "{large} statements for 40 shipments");
    assert_eq!(small, large, "the cost must not grow with the page");
}
