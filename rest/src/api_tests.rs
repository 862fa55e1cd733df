//! End-to-end tests of the router over a temporary SQLite store holding the bundled DCSA
//! samples, driven with `tower::ServiceExt::oneshot` (no sockets).

use std::path::Path;

use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use teu_pipeline::ingest::ingest_file;
use teu_pipeline::model::{Account, UnLocode};
use teu_store::Store;
use tower::ServiceExt;
use uuid::Uuid;

use crate::{router, RestState};

const HOST: &str = "teu.test";
const FILES: &[&str] = &[
    "tnt-220-response.json",
    "tnt-300-response.json",
    "tnt-300-response-nextpage.json",
];

struct Env {
    _dir: tempfile::TempDir,
    store: Store,
    app: Router,
    a: Account,
    key_a: String,
    b: Account,
    key_b: String,
}

async fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let (a, key_a) = store.create_account("alpha", false).await.unwrap();
    let (b, key_b) = store.create_account("beta", false).await.unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/dcsa");
    for f in FILES {
        ingest_file(&store, &a, &data.join(f)).await.unwrap();
    }
    // B holds only the first sample: same numbers, different (account-scoped) ids.
    ingest_file(&store, &b, &data.join(FILES[0])).await.unwrap();
    add_synthetic(&store, &a).await;
    let app = Router::new().nest("/v2", router(RestState::new(store.clone())));
    Env {
        _dir: dir,
        store,
        app,
        a,
        key_a,
        b,
        key_b,
    }
}

/// The samples give few containers; add a second shipment with three containers (no events)
/// and a second container to the first shipment, through the store's own upsert.
async fn add_synthetic(store: &Store, a: &Account) {
    let (containers, _) = store.list_containers(a.id, 0, 10).await.unwrap();
    let base = containers
        .first()
        .expect("the samples give a container")
        .clone();
    let mut ship = store
        .shipment(a.id, base.shipment_id)
        .await
        .unwrap()
        .unwrap();
    ship.id = Uuid::new_v4();
    ship.bill_of_lading_number = "TESTBL0002".into();
    ship.normalized_number = "TESTBL0002".into();
    ship.port_of_lading_locode = Some(UnLocode::parse("NLRTM").unwrap());
    let mut extra = Vec::new();
    // Equipment references of another shape than ISO 6346 (4 letters, 6 digits): kept as given.
    for (i, number) in ["TEST000001", "TEST000002", "TEST000003", "TEST000004"]
        .iter()
        .enumerate()
    {
        let mut c = base.clone();
        c.id = Uuid::new_v4();
        c.number = teu_pipeline::model::ContainerNumber::parse(number).unwrap();
        c.shipment_id = if i == 0 { base.shipment_id } else { ship.id };
        c.refreshed_at = base.refreshed_at + chrono::Duration::seconds(i as i64 + 1);
        extra.push(c);
    }
    store
        .upsert_derived(a.id, &[ship], &extra, &[], &Default::default(), &[])
        .await
        .unwrap();
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    auth: Option<&str>,
    extra: &[(&str, &str)],
) -> Reply {
    let mut req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, HOST);
    if let Some(auth) = auth {
        req = req.header(header::AUTHORIZATION, auth);
    }
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let resp = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{uri}: body is not JSON ({e}): {bytes:?}"))
    };
    Reply {
        status,
        headers,
        body,
    }
}

async fn get(app: &Router, uri: &str, key: &str) -> Reply {
    send(app, Method::GET, uri, Some(&format!("Token {key}")), &[]).await
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn link(path: &str, number: u64, size: u64, extra: &str) -> String {
    format!("http://{HOST}/v2/{path}?page[number]={number}&page[size]={size}{extra}")
}

fn assert_error(r: &Reply, status: u16, parameter: Option<&str>) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    assert_eq!(r.headers[header::CONTENT_TYPE], "application/json");
    let e = &r.body["errors"][0];
    assert_eq!(e["status"], status.to_string(), "{}", r.body);
    assert!(
        e["title"].is_string() && e["detail"].is_string(),
        "{}",
        r.body
    );
    match parameter {
        Some(p) => assert_eq!(e["source"]["parameter"], p, "{}", r.body),
        None => assert!(e.get("source").is_none(), "{}", r.body),
    }
}

