//! End-to-end tests of webhooks: the real binary on a random port, a real HTTP receiver in the
//! test process, SQLite (and PostgreSQL when `TEU_TEST_POSTGRES_URL` is set).
//!
//! What is checked comes from Terminal49's webhooks guide and payload reference: a signed
//! JSON:API document per notification (`X-T49-Webhook-Signature` = hex HMAC-SHA256 of the raw
//! body with the webhook's secret), `data.id` the same on every retry, one container event per
//! container, and the delivery status visible in `GET /v2/webhook_notifications`.

#[macro_use]
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use common::{data, Server, TestDb};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

on_both_backends!(
    webhooks_are_managed_with_pointed_errors,
    an_ingest_is_delivered_signed_and_retried,
    notifications_wait_in_the_outbox_for_a_server,
    two_servers_deliver_each_notification_once,
    transport_events_are_notified_once_per_container_and_event,
    file_order_does_not_change_the_transport_notifications,
    a_box_joining_a_stored_shipment_notifies_only_itself
);

/// Lets the server deliver to the test's loopback receiver, and retry fast.
const ENV: &[(&str, &str)] = &[
    ("TEU_WEBHOOK_ALLOW_PRIVATE", "true"),
    ("TEU_WEBHOOK_RETRY_BASE_MS", "200"),
];

/// One delivery as the receiver saw it.
#[derive(Clone, Debug)]
struct Delivery {
    signature: String,
    extra: Option<String>,
    body: Bytes,
}