// Ingest runs polars, which blocks in place and needs the multi-threaded runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_api_end_to_end() {
    let env = env().await;
    let app = &env.app;
    let (ka, kb) = (env.key_a.as_str(), env.key_b.as_str());

    // ---- authentication -------------------------------------------------------------------
    for (uri, auth) in [
        ("/v2/containers", None),
        ("/v2/containers", Some("Token wrong")),
        (
            "/v2/containers",
            Some(format!("Bearer {ka}").leak() as &str),
        ),
        ("/v2/nowhere", None),
        ("/v2/shipments/x", Some("Token ")),
    ] {
        let r = send(app, Method::GET, uri, auth, &[]).await;
        assert_error(&r, 401, None);
        assert_eq!(r.body["errors"][0]["title"], "Unauthorized");
        assert!(r.headers.contains_key(header::WWW_AUTHENTICATE));
    }

    // ---- container list -------------------------------------------------------------------
    let (stored, total) = env.store.list_containers(env.a.id, 0, 100).await.unwrap();
    assert!(
        total >= 2,
        "the samples should give several containers, got {total}"
    );
    let total = total as u64;
    let r = get(app, "/v2/containers", ka).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.headers[header::CONTENT_TYPE], "application/json");
    let want: Vec<String> = stored.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(ids(&r.body["data"]), want);
    assert_eq!(r.body["included"], Value::Array(vec![]));
    assert_eq!(r.body["meta"]["size"], 30);
    assert_eq!(r.body["meta"]["total"], total);
    let l = &r.body["links"];
    assert_eq!(l["first"], link("containers", 1, 30, ""));
    assert_eq!(l["last"], link("containers", 1, 30, ""));
    assert_eq!(l["self"], link("containers", 1, 30, ""));
    assert_eq!(l["current"], link("containers", 1, 30, ""));
    assert!(l["prev"].is_null() && l["next"].is_null(), "{l}");

    // relationships come from the store's events, in one call per page
    let events = env
        .store
        .events_of_containers(env.a.id, &stored.iter().map(|c| c.id).collect::<Vec<_>>())
        .await
        .unwrap();
    for (c, res) in stored.iter().zip(r.body["data"].as_array().unwrap()) {
        assert_eq!(res["type"], "container");
        assert_eq!(res["attributes"]["number"], c.number.as_str());
        assert_eq!(
            res["relationships"]["shipment"]["data"]["id"],
            c.shipment_id.to_string()
        );
        let ev = events.get(&c.id).cloned().unwrap_or_default();
        // Transport events: the actual events with a Terminal49 name (event_names).
        let te: Vec<String> = ev
            .iter()
            .filter(|e| {
                e.event.classifier == teu_pipeline::model::Classifier::Act
                    && teu_pipeline::event_names::is_named(&e.event)
            })
            .map(|e| e.id.to_string())
            .collect();
        let re: Vec<String> = ev.iter().map(|e| e.raw_event_id.to_string()).collect();
        assert_eq!(ids(&res["relationships"]["transport_events"]["data"]), te);
        assert_eq!(ids(&res["relationships"]["raw_events"]["data"]), re);
        assert_eq!(res["relationships"]["pickup_facility"]["data"], Value::Null);
        assert!(res["attributes"].get("import_deadlines").is_some());
        let created = res["attributes"]["created_at"].as_str().unwrap();
        assert!(created.ends_with('Z') && created.len() >= 20, "{created}");
    }
    assert!(
        r.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| !c["relationships"]["transport_events"]["data"]
                .as_array()
                .unwrap()
                .is_empty()),
        "the ingested container has events"
    );

    // X-Forwarded-Proto picks the scheme of the links
    let r = send(
        app,
        Method::GET,
        "/v2/containers",
        Some(&format!("Token {ka}")),
        &[("x-forwarded-proto", "https")],
    )
    .await;
    assert_eq!(
        r.body["links"]["self"],
        format!("https://{HOST}/v2/containers?page[number]=1&page[size]=30")
    );

    // ---- pagination -----------------------------------------------------------------------
    let r = get(app, "/v2/containers?page[size]=1&page[number]=2", ka).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(ids(&r.body["data"]), vec![want[1].clone()]);
    assert_eq!(r.body["meta"]["size"], 1);
    assert_eq!(r.body["meta"]["total"], total);
    let l = &r.body["links"];
    assert_eq!(l["prev"], link("containers", 1, 1, ""));
    assert_eq!(l["self"], link("containers", 2, 1, ""));
    assert_eq!(l["last"], link("containers", total, 1, ""));
    if total > 2 {
        assert_eq!(l["next"], link("containers", 3, 1, ""));
    } else {
        assert!(l["next"].is_null());
    }
    // the last page, then beyond it: empty data, valid links
    let r = get(
        app,
        &format!("/v2/containers?page[size]=1&page[number]={total}"),
        ka,
    )
    .await;
    assert_eq!(ids(&r.body["data"]), vec![want[want.len() - 1].clone()]);
    assert!(r.body["links"]["next"].is_null());
    let r = get(
        app,
        "/v2/containers?page%5Bnumber%5D=50&page%5Bsize%5D=1",
        ka,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["data"], Value::Array(vec![]));
    assert_eq!(r.body["links"]["prev"], link("containers", total, 1, ""));
    assert!(r.body["links"]["next"].is_null());
    assert_eq!(r.body["links"]["self"], link("containers", 50, 1, ""));

    // ---- invalid parameters ---------------------------------------------------------------
    for (q, p) in [
        ("page[size]=0", "page[size]"),
        ("page[size]=101", "page[size]"),
        ("page[number]=abc", "page[number]"),
        ("page[number]=0", "page[number]"),
        ("include=containers", "include"),
        ("sort=number", "sort"),
    ] {
        let r = get(app, &format!("/v2/containers?{q}"), ka).await;
        assert_error(&r, 400, Some(p));
    }
    let r = get(app, "/v2/shipments?include=shipment", ka).await;
    assert_error(&r, 400, Some("include"));

    // ---- include=shipment -----------------------------------------------------------------
    let r = get(app, "/v2/containers?include=shipment", ka).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let included = r.body["included"].as_array().unwrap();
    let mut want_ship: Vec<String> = Vec::new();
    for c in &stored {
        let id = c.shipment_id.to_string();
        if !want_ship.contains(&id) {
            want_ship.push(id);
        }
    }
    assert_eq!(
        ids(&r.body["included"]),
        want_ship,
        "each shipment once, in order"
    );
    for s in included {
        assert_eq!(s["type"], "shipment");
        let id = s["id"].as_str().unwrap();
        assert_eq!(
            s["links"]["self"],
            format!("http://{HOST}/v2/shipments/{id}")
        );
        assert!(s["attributes"]["bill_of_lading_number"].is_string());
        // Exactly the shipment's containers, by number then id: the synthetic box added to a
        // stored shipment included (its members written again from `containers`).
        let mut boxes: Vec<_> = stored
            .iter()
            .filter(|c| c.shipment_id.to_string() == id)
            .collect();
        boxes.sort_by(|a, b| (a.number.as_str(), a.id).cmp(&(b.number.as_str(), b.id)));
        let want: Vec<String> = boxes.iter().map(|c| c.id.to_string()).collect();
        assert!(!want.is_empty());
        assert_eq!(ids(&s["relationships"]["containers"]["data"]), want, "{id}");
    }
    assert_eq!(r.body["links"]["next"], Value::Null);
    assert_eq!(
        r.body["links"]["self"],
        link("containers", 1, 30, "&include=shipment")
    );

    // ---- single container -----------------------------------------------------------------
    let first = &stored[0];
    let r = get(
        app,
        &format!("/v2/containers/{}?include=shipment", first.id),
        ka,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["data"]["id"], first.id.to_string());
    assert_eq!(
        ids(&r.body["included"]),
        vec![first.shipment_id.to_string()]
    );
    assert_eq!(
        r.body["links"]["self"],
        format!("http://{HOST}/v2/containers/{}", first.id)
    );

    // another account's container, a malformed id and an unknown id are all 404
    let (theirs, _) = env.store.list_containers(env.b.id, 0, 100).await.unwrap();
    assert!(!theirs.is_empty());
    for id in [
        theirs[0].id.to_string(),
        "not-a-uuid".to_string(),
        Uuid::new_v4().to_string(),
    ] {
        let r = get(app, &format!("/v2/containers/{id}"), ka).await;
        assert_error(&r, 404, None);
        assert_eq!(r.body["errors"][0]["title"], "Not Found");
    }
    // ... while its owner sees it, and only its own
    let r = get(app, &format!("/v2/containers/{}", theirs[0].id), kb).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = get(app, "/v2/containers", kb).await;
    assert_eq!(r.body["meta"]["total"], theirs.len());
    assert!(ids(&r.body["data"]).iter().all(|id| !want.contains(id)));

    // ---- shipments ------------------------------------------------------------------------
    let (ships, ship_total) = env.store.list_shipments(env.a.id, 0, 100).await.unwrap();
    let r = get(app, "/v2/shipments?include=containers&page[size]=100", ka).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        ids(&r.body["data"]),
        ships.iter().map(|s| s.id.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(
        r.body["meta"],
        serde_json::json!({"size": 100, "total": ship_total})
    );
    let mut included = ids(&r.body["included"]);
    included.sort();
    let mut all = want.clone();
    all.sort();
    assert_eq!(included, all, "every container once");
    assert!(r.body["included"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["type"] == "container"));
    let s = &r.body["data"][0];
    assert_eq!(
        s["links"]["self"],
        format!("http://{HOST}/v2/shipments/{}", ships[0].id)
    );
    for rel in [
        "destination",
        "port_of_lading",
        "port_of_discharge",
        "containers",
        "pod_terminal",
        "destination_terminal",
        "line_tracking_stopped_by_user",
    ] {
        assert!(s["relationships"][rel].get("data").is_some(), "{rel}: {s}");
    }
    if let Some(locode) = &ships[0].port_of_lading_locode {
        assert_eq!(
            s["relationships"]["port_of_lading"]["data"]["id"],
            teu_pipeline::ids::port_id(locode).to_string()
        );
    }

    let r = get(app, &format!("/v2/shipments/{}", ships[0].id), ka).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["data"]["id"], ships[0].id.to_string());
    assert_eq!(r.body["included"], Value::Array(vec![]));
    let r = get(app, &format!("/v2/shipments/{}", ships[0].id), kb).await;
    assert_error(&r, 404, None);

    // ---- unknown paths and methods --------------------------------------------------------
    let r = get(app, "/v2/vessels", ka).await;
    assert_error(&r, 404, None);
    let r = send(
        app,
        Method::POST,
        "/v2/containers",
        Some(&format!("Token {ka}")),
        &[],
    )
    .await;
    assert_error(&r, 405, None);
    assert!(r.headers.contains_key(header::ALLOW), "{:?}", r.headers);
    let r = send(
        app,
        Method::DELETE,
        &format!("/v2/shipments/{}", ships[0].id),
        Some(&format!("Token {ka}")),
        &[],
    )
    .await;
    assert_error(&r, 405, None);
}

/// `GET /v2/openapi.json` answers without a key while the other routes still need one, and
/// every documented (method, path) is routed with that method (no 405).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_document_is_public_and_routed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let (_, key) = store.create_account("alpha", false).await.unwrap();
    let app = Router::new().nest("/v2", router(RestState::new(store)));

    let r = send(&app, Method::GET, "/v2/openapi.json", None, &[]).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    assert!(
        r.body["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.")),
        "{}",
        r.body["openapi"]
    );
    let paths = r.body["paths"].as_object().expect("paths is an object");
    assert!(!paths.is_empty());

    // The exemption is exactly that route: the rest still answers 401 without a key.
    for uri in ["/v2/containers", "/v2/openapi.json/x", "/v2/nowhere"] {
        let r = send(&app, Method::GET, uri, None, &[]).await;
        assert_error(&r, 401, None);
    }
    // A wrong method on the public route is a JSON:API 405.
    let r = send(&app, Method::POST, "/v2/openapi.json", None, &[]).await;
    assert_error(&r, 405, None);

    let auth = format!("Token {key}");
    let id = Uuid::new_v4().to_string();
    let mut checked = 0;
    for (path, item) in paths {
        for method in item.as_object().expect("path item").keys() {
            let Ok(method) = Method::from_bytes(method.to_ascii_uppercase().as_bytes()) else {
                continue;
            };
            let uri = format!("/v2{}", path.replace("{id}", &id));
            let r = send(&app, method.clone(), &uri, Some(&auth), &[]).await;
            assert_ne!(
                r.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {uri}: {}",
                r.body
            );
            assert_ne!(r.status, StatusCode::UNAUTHORIZED, "{method} {uri}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} operations checked");
}

/// A container resource's JSON text as the `/v2` pages write it (`ContainerResource::to_json`,
/// identifiers written directly) is byte for byte what serde_json writes for the resource,
/// for every container of the bundled DCSA samples and the synthetic ones beside them, with
/// their real event links.
#[tokio::test]
async fn container_json_is_what_serde_json_writes() {
    let env = env().await;
    let (containers, total) = env.store.list_containers(env.a.id, 0, 1000).await.unwrap();
    assert_eq!(containers.len() as i64, total);
    assert!(containers.len() >= 5, "{}", containers.len());
    let ids: Vec<Uuid> = containers.iter().map(|c| c.id).collect();
    let links = env
        .store
        .event_links_of_containers(env.a.id, &ids)
        .await
        .unwrap();
    // Some container has several events, transport and raw identifiers both.
    assert!(links.values().any(|l| l.len() > 1));
    for resource in crate::resources::containers(&containers, &links) {
        let json = resource.to_json();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            serde_json::to_string(&resource).unwrap()
        );
    }
}