impl Delivery {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

#[derive(Clone, Default)]
struct Receiver {
    seen: Arc<Mutex<Vec<Delivery>>>,
    /// Answer 503 to the first delivery of each event named here.
    fail_first: Arc<Mutex<BTreeSet<String>>>,
}

async fn receive(State(r): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let d = Delivery {
        signature: headers
            .get("x-t49-webhook-signature")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string(),
        extra: headers
            .get("x-secret-sauce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        body,
    };
    let event = d.json()["data"]["attributes"]["event"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    r.seen.lock().unwrap().push(d);
    if r.fail_first.lock().unwrap().remove(&event) {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::NO_CONTENT
    }
}

/// Starts a receiver on a random loopback port; returns it and its URL.
async fn receiver() -> (Receiver, String) {
    let r = Receiver::default();
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(r.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (r, url)
}

async fn send(server: &Server, method: &str, path: &str, key: &str, body: Value) -> (u16, Value) {
    let req = server
        .client()
        .request(method.parse().unwrap(), format!("{}{path}", server.base))
        .header("Authorization", format!("Token {key}"))
        .json(&body);
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn hook(url: &str, events: &[&str]) -> Value {
    json!({"data": {"type": "webhook", "attributes": {
        "url": url, "active": true, "events": events,
        "headers": [{"name": "X-Secret-Sauce", "value": "sriracha"}]
    }}})
}

fn valid(secret: &str, d: &Delivery) -> bool {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(&d.body);
    hex::encode(mac.finalize().into_bytes()) == d.signature
}

/// Waits until `done` holds for what the receiver saw (at most 60 s).
async fn wait_for(r: &Receiver, what: &str, done: impl Fn(&[Delivery]) -> bool) -> Vec<Delivery> {
    let start = Instant::now();
    loop {
        let seen = r.seen.lock().unwrap().clone();
        if done(&seen) {
            return seen;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}; saw {:?}",
            seen.iter()
                .map(|d| d.json()["data"]["attributes"]["event"].clone())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn events_of(seen: &[Delivery]) -> Vec<String> {
    seen.iter()
        .map(|d| {
            d.json()["data"]["attributes"]["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Container numbers of the stored containers, through `/v2`.
async fn container_numbers(server: &Server, key: &str) -> BTreeMap<String, String> {
    let (status, body) = server.get("/v2/containers?page[size]=100", Some(key)).await;
    assert_eq!(status, 200, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["attributes"]["number"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn webhooks_are_managed_with_pointed_errors(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    let server = Server::start_with_env(db, &[], ENV);

    let (status, created) = send(
        &server,
        "POST",
        "/v2/webhooks",
        &key,
        hook("https://example.com/t49", &["container.updated"]),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_string();
    let attrs = &created["data"]["attributes"];
    assert_eq!(created["data"]["type"], "webhook");
    assert_eq!(attrs["url"], "https://example.com/t49");
    assert_eq!(attrs["active"], true);
    assert_eq!(attrs["events"], json!(["container.updated"]));
    assert_eq!(
        attrs["headers"],
        json!([{"name": "X-Secret-Sauce", "value": "sriracha"}])
    );
    assert_eq!(attrs["secret"].as_str().unwrap().len(), 64);

    // Each broken rule is a 422 pointing at its member.
    for (body, pointer) in [
        (json!({"data": {"type": "shipment"}}), "/data/type"),
        (
            hook("ftp://example.com", &["container.updated"]),
            "/data/attributes/url",
        ),
        (hook("https://example.com", &[]), "/data/attributes/events"),
        (
            hook(
                "https://example.com",
                &["container.updated", "container.sunk"],
            ),
            "/data/attributes/events/1",
        ),
        (
            hook(
                "https://example.com",
                &["container.updated", "container.updated"],
            ),
            "/data/attributes/events/1",
        ),
        (
            json!({"data": {"type": "webhook", "attributes": {"url": "https://example.com",
                "headers": [{"name": "Content-Type", "value": "text/plain"}]}}}),
            "/data/attributes/headers/0/name",
        ),
        (
            json!({"data": {"type": "webhook", "attributes": {"active": true}}}),
            "/data/attributes/url",
        ),
    ] {
        let (status, err) = send(&server, "POST", "/v2/webhooks", &key, body).await;
        assert_eq!(status, 422, "{err}");
        assert_eq!(err["errors"][0]["source"]["pointer"], pointer, "{err}");
    }

    // Read, list, update, and the other account sees none of it.
    let (status, one) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(one["data"], created["data"]);
    let (status, list) = server.get("/v2/webhooks", Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(list["meta"]["total"], 1);
    let (status, patched) = send(
        &server,
        "PATCH",
        &format!("/v2/webhooks/{id}"),
        &key,
        json!({"data": {"type": "webhook", "attributes": {"active": false,
            "events": ["container.created", "tracking_request.succeeded"]}}}),
    )
    .await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["data"]["attributes"]["active"], false);
    assert_eq!(
        patched["data"]["attributes"]["url"],
        "https://example.com/t49"
    );
    assert_eq!(
        patched["data"]["attributes"]["secret"],
        created["data"]["attributes"]["secret"]
    );
    let (status, _) = server
        .get(&format!("/v2/webhooks/{id}"), Some(&other))
        .await;
    assert_eq!(status, 404);
    let (status, _) = send(
        &server,
        "DELETE",
        &format!("/v2/webhooks/{id}"),
        &other,
        json!({}),
    )
    .await;
    assert_eq!(status, 404);
    let (_, list) = server.get("/v2/webhooks", Some(&other)).await;
    assert_eq!(list["meta"]["total"], 0);

    // The catalog, and an example payload of one event.
    let (status, events) = server.get("/v2/webhooks/events", Some(&key)).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["attributes"]["events"].as_array().unwrap())
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"container.transport.vessel_discharged"));
    assert!(names.contains(&"tracking_request.succeeded"));
    let (status, example) = server
        .get(
            "/v2/webhook_notifications/examples?event=container.updated",
            Some(&key),
        )
        .await;
    assert_eq!(status, 200, "{example}");
    assert_eq!(example["data"][0]["type"], "webhook_notification");
    assert_eq!(
        example["data"][0]["attributes"]["event"],
        "container.updated"
    );
    let (status, _) = server
        .get("/v2/webhook_notifications/examples?event=nope", Some(&key))
        .await;
    assert_eq!(status, 400);

    // Delete.
    let (status, _) = send(
        &server,
        "DELETE",
        &format!("/v2/webhooks/{id}"),
        &key,
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(status, 404);
}

async fn an_ingest_is_delivered_signed_and_retried(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    let server = Server::start_with_env(db, &[], ENV);
    let (r, url) = receiver().await;
    r.fail_first
        .lock()
        .unwrap()
        .insert("tracking_request.succeeded".into());
    let (status, created) = send(
        &server,
        "POST",
        "/v2/webhooks",
        &key,
        hook(
            &url,
            &[
                "tracking_request.succeeded",
                "tracking_request.tracking_stopped",
                "container.created",
                "container.updated",
                "container.transport.vessel_arrived",
                "container.transport.vessel_discharged",
                "container.transport.vessel_departed",
            ],
        ),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let secret = created["data"]["attributes"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, request) = send(
        &server,
        "POST",
        "/v2/tracking_requests",
        &key,
        json!({"data": {"type": "tracking_request", "attributes": {
            "request_number": "APZU4812090", "scac": "CMDU", "request_type": "container"}}}),
    )
    .await;
    assert_eq!(status, 201, "{request}");
    let request_id = request["data"]["id"].as_str().unwrap().to_string();

    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let containers = container_numbers(&server, &key).await;
    assert!(!containers.is_empty());

    // Every container is created once; the request succeeds (after one 503, retried).
    let seen = wait_for(&r, "the ingest's notifications", |seen| {
        let events = events_of(seen);
        events
            .iter()
            .filter(|e| *e == "tracking_request.succeeded")
            .count()
            == 2
            && events.iter().filter(|e| *e == "container.created").count() == containers.len()
    })
    .await;
    for d in &seen {
        assert!(valid(&secret, d), "bad signature on {}", d.json());
        assert_eq!(d.extra.as_deref(), Some("sriracha"));
        let doc = d.json();
        assert_eq!(doc["data"]["type"], "webhook_notification");
        assert_eq!(
            doc["data"]["relationships"]["webhook"]["data"]["id"],
            created["data"]["id"]
        );
    }
    let tr: Vec<&Delivery> = seen
        .iter()
        .filter(|d| d.json()["data"]["attributes"]["event"] == "tracking_request.succeeded")
        .collect();
    assert_eq!(tr[0].body, tr[1].body, "a retry sends the same bytes");
    let doc = tr[0].json();
    assert_eq!(
        doc["data"]["relationships"]["reference_object"]["data"],
        json!({"id": request_id, "type": "tracking_request"})
    );
    let included = doc["included"].as_array().unwrap();
    assert!(included
        .iter()
        .any(|r| r["type"] == "tracking_request" && r["id"] == request_id.as_str()));
    // container.created names each container, and includes it and its shipment.
    let mut created_for = BTreeSet::new();
    for d in seen
        .iter()
        .filter(|d| d.json()["data"]["attributes"]["event"] == "container.created")
    {
        let doc = d.json();
        let container = doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["type"] == "container")
            .expect("container included")
            .clone();
        assert!(doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["type"] == "shipment"));
        created_for.insert(container["id"].as_str().unwrap().to_string());
    }
    assert_eq!(
        created_for,
        containers.keys().cloned().collect::<BTreeSet<_>>()
    );

    // The notifications list shows each delivery's status; the retried one succeeded.
    let start = Instant::now();
    loop {
        let (status, list) = server
            .get("/v2/webhook_notifications?page[size]=100", Some(&key))
            .await;
        assert_eq!(status, 200, "{list}");
        let statuses: Vec<&str> = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["attributes"]["delivery_status"].as_str().unwrap())
            .collect();
        if statuses.iter().all(|s| *s == "succeeded") {
            let ids: BTreeSet<&str> = list["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["id"].as_str().unwrap())
                .collect();
            let delivered: BTreeSet<String> = seen
                .iter()
                .map(|d| d.json()["data"]["id"].as_str().unwrap().to_string())
                .collect();
            assert!(delivered.iter().all(|id| ids.contains(id.as_str())));
            let one = ids.iter().next().unwrap();
            let (status, got) = server
                .get(&format!("/v2/webhook_notifications/{one}"), Some(&key))
                .await;
            assert_eq!(status, 200);
            assert_eq!(got["data"]["attributes"]["delivery_status"], "succeeded");
            let (status, _) = server
                .get(&format!("/v2/webhook_notifications/{one}"), Some(&other))
                .await;
            assert_eq!(status, 404);
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{statuses:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, theirs) = server.get("/v2/webhook_notifications", Some(&other)).await;
    assert_eq!(theirs["meta"]["total"], 0);

    // Stopping the shipment's tracking tells the tracking request's webhook.
    let (_, tr_now) = server
        .get(&format!("/v2/tracking_requests/{request_id}"), Some(&key))
        .await;
    let shipment_id = tr_now["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .expect("linked shipment")
        .to_string();
    let (status, body) = server
        .graphql(
            Some(&key),
            "mutation($s: ID!) { stopTracking(shipmentId: $s) { id } }",
            json!({ "s": shipment_id }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let seen = wait_for(&r, "tracking_request.tracking_stopped", |seen| {
        events_of(seen)
            .iter()
            .any(|e| e == "tracking_request.tracking_stopped")
    })
    .await;
    let stopped = seen
        .iter()
        .find(|d| d.json()["data"]["attributes"]["event"] == "tracking_request.tracking_stopped")
        .unwrap()
        .json();
    assert_eq!(
        stopped["data"]["relationships"]["reference_object"]["data"],
        json!({"id": request_id, "type": "tracking_request"})
    );

    // The same file again changes nothing and notifies nothing.
    let (_, before) = server.get("/v2/webhook_notifications", Some(&key)).await;
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, after) = server.get("/v2/webhook_notifications", Some(&key)).await;
    assert_eq!(before["meta"]["total"], after["meta"]["total"]);
}

async fn notifications_wait_in_the_outbox_for_a_server(db: &TestDb) {
    // The ingest commits its notifications while no server runs (as if the server had been
    // killed between the commit and the delivery); a server started later delivers them.
    let key = db.create_account("acme");
    let (r, url) = receiver().await;
    let server = Server::start_with_env(db, &["--no-webhook-delivery"], ENV);
    let (status, _) = send(
        &server,
        "POST",
        "/v2/webhooks",
        &key,
        hook(&url, &["container.created"]),
    )
    .await;
    assert_eq!(status, 201);
    drop(server);
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(r.seen.lock().unwrap().is_empty());
    let server = Server::start_with_env(db, &[], ENV);
    let n = container_numbers(&server, &key).await.len();
    assert!(n > 0);
    let seen = wait_for(&r, "the waiting notifications", |s| s.len() >= n).await;
    assert_eq!(events_of(&seen), vec!["container.created".to_string(); n]);
}

async fn two_servers_deliver_each_notification_once(db: &TestDb) {
    let key = db.create_account("acme");
    let (r, url) = receiver().await;
    let a = Server::start_with_env(db, &[], ENV);
    let b = Server::start_with_env(db, &[], ENV);
    let (status, _) = send(
        &a,
        "POST",
        "/v2/webhooks",
        &key,
        hook(
            &url,
            &[
                "container.created",
                "container.transport.vessel_departed",
                "container.transport.vessel_arrived",
                "container.transport.vessel_discharged",
            ],
        ),
    )
    .await;
    assert_eq!(status, 201);
    let feed = common::generated_feed(20, 7);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let (_, list) = a
        .get("/v2/webhook_notifications?page[size]=1", Some(&key))
        .await;
    let total = list["meta"]["total"].as_u64().unwrap() as usize;
    assert!(total >= 20, "{list}");
    let seen = wait_for(&r, "every notification", |s| s.len() >= total).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let seen_after = r.seen.lock().unwrap().len();
    assert_eq!(seen_after, seen.len(), "no notification delivered twice");
    let ids: BTreeSet<String> = seen
        .iter()
        .map(|d| d.json()["data"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), total);
    drop(b);
}

/// Every `container.transport.*` milestone (not the estimates, not availability): what a
/// webhook of the per-event tests subscribes to.
const MILESTONES: &[&str] = &[
    "container.transport.empty_out",
    "container.transport.full_in",
    "container.transport.vessel_loaded",
    "container.transport.vessel_departed",
    "container.transport.transshipment_arrived",
    "container.transport.transshipment_discharged",
    "container.transport.transshipment_loaded",
    "container.transport.transshipment_departed",
    "container.transport.vessel_arrived",
    "container.transport.vessel_discharged",
    "container.transport.full_out",
    "container.transport.rail_loaded",
    "container.transport.rail_departed",
    "container.transport.rail_arrived",
    "container.transport.rail_unloaded",
    "container.transport.arrived_at_inland_destination",
    "container.transport.empty_in",
];

/// One delivered transport notification as the receiver read it from the payload's
/// `transport_event`: (container number, event, UN/LOCODE, timestamp, voyage, vessel id).
type Milestone = (
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

/// The transport notifications of `seen`, read from each payload (the reference object and
/// the included container).
fn milestones(seen: &[Delivery]) -> Vec<Milestone> {
    seen.iter()
        .map(|d| {
            let doc = d.json();
            let reference = &doc["data"]["relationships"]["reference_object"]["data"];
            let included = doc["included"].as_array().cloned().unwrap_or_default();
            let event = included
                .iter()
                .find(|r| r["type"] == "transport_event" && r["id"] == reference["id"])
                .unwrap_or_else(|| panic!("no transport_event in {doc}"));
            let number = included
                .iter()
                .find(|r| r["type"] == "container")
                .map(|c| c["attributes"]["number"].as_str().unwrap_or("").to_string())
                .unwrap_or_default();
            let a = &event["attributes"];
            (
                number,
                a["event"].as_str().unwrap_or("").to_string(),
                a["location_locode"].as_str().unwrap_or("").to_string(),
                a["timestamp"].as_str().unwrap_or("").to_string(),
                a["voyage_number"].as_str().map(str::to_string),
                event["relationships"]["vessel"]["data"]["id"]
                    .as_str()
                    .map(str::to_string),
            )
        })
        .collect()
}

/// The account's notification count (`GET /v2/webhook_notifications`, `meta.total`): written
/// in the ingest's transaction, so exact as soon as `teu ingest` returns.
async fn notification_total(server: &Server, key: &str) -> u64 {
    let (status, list) = server.get("/v2/webhook_notifications", Some(key)).await;
    assert_eq!(status, 200, "{list}");
    list["meta"]["total"].as_u64().expect("meta.total")
}

/// A webhook on every milestone for `key`'s account, delivering to a new receiver.
async fn milestone_hook(server: &Server, key: &str) -> Receiver {
    let (r, url) = receiver().await;
    let (status, created) = send(server, "POST", "/v2/webhooks", key, hook(&url, MILESTONES)).await;
    assert_eq!(status, 201, "{created}");
    r
}

/// Waits until the receiver has every one of the account's `total` notifications.
async fn all_delivered(r: &Receiver, total: u64) -> Vec<Milestone> {
    let seen = wait_for(r, "every notification", |seen| seen.len() as u64 >= total).await;
    milestones(&seen)
}

/// `(number, event, locode, timestamp, voyage, IMO)` written by hand, as [`Milestone`].
fn m(
    number: &str,
    event: &str,
    locode: &str,
    at: &str,
    voyage: Option<&str>,
    imo: Option<&str>,
) -> Milestone {
    (
        number.to_string(),
        format!("container.transport.{event}"),
        locode.to_string(),
        at.to_string(),
        voyage.map(str::to_string),
        imo.map(|i| teu_pipeline::ids::vessel_id(i).to_string()),
    )
}

async fn transport_events_are_notified_once_per_container_and_event(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start_with_env(db, &[], ENV);
    let r = milestone_hook(&server, &key).await;
    let case = data("dcsa-cases/04-transshipment-rolled/events.json");
    db.ingest("acme", std::slice::from_ref(&case));
    let total = notification_total(&server, &key).await;
    let mut got = all_delivered(&r, total).await;
    got.sort();

    // Written by hand from the case's events (data/dcsa-cases/04-transshipment-rolled): the box
    // is loaded at Ho Chi Minh (VNSGN) on the feeder 9312345 voyage 254S, which departs, arrives
    // at Singapore (SGSIN) and discharges it there: the transshipment port. It is loaded on
    // 9454436 voyage 256W, which departs; Hamburg (DEHAM) is only estimated, so nothing at the
    // POD. The actual arrival of 9321488 (255W) at Singapore, the vessel the box was planned on
    // but never loaded onto, is not the box's. Plans and estimates notify no milestone.
    // vessel_departed comes from the derived pol_atd_at rule, which says the shipment's
    // voyage: its voyage and vessel are left out of the comparison.
    let feeder = Some("9312345");
    let mother = Some("9454436");
    let b = "MSKU4000010";
    let mut want = vec![
        m(
            b,
            "vessel_loaded",
            "VNSGN",
            "2026-09-01T08:00:00Z",
            Some("254S"),
            feeder,
        ),
        m(
            b,
            "vessel_departed",
            "VNSGN",
            "2026-09-01T20:00:00Z",
            None,
            None,
        ),
        m(
            b,
            "transshipment_arrived",
            "SGSIN",
            "2026-09-04T06:00:00Z",
            Some("254S"),
            feeder,
        ),
        m(
            b,
            "transshipment_discharged",
            "SGSIN",
            "2026-09-04T12:00:00Z",
            Some("254S"),
            feeder,
        ),
        m(
            b,
            "transshipment_loaded",
            "SGSIN",
            "2026-09-13T08:00:00Z",
            Some("256W"),
            mother,
        ),
        m(
            b,
            "transshipment_departed",
            "SGSIN",
            "2026-09-13T22:00:00Z",
            Some("256W"),
            mother,
        ),
    ];
    want.sort();
    for g in &mut got {
        if g.1.ends_with("vessel_departed") {
            (g.4, g.5) = (None, None);
        }
    }
    assert_eq!(got, want, "one notification per milestone of the box");

    // The same file again, and a late file with an older version of a stored event (same
    // eventID, issued earlier), link nothing new: nothing is notified.
    db.ingest("acme", std::slice::from_ref(&case));
    let mut events: Vec<Value> =
        serde_json::from_slice(&std::fs::read(&case).expect("case")).expect("JSON");
    let mut late = events.swap_remove(0);
    assert_eq!(late["equipmentEventTypeCode"], "LOAD");
    late["eventCreatedDateTime"] = json!("2026-09-01T08:30:00Z");
    let dir = tempfile::tempdir().expect("temp dir");
    let late_file = dir.path().join("late.json");
    std::fs::write(
        &late_file,
        serde_json::to_vec(&json!([late])).expect("JSON"),
    )
    .expect("write");
    db.ingest("acme", &[late_file]);
    assert_eq!(notification_total(&server, &key).await, total);
}

async fn file_order_does_not_change_the_transport_notifications(db: &TestDb) {
    // Two accounts of one database: one ingests the files of case 02 in their order, the other
    // reversed (data/dcsa-cases/02-booking-then-bill: the box's events name only the booking;
    // the second file pairs the booking with the bill of lading).
    let files = [
        data("dcsa-cases/02-booking-then-bill/1-booking.json"),
        data("dcsa-cases/02-booking-then-bill/2-bill.json"),
    ];
    let forward = db.create_account("forward");
    let reverse = db.create_account("reverse");
    let server = Server::start_with_env(db, &[], ENV);
    let rf = milestone_hook(&server, &forward).await;
    let rr = milestone_hook(&server, &reverse).await;
    for f in &files {
        db.ingest("forward", std::slice::from_ref(f));
    }
    for f in files.iter().rev() {
        db.ingest("reverse", std::slice::from_ref(f));
    }
    // Compared: event, place, time; and voyage and vessel of the per-event milestones. Not the
    // container number: in file order the box is first keyed by its booking, and that
    // container is replaced by the bill of lading's when the second file arrives, so a payload
    // rendered later no longer includes it; and the derived vessel_departed is notified once
    // per container id, so once for each (docs/NOTES.md, issue 19).
    let read = |got: Vec<Milestone>| -> (BTreeSet<Milestone>, usize) {
        let per_event = got
            .iter()
            .filter(|g| !g.1.ends_with("vessel_departed"))
            .count();
        let set = got
            .into_iter()
            .map(|(_, event, at, time, voyage, vessel)| {
                if event.ends_with("vessel_departed") {
                    (String::new(), event, at, time, None, None)
                } else {
                    (String::new(), event, at, time, voyage, vessel)
                }
            })
            .collect();
        (set, per_event)
    };
    let total = notification_total(&server, &forward).await;
    let (got_forward, per_event_forward) = read(all_delivered(&rf, total).await);
    let total = notification_total(&server, &reverse).await;
    let (got_reverse, per_event_reverse) = read(all_delivered(&rr, total).await);

    // By hand from the case: an empty box out at Singapore, back in laden (at the POL: full_in),
    // loaded on 9778844 voyage 252E, which departs; New York is only estimated.
    let vessel = Some("9778844");
    let want: BTreeSet<Milestone> = [
        m("", "empty_out", "SGSIN", "2026-09-10T08:00:00Z", None, None),
        m("", "full_in", "SGSIN", "2026-09-12T08:00:00Z", None, None),
        m(
            "",
            "vessel_loaded",
            "SGSIN",
            "2026-09-14T08:00:00Z",
            Some("252E"),
            vessel,
        ),
        m(
            "",
            "vessel_departed",
            "SGSIN",
            "2026-09-15T02:00:00Z",
            None,
            None,
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        got_reverse, got_forward,
        "the same milestones in either order"
    );
    assert_eq!(got_forward, want);
    assert_eq!(
        (per_event_forward, per_event_reverse),
        (3, 3),
        "each event once"
    );
}

/// Every notification of the database as `(event, container id)`, sorted: read from
/// `webhook_notifications` itself, written in the ingest's transaction.
async fn notifications(db: &TestDb) -> Vec<(String, Option<String>)> {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let mut rows: Vec<(String, Option<String>)> =
        teu_store::db::query("SELECT event, container_id FROM webhook_notifications")
            .fetch_all(&mut conn)
            .await
            .expect("notifications")
            .iter()
            .map(|r| {
                // Ids as their 16 bytes (migration 46).
                let container = r
                    .try_get::<Option<Vec<u8>>, _>("container_id")
                    .expect("column")
                    .map(|b| uuid::Uuid::from_slice(&b).expect("16-byte id").to_string());
                (r.try_get("event").expect("column"), container)
            })
            .collect();
    rows.sort();
    rows
}

async fn a_box_joining_a_stored_shipment_notifies_only_itself(db: &TestDb) {
    // Case 04's box MSKU4000010 on bill of lading MAEU264000004, then a second file: a second
    // box, MSKU4000025 (check digit 5, ISO 6346), with copies of the first box's equipment
    // events (new eventIDs) on the same bill. The shipment's content stays the same: the same
    // voyages, ports and times. Only its boxes change (one, then two), which the store keeps
    // with the shipment (migration 40). Nothing about the first box changed, so nothing more
    // is notified for it; the second box is created once.
    let key = db.create_account("acme");
    let server = Server::start_with_env(db, &[], ENV);
    let mut events = vec!["container.created"];
    events.extend_from_slice(MILESTONES);
    let (_r, url) = receiver().await;
    let (status, created) = send(&server, "POST", "/v2/webhooks", &key, hook(&url, &events)).await;
    assert_eq!(status, 201, "{created}");
    let case = data("dcsa-cases/04-transshipment-rolled/events.json");
    db.ingest("acme", std::slice::from_ref(&case));
    let first = notifications(db).await;
    let boxes = container_numbers(&server, &key).await;
    assert_eq!(boxes.len(), 1, "{boxes:?}");
    let first_box = boxes.keys().next().expect("the box").clone();
    assert_eq!(
        first
            .iter()
            .filter(|(e, c)| e == "container.created" && c.as_deref() == Some(first_box.as_str()))
            .count(),
        1,
        "{first:?}"
    );

    let all: Vec<Value> =
        serde_json::from_slice(&std::fs::read(&case).expect("case")).expect("JSON");
    let second: Vec<Value> = all
        .iter()
        .filter(|e| e["eventType"] == "EQUIPMENT")
        .map(|e| {
            let mut e = e.clone();
            let id = e["eventID"].as_str().expect("eventID").to_string();
            e["eventID"] =
                json!(uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, id.as_bytes()).to_string());
            e["equipmentReference"] = json!("MSKU4000025");
            e
        })
        .collect();
    assert_eq!(second.len(), 4);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("second-box.json");
    std::fs::write(&file, serde_json::to_vec(&second).expect("JSON")).expect("write");
    db.ingest("acme", &[file]);

    let boxes = container_numbers(&server, &key).await;
    assert_eq!(boxes.len(), 2, "{boxes:?}");
    let second_box = boxes
        .iter()
        .find(|(_, number)| *number == "MSKU4000025")
        .map(|(id, _)| id.clone())
        .expect("the second box");
    let after = notifications(db).await;
    let of = |list: &[(String, Option<String>)], id: &str| -> Vec<(String, Option<String>)> {
        list.iter()
            .filter(|(_, c)| c.as_deref() == Some(id))
            .cloned()
            .collect()
    };
    assert_eq!(
        of(&after, &first_box),
        of(&first, &first_box),
        "nothing more for the first box"
    );
    assert_eq!(
        of(&after, &second_box)
            .iter()
            .filter(|(e, _)| e == "container.created")
            .count(),
        1,
        "the second box is created once: {after:?}"
    );
    // Both boxes are the shipment's, as `/v2` lists them.
    let (status, doc) = server
        .get("/v2/containers?include=shipment", Some(&key))
        .await;
    assert_eq!(status, 200, "{doc}");
    let included = doc["included"].as_array().expect("included");
    assert_eq!(included.len(), 1, "one shipment");
    let mut members: Vec<&str> = included[0]["relationships"]["containers"]["data"]
        .as_array()
        .expect("containers")
        .iter()
        .map(|c| c["id"].as_str().expect("id"))
        .collect();
    members.sort_unstable();
    let mut want = vec![first_box.as_str(), second_box.as_str()];
    want.sort_unstable();
    assert_eq!(members, want);
}
