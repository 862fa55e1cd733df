//! End-to-end tests: the real `teu` binary, a real database (SQLite in a temp dir; PostgreSQL
//! when `TEU_TEST_POSTGRES_URL` is set, as in CI), real DCSA samples and generated feeds.
//!
//! Each scenario runs once per backend: `sqlite_*` always, `postgres_*` against PostgreSQL.

#[macro_use]
mod common;

use std::collections::HashSet;

use common::{data, generated_feed, summaries, Server, TestDb};
use serde_json::Value;

on_both_backends!(
    container_documents_field_by_field,
    pagination_arithmetic_across_pages,
    auth_and_parameter_errors,
    tenant_isolation,
    wrong_files_are_quarantined_row_by_row,
    reingest_changes_nothing,
    graphql_matches_rest,
    terminal_and_rail_fields_over_both_apis,
    a_box_stored_without_its_shipment_joins_its_members,
    included_shipments_are_the_shipments_own_documents,
);

/// Every container attribute of docs/interface.md, with the JSON kinds it may take.
const CONTAINER_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("number", &["string"]),
    ("ref_numbers", &["array"]),
    ("seal_number", &["string", "null"]),
    ("created_at", &["string"]),
    ("equipment_type", &["string", "null"]),
    ("equipment_length", &["number", "null"]),
    ("equipment_height", &["string", "null"]),
    ("weight_in_lbs", &["number", "null"]),
    ("pickup_lfd", &["string", "null"]),
    ("pickup_appointment_at", &["string", "null"]),
    ("availability_known", &["bool"]),
    ("available_for_pickup", &["bool", "null"]),
    ("pod_arrived_at", &["string", "null"]),
    ("pod_discharged_at", &["string", "null"]),
    ("pod_full_out_at", &["string", "null"]),
    ("terminal_checked_at", &["string", "null"]),
    ("pod_full_out_chassis_number", &["string", "null"]),
    ("location_at_pod_terminal", &["string", "null"]),
    ("final_destination_full_out_at", &["string", "null"]),
    ("empty_terminated_at", &["string", "null"]),
    ("holds_at_pod_terminal", &["array"]),
    ("fees_at_pod_terminal", &["array"]),
    ("pod_timezone", &["string", "null"]),
    ("final_destination_timezone", &["string", "null"]),
    ("empty_terminated_timezone", &["string", "null"]),
    ("pod_rail_carrier_scac", &["string", "null"]),
    ("ind_rail_carrier_scac", &["string", "null"]),
    ("pod_last_tracking_request_at", &["string", "null"]),
    ("shipment_last_tracking_request_at", &["string", "null"]),
    ("pod_rail_loaded_at", &["string", "null"]),
    ("pod_rail_departed_at", &["string", "null"]),
    ("ind_eta_at", &["string", "null"]),
    ("ind_ata_at", &["string", "null"]),
    ("ind_rail_unloaded_at", &["string", "null"]),
    ("ind_facility_lfd_on", &["string", "null"]),
    ("import_deadlines", &["object", "null"]),
    ("current_status", &["string"]),
];

/// Every shipment attribute of docs/interface.md.
const SHIPMENT_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("bill_of_lading_number", &["string"]),
    ("normalized_number", &["string"]),
    ("ref_numbers", &["array", "null"]),
    ("created_at", &["string"]),
    ("tags", &["array"]),
    ("port_of_lading_locode", &["string", "null"]),
    ("port_of_discharge_locode", &["string", "null"]),
    ("destination_locode", &["string", "null"]),
    ("port_of_lading_name", &["string", "null"]),
    ("port_of_discharge_name", &["string", "null"]),
    ("destination_name", &["string", "null"]),
    ("shipping_line_scac", &["string"]),
    ("shipping_line_name", &["string"]),
    ("shipping_line_short_name", &["string"]),
    ("customer_name", &["string", "null"]),
    ("pod_vessel_name", &["string", "null"]),
    ("pod_vessel_imo", &["string", "null"]),
    ("pod_voyage_number", &["string", "null"]),
    ("pol_etd_at", &["string", "null"]),
    ("pol_atd_at", &["string", "null"]),
    ("pod_eta_at", &["string", "null"]),
    ("pod_original_eta_at", &["string", "null"]),
    ("pod_ata_at", &["string", "null"]),
    ("destination_eta_at", &["string", "null"]),
    ("destination_ata_at", &["string", "null"]),
    ("pol_timezone", &["string", "null"]),
    ("pod_timezone", &["string", "null"]),
    ("destination_timezone", &["string", "null"]),
    ("line_tracking_last_attempted_at", &["string", "null"]),
    ("line_tracking_last_succeeded_at", &["string", "null"]),
    ("line_tracking_stopped_at", &["string", "null"]),
    ("line_tracking_stopped_reason", &["string", "null"]),
];

const STATUSES: &[&str] = &[
    "new",
    "on_ship",
    "available",
    "not_available",
    "grounded",
    "on_rail",
    "picked_up",
    "off_dock",
    "delivered",
    "dropped",
    "loaded",
    "empty_returned",
    "awaiting_inland_transfer",
];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check_attributes(resource: &Value, spec: &[(&str, &[&str])]) {
    let attrs = resource["attributes"]
        .as_object()
        .expect("attributes object");
    for (name, kinds) in spec {
        let v = attrs
            .get(*name)
            .unwrap_or_else(|| panic!("attribute {name} missing in {resource}"));
        assert!(
            kinds.contains(&kind(v)),
            "attribute {name} is {} ({v}), spec allows {kinds:?}",
            kind(v)
        );
        if kind(v) == "string" && (name.ends_with("_at") || name.ends_with("_on")) {
            let s = v.as_str().unwrap_or_default();
            assert!(
                chrono::DateTime::parse_from_rfc3339(s).is_ok() && s.ends_with('Z'),
                "{name} = {s:?} is not an ISO 8601 UTC date-time"
            );
        }
    }
    let unknown: Vec<&String> = attrs
        .keys()
        .filter(|k| !spec.iter().any(|(n, _)| n == k))
        .collect();
    assert!(
        unknown.is_empty(),
        "attributes not in the spec: {unknown:?}"
    );
}

fn ids(doc: &Value) -> Vec<String> {
    doc["data"]
        .as_array()
        .expect("data array")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect()
}

async fn container_documents_field_by_field(db: &TestDb) {
    let key = db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let feed = generated_feed(20, 5);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);

    let (status, doc) = server
        .get("/v2/containers?include=shipment", Some(&key))
        .await;
    assert_eq!(status, 200, "{doc}");
    let data = doc["data"].as_array().expect("data");
    assert_eq!(data.len(), 30, "default page size is 30");
    let total = doc["meta"]["total"].as_u64().expect("meta.total");
    assert!(total > 30, "generated feed has pages: {total}");
    assert_eq!(doc["meta"]["size"], 30);
    for c in data {
        assert_eq!(c["type"], "container");
        uuid::Uuid::parse_str(c["id"].as_str().unwrap()).expect("uuid id");
        check_attributes(c, CONTAINER_ATTRIBUTES);
        assert!(STATUSES.contains(&c["attributes"]["current_status"].as_str().unwrap()));
        let rel = &c["relationships"];
        assert_eq!(rel["shipment"]["data"]["type"], "shipment");
        for (r, t) in [
            ("transport_events", "transport_event"),
            ("raw_events", "raw_event"),
        ] {
            let list = rel[r]["data"]
                .as_array()
                .unwrap_or_else(|| panic!("{r} list"));
            assert!(list.iter().all(|x| x["type"] == t));
        }
        // Every stored event is a raw event; transport events are the actual ones with a
        // Terminal49 name (a subset, Terminal49's event catalog).
        let raw = rel["raw_events"]["data"].as_array().unwrap();
        let transport = rel["transport_events"]["data"].as_array().unwrap();
        assert!(!raw.is_empty(), "container {} has raw_events", c["id"]);
        assert!(transport.len() <= raw.len(), "container {}", c["id"]);
        assert!(rel.get("pod_terminal").is_some() && rel.get("pickup_facility").is_some());
    }
    // Ordering: most recently refreshed first; the generated feed was ingested last.
    let included = doc["included"].as_array().expect("included");
    let shipment_ids: HashSet<&str> = included.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(
        shipment_ids.len(),
        included.len(),
        "each shipment included once"
    );
    for c in data {
        let sid = c["relationships"]["shipment"]["data"]["id"]
            .as_str()
            .unwrap();
        assert!(
            shipment_ids.contains(sid),
            "shipment {sid} of a container is included"
        );
    }
    for s in included {
        assert_eq!(s["type"], "shipment");
        check_attributes(s, SHIPMENT_ATTRIBUTES);
        assert!(s["links"]["self"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/v2/shipments/{}", s["id"].as_str().unwrap())));
    }

    // The real DCSA 2.2 sample container: the rules its documents follow. Its values field by
    // field (equipment, bill of lading, POL, line, ...) are pinned by the snapshot of the same box
    // as the demo loads it (tests/demo.rs, tests/snapshots/demo__v2_APZU4812090.snap).
    let mut page = 1;
    let sample = loop {
        let (_, d) = server
            .get(
                &format!("/v2/containers?page[number]={page}&page[size]=100"),
                Some(&key),
            )
            .await;
        if let Some(c) = d["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["attributes"]["number"] == "APZU4812090")
        {
            break c.clone();
        }
        assert!(!d["links"]["next"].is_null(), "sample container not listed");
        page += 1;
    };
    let a = &sample["attributes"];
    // King of the Seas arrives at Paris (ACT) and the box is to be loaded onto it there (LOAD,
    // EST): Paris is where the box leaves from, no later call is given, so there is no POD and
    // the vessel's arrival is not the box's (DCSA 2.2 definitions; journey rules).
    assert_eq!(a["pod_arrived_at"], Value::Null);
    assert_eq!(a["pod_timezone"], Value::Null);
    let sid = sample["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap();
    let (status, one) = server
        .get(
            &format!("/v2/containers/{}", sample["id"].as_str().unwrap()),
            Some(&key),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["data"], sample, "single and list documents agree");
    let (status, s) = server
        .get(&format!("/v2/shipments/{sid}"), Some(&key))
        .await;
    assert_eq!(status, 200, "{s}");
    let sa = &s["data"]["attributes"];
    assert_eq!(sa["port_of_discharge_locode"], Value::Null);
    assert_eq!(sa["pod_vessel_name"], Value::Null);
    // The booking, and the sample's FF (freight forwarder's) reference values.
    assert_eq!(
        sa["ref_numbers"],
        serde_json::json!(["ABC123123123", "APZU4812090", "string"])
    );
    let containers = s["data"]["relationships"]["containers"]["data"]
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 1);
    assert_eq!(containers[0]["id"], sample["id"]);

    // A generated container whose journey is over: picked up and returned empty.
    let mut seen_statuses = HashSet::new();
    let mut page = 1;
    loop {
        let (_, d) = server
            .get(
                &format!("/v2/containers?page[number]={page}&page[size]=100"),
                Some(&key),
            )
            .await;
        for c in d["data"].as_array().unwrap() {
            let a = &c["attributes"];
            let status = a["current_status"].as_str().unwrap().to_string();
            if status == "empty_returned" {
                assert!(!a["pod_discharged_at"].is_null() && !a["pod_full_out_at"].is_null());
                assert!(
                    !a["empty_terminated_at"].is_null()
                        && !a["empty_terminated_timezone"].is_null()
                );
                assert!(a["pod_full_out_at"].as_str() < a["empty_terminated_at"].as_str());
            }
            if status == "on_ship" {
                assert!(a["pod_discharged_at"].is_null());
            }
            seen_statuses.insert(status);
        }
        if d["links"]["next"].is_null() {
            break;
        }
        page += 1;
    }
    assert!(
        seen_statuses.len() >= 3,
        "generated feed spans several stages: {seen_statuses:?}"
    );
}

async fn pagination_arithmetic_across_pages(db: &TestDb) {
    let key = db.create_account("pager");
    let feed = generated_feed(10, 11);
    db.ingest("pager", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let size = 7;
    let (_, first) = server
        .get(&format!("/v2/containers?page[size]={size}"), Some(&key))
        .await;
    let total = first["meta"]["total"].as_u64().unwrap() as usize;
    assert!(
        total > 2 * size,
        "enough containers for three pages: {total}"
    );
    let pages = total.div_ceil(size);
    let mut all = Vec::new();
    for n in 1..=pages {
        let (status, doc) = server
            .get(
                &format!("/v2/containers?page[number]={n}&page[size]={size}"),
                Some(&key),
            )
            .await;
        assert_eq!(status, 200);
        let got = ids(&doc);
        let expected = if n < pages {
            size
        } else {
            total - size * (pages - 1)
        };
        assert_eq!(got.len(), expected, "page {n}");
        let links = &doc["links"];
        let has = |l: &str, page: usize| {
            let s = links[l]
                .as_str()
                .unwrap_or_else(|| panic!("links.{l} on page {n}: {links}"));
            assert!(s.starts_with("http://"), "absolute URI: {s}");
            let decoded = s.replace("%5B", "[").replace("%5D", "]");
            assert!(
                decoded.contains(&format!("page[number]={page}")),
                "links.{l} = {s}, want page {page}"
            );
            assert!(
                decoded.contains(&format!("page[size]={size}")),
                "links.{l} = {s}"
            );
        };
        has("first", 1);
        has("last", pages);
        has("self", n);
        has("current", n);
        if n == 1 {
            assert!(links["prev"].is_null());
        } else {
            has("prev", n - 1);
        }
        if n == pages {
            assert!(links["next"].is_null());
        } else {
            has("next", n + 1);
        }
        all.extend(got);
    }
    let unique: HashSet<&String> = all.iter().collect();
    assert_eq!(
        unique.len(),
        total,
        "pages cover every container exactly once"
    );
    // Beyond the last page: valid document, no rows.
    let (status, beyond) = server
        .get(
            &format!(
                "/v2/containers?page[number]={}&page[size]={size}",
                pages + 1
            ),
            Some(&key),
        )
        .await;
    assert_eq!(status, 200);
    assert!(ids(&beyond).is_empty());
    assert_eq!(beyond["meta"]["total"].as_u64().unwrap() as usize, total);
    // Shipments paginate the same way.
    let (_, s) = server.get("/v2/shipments?page[size]=3", Some(&key)).await;
    assert_eq!(ids(&s).len(), 3);
    assert_eq!(s["meta"]["total"], 10);
}

async fn auth_and_parameter_errors(db: &TestDb) {
    let key = db.create_account("auth");
    let server = Server::start(db, &[]);
    for (path, header) in [
        ("/v2/containers", None),
        ("/v2/containers", Some("teu_not_a_real_key")),
        ("/v2/shipments", None),
    ] {
        let (status, body) = server.get(path, header).await;
        assert_eq!(status, 401, "{path}: {body}");
        let e = &body["errors"][0];
        assert_eq!(e["status"], "401");
        assert!(e["title"].is_string() && e["detail"].is_string(), "{body}");
    }
    // A raw key without the "Token " scheme is refused too.
    let resp = server
        .client()
        .get(format!("{}/v2/containers", server.base))
        .header("Authorization", key.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let (status, body) = server
        .graphql(None, "{ containers { totalCount } }", Value::Null)
        .await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["errors"][0]["status"], "401");

    for (query, parameter) in [
        ("page[size]=0", "page[size]"),
        ("page[size]=-3", "page[size]"),
        ("page[size]=abc", "page[size]"),
        ("page[number]=0", "page[number]"),
        ("page[number]=1.5", "page[number]"),
        ("include=nonsense", "include"),
    ] {
        let (status, body) = server
            .get(&format!("/v2/containers?{query}"), Some(&key))
            .await;
        assert_eq!(status, 400, "{query}: {body}");
        let e = &body["errors"][0];
        assert_eq!(e["status"], "400");
        assert_eq!(e["source"]["parameter"], parameter, "{query}: {body}");
        assert!(!e["detail"].as_str().unwrap_or_default().is_empty());
    }
    let (status, body) = server.get("/nowhere", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["errors"][0]["status"], "404");
    let (status, body) = server.get("/v2/containers/not-a-uuid", Some(&key)).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["errors"][0]["status"], "404");
}

async fn tenant_isolation(db: &TestDb) {
    let key_a = db.create_account("alpha");
    let key_b = db.create_account("beta");
    db.ingest("alpha", &[data("dcsa/tnt-220-response.json")]);
    let feed = generated_feed(3, 21);
    db.ingest("beta", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let (_, a) = server
        .get("/v2/containers?page[size]=100", Some(&key_a))
        .await;
    let (_, b) = server
        .get("/v2/containers?page[size]=100", Some(&key_b))
        .await;
    let a_ids: HashSet<String> = ids(&a).into_iter().collect();
    let b_ids: HashSet<String> = ids(&b).into_iter().collect();
    assert_eq!(a_ids.len(), 1);
    assert_eq!(a["meta"]["total"], 1);
    assert!(!b_ids.is_empty() && a_ids.is_disjoint(&b_ids));
    let a_container = a_ids.iter().next().unwrap();
    let (status, body) = server
        .get(&format!("/v2/containers/{a_container}"), Some(&key_b))
        .await;
    assert_eq!(
        status, 404,
        "another account's id is not found, never forbidden: {body}"
    );
    let a_shipment = a["data"][0]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = server
        .get(&format!("/v2/shipments/{a_shipment}"), Some(&key_b))
        .await;
    assert_eq!(status, 404);
    let (_, g) = server
        .graphql(
            Some(&key_b),
            "query($id: ID!) { container(id: $id) { id } containers { totalCount } }",
            serde_json::json!({"id": a_container}),
        )
        .await;
    assert!(g["data"]["container"].is_null(), "{g}");
    assert_eq!(
        g["data"]["containers"]["totalCount"].as_u64().unwrap() as usize,
        b_ids.len()
    );
}

async fn wrong_files_are_quarantined_row_by_row(db: &TestDb) {
    db.create_account("q");
    let files: Vec<_> = [
        "tnt-220-response.json",
        "tnt-220-response-wrong-attribute-values.json",
        "tnt-220-response-wrong-date-times.json",
        "tnt-220-response-wrong-event-ids.json",
        "tnt-220-response-wrong-structure.json",
    ]
    .iter()
    .map(|f| data(&format!("dcsa/{f}")))
    .collect();
    let out = db.teu(
        &["ingest", "--account", "q"]
            .iter()
            .map(|s| s.to_string())
            .chain(files.iter().map(|p| p.display().to_string()))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(
        out.status.success(),
        "rows may be quarantined, the exit status is 0"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let got = summaries(&stdout);
    let expect = [
        ("tnt-220-response.json", 7, 7, 0),
        ("tnt-220-response-wrong-attribute-values.json", 3, 0, 3),
        ("tnt-220-response-wrong-date-times.json", 7, 0, 7),
        ("tnt-220-response-wrong-event-ids.json", 7, 3, 4),
        ("tnt-220-response-wrong-structure.json", 2, 0, 2),
    ];
    assert_eq!(
        got,
        expect.map(|(f, a, b, c)| (f.to_string(), a, b, c)).to_vec(),
        "{stdout}"
    );
    // Each quarantined row is reported with its file, index and reason.
    assert!(stderr.contains("tnt-220-response-wrong-event-ids.json: row 1, /1/eventID: eventID \"incorrect\" is not a UUID"), "{stderr}");
    assert!(
        stderr.contains("row 3, /3/eventID: duplicate eventID"),
        "{stderr}"
    );
    assert!(stderr.contains("/2/equipmentReference: container number \"APZU2134567\": check digit is 7, ISO 6346 gives 4"), "{stderr}");

    // The good events of a partly bad file are kept.
    let key = db.teu(&["accounts", "create", "--name", "q2"]);
    assert!(key.status.success());
    let key = String::from_utf8_lossy(&key.stdout).trim().to_string();
    db.ingest("q2", &[data("dcsa/tnt-220-response-wrong-event-ids.json")]);
    let server = Server::start(db, &[]);
    let (_, doc) = server.get("/v2/shipments", Some(&key)).await;
    assert_eq!(
        doc["meta"]["total"], 1,
        "the 3 good DRFT events make one shipment: {doc}"
    );

    // Unknown account, unknown format, unreadable file: non-zero exit with a clear message.
    let out = db.teu(&[
        "ingest",
        "--account",
        "nobody",
        &files[0].display().to_string(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account named \"nobody\""));
    let out = db.teu(&[
        "ingest",
        "--account",
        "q",
        &data("reference/ocean-carriers.csv").display().to_string(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown feed format"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = db.teu(&["ingest", "--account", "q", "/nonexistent/feed.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read file"));
}

async fn reingest_changes_nothing(db: &TestDb) {
    let key = db.create_account("idem");
    let feed = generated_feed(6, 8);
    let paths = vec![data("dcsa"), feed.path().to_path_buf()];
    db.ingest("idem", &paths);
    let server = Server::start(db, &[]);
    let snapshot = || async {
        let (_, c) = server
            .get("/v2/containers?page[size]=100&include=shipment", Some(&key))
            .await;
        let (_, s) = server
            .get(
                "/v2/shipments?page[size]=100&include=containers",
                Some(&key),
            )
            .await;
        (c, s)
    };
    let before = snapshot().await;
    db.ingest("idem", &paths);
    let after = snapshot().await;
    assert_eq!(before.0["meta"], after.0["meta"]);
    assert_eq!(before, after, "re-ingesting the same files changes nothing");
    // And the raw tables hold each event once.
    let out = db.teu(&[
        "ingest",
        "--account",
        "idem",
        &data("dcsa/tnt-220-response.json").display().to_string(),
    ]);
    let got = summaries(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got[0].2, 7);
    let (_, c) = server
        .get("/v2/containers?page[size]=100", Some(&key))
        .await;
    let sample = c["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["attributes"]["number"] == "APZU4812090")
        .unwrap()
        .clone();
    // 7 from the 2.2 sample, 2 from the 3.0 samples (GTIN, DISC, linked by container number)
    // and 2 of the 3 good DRFT events of the wrong-event-ids file (same bill of lading; the
    // third reuses the sample's eventID with the same issue time, so the first version stays).
    assert_eq!(
        sample["relationships"]["raw_events"]["data"]
            .as_array()
            .unwrap()
            .len(),
        7 + 2 + 2
    );
}

async fn graphql_matches_rest(db: &TestDb) {
    let key = db.create_account("gql");
    db.ingest("gql", &[data("dcsa/tnt-220-response.json")]);
    let feed = generated_feed(4, 3);
    db.ingest("gql", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let (_, rest) = server
        .get("/v2/containers?page[size]=5&include=shipment", Some(&key))
        .await;
    let query = r#"query($first: Int) {
        containers(first: $first) {
            totalCount
            pageInfo { hasNextPage endCursor }
            edges { node { id number currentStatus podArrivedAt podDischargedAt podFullOutAt emptyTerminatedAt
                podTimezone equipmentType equipmentLength
                shipment { id billOfLadingNumber shippingLineScac portOfDischargeLocode podEtaAt }
                events { id code eventAt } } }
        } }"#;
    let (status, g) = server
        .graphql(Some(&key), query, serde_json::json!({"first": 5}))
        .await;
    assert_eq!(status, 200, "{g}");
    assert!(g.get("errors").is_none(), "{g}");
    let conn = &g["data"]["containers"];
    assert_eq!(conn["totalCount"], rest["meta"]["total"]);
    assert_eq!(conn["pageInfo"]["hasNextPage"], true);
    let nodes: Vec<&Value> = conn["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["node"])
        .collect();
    let rest_data = rest["data"].as_array().unwrap();
    assert_eq!(nodes.len(), rest_data.len());
    for (n, r) in nodes.iter().zip(rest_data) {
        assert_eq!(n["id"], r["id"], "same order");
        let a = &r["attributes"];
        assert_eq!(n["number"], a["number"]);
        assert_eq!(
            n["currentStatus"].as_str().unwrap().to_lowercase(),
            a["current_status"].as_str().unwrap()
        );
        for (gf, rf) in [
            ("podArrivedAt", "pod_arrived_at"),
            ("podDischargedAt", "pod_discharged_at"),
            ("podFullOutAt", "pod_full_out_at"),
            ("emptyTerminatedAt", "empty_terminated_at"),
        ] {
            let same = match (&n[gf], &a[rf]) {
                (Value::String(x), Value::String(y)) => {
                    chrono::DateTime::parse_from_rfc3339(x).unwrap()
                        == chrono::DateTime::parse_from_rfc3339(y).unwrap()
                }
                (x, y) => x == y,
            };
            assert!(same, "{gf} {} vs {rf} {}", n[gf], a[rf]);
        }
        assert_eq!(n["podTimezone"], a["pod_timezone"]);
        assert_eq!(n["equipmentType"], a["equipment_type"]);
        assert_eq!(
            n["shipment"]["id"],
            r["relationships"]["shipment"]["data"]["id"]
        );
        let events = n["events"].as_array().unwrap();
        assert_eq!(
            events.len(),
            r["relationships"]["raw_events"]["data"]
                .as_array()
                .unwrap()
                .len()
        );
        let times: Vec<&str> = events
            .iter()
            .map(|e| e["eventAt"].as_str().unwrap())
            .collect();
        let mut sorted = times.clone();
        sorted.sort_by_key(|t| chrono::DateTime::parse_from_rfc3339(t).unwrap());
        assert_eq!(times, sorted, "events in time order");
    }
    // The next page continues where the first ended.
    let after = conn["pageInfo"]["endCursor"].as_str().unwrap();
    let (_, g2) = server
        .graphql(
            Some(&key),
            "query($after: String) { containers(first: 5, after: $after) { edges { node { id } } } }",
            serde_json::json!({"after": after}),
        )
        .await;
    let (_, rest2) = server
        .get("/v2/containers?page[size]=5&page[number]=2", Some(&key))
        .await;
    let g2_ids: Vec<&Value> = g2["data"]["containers"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["node"]["id"])
        .collect();
    let r2_ids: Vec<&Value> = rest2["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(g2_ids, r2_ids);
    // GraphiQL on GET.
    let html = server
        .client()
        .get(format!("{}/graphql", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(html.status().as_u16(), 200);
    assert!(html
        .text()
        .await
        .unwrap()
        .to_lowercase()
        .contains("graphiql"));
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_demo_prints_a_key_and_serves_the_bundled_data() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--demo"]);
    let key = server.demo_key();
    let (status, doc) = server.get("/v2/containers", Some(&key)).await;
    assert_eq!(status, 200);
    assert!(
        doc["meta"]["total"].as_u64().unwrap() > 100,
        "demo has pages to turn: {}",
        doc["meta"]
    );
    drop(server);
    // Idempotent: a second start loads nothing new.
    let server = Server::start(&db, &["--demo"]);
    let key = server.demo_key();
    let (_, again) = server.get("/v2/containers", Some(&key)).await;
    assert_eq!(again["meta"], doc["meta"]);
}

async fn terminal_and_rail_fields_over_both_apis(db: &TestDb) {
    let key = db.create_account("terminals");
    // `teu generate` writes terminal checks (CSV and JSON lines), line deadlines and rail legs
    // beside the DCSA feed.
    let feed = generated_feed(80, 2026);
    let out = db.ingest("terminals", &[feed.path().to_path_buf()]);
    let got = summaries(&out);
    let by_name = |n: &str| {
        got.iter()
            .find(|g| g.0 == n)
            .unwrap_or_else(|| panic!("{n} in {out}"))
    };
    for name in [
        "terminal-checks.csv",
        "terminal-checks.jsonl",
        "line-deadlines.csv",
        "rail-events.json",
    ] {
        let (_, read, accepted, quarantined) = by_name(name);
        assert!(
            *read > 0 && read == accepted && *quarantined == 0,
            "{name}: {out}"
        );
    }
    let server = Server::start(db, &[]);
    let mut all = Vec::new();
    let mut page = 1;
    loop {
        let (_, d) = server
            .get(
                &format!("/v2/containers?page[number]={page}&page[size]=100"),
                Some(&key),
            )
            .await;
        all.extend(d["data"].as_array().unwrap().iter().cloned());
        if d["links"]["next"].is_null() {
            break;
        }
        page += 1;
    }
    let attr = |c: &Value, f: &str| c["attributes"][f].clone();
    let known: Vec<&Value> = all
        .iter()
        .filter(|c| attr(c, "availability_known") == true)
        .collect();
    assert!(!known.is_empty(), "terminal checks reached containers");
    for c in &known {
        assert!(!attr(c, "terminal_checked_at").is_null());
        assert!(!attr(c, "location_at_pod_terminal").is_null());
        let d = attr(c, "import_deadlines");
        assert!(d["pickup_lfd_terminal"].is_string(), "{d}");
        assert_eq!(
            attr(c, "pickup_lfd"),
            if d["pickup_lfd_line"].is_string() {
                d["pickup_lfd_line"].clone()
            } else if d["pickup_lfd_rail"].is_string() {
                d["pickup_lfd_rail"].clone()
            } else {
                d["pickup_lfd_terminal"].clone()
            }
        );
        assert!(!c["relationships"]["pod_terminal"]["data"].is_null());
    }
    assert!(all.iter().all(
        |c| attr(c, "availability_known") == true || attr(c, "available_for_pickup").is_null()
    ));
    let statuses: HashSet<String> = known
        .iter()
        .map(|c| attr(c, "current_status").as_str().unwrap().to_string())
        .collect();
    assert!(
        statuses.iter().any(
            |s| ["available", "not_available", "picked_up", "empty_returned"].contains(&s.as_str())
        ),
        "{statuses:?}"
    );
    let railed: Vec<&Value> = all
        .iter()
        .filter(|c| attr(c, "pod_rail_carrier_scac").is_string())
        .collect();
    assert!(!railed.is_empty(), "rail legs reached containers");
    for c in &railed {
        assert!(["UPRR", "BNSF", "CSXT", "NSRR"]
            .contains(&attr(c, "pod_rail_carrier_scac").as_str().unwrap()));
        assert!(attr(c, "final_destination_timezone").is_string());
        assert!(attr(c, "ind_eta_at").is_string() || attr(c, "ind_ata_at").is_string());
    }
    // GraphQL gives the same values for a container with terminal data.
    let c = known[0];
    let (_, g) = server
        .graphql(
            Some(&key),
            "query($id: ID!) { container(id: $id) { availabilityKnown availableForPickup currentStatus locationAtPodTerminal
                holdsAtPodTerminal { name status } feesAtPodTerminal { type amount currencyCode }
                importDeadlines { pickupLfdTerminal pickupLfdLine } } }",
            serde_json::json!({"id": c["id"]}),
        )
        .await;
    let n = &g["data"]["container"];
    assert_eq!(n["availabilityKnown"], true, "{g}");
    assert_eq!(n["availableForPickup"], attr(c, "available_for_pickup"));
    assert_eq!(
        n["currentStatus"].as_str().unwrap().to_lowercase(),
        attr(c, "current_status").as_str().unwrap()
    );
    assert_eq!(
        n["locationAtPodTerminal"],
        attr(c, "location_at_pod_terminal")
    );
    assert_eq!(
        n["holdsAtPodTerminal"].as_array().unwrap().len(),
        attr(c, "holds_at_pod_terminal").as_array().unwrap().len()
    );
    assert_eq!(
        n["feesAtPodTerminal"].as_array().unwrap().len(),
        attr(c, "fees_at_pod_terminal").as_array().unwrap().len()
    );
}

/// `Store::upsert_derived` given a container whose shipment it is not given (a caller adding a
/// box to a stored shipment) reads that shipment's members again from `containers`
/// (migration 40): both APIs then list the box with the shipment's others, in number order.
async fn a_box_stored_without_its_shipment_joins_its_members(db: &TestDb) {
    db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let store = teu_store::Store::connect(&db.url).await.expect("store");
    let account = store
        .account_by_name("acme")
        .await
        .expect("account")
        .expect("acme");
    let (stored, _) = store
        .list_containers(account.id, 0, 100)
        .await
        .expect("containers");
    let base = stored.first().expect("a container").clone();
    let mut added = base.clone();
    added.id = uuid::Uuid::new_v5(&base.id, b"added box");
    // Sorts before every ISO 6346 number (four letters first).
    added.number = teu_pipeline::model::ContainerNumber::parse("0TEST00001").expect("number");
    store
        .upsert_derived(
            account.id,
            &[],
            &[added.clone()],
            &[],
            &Default::default(),
            &[],
        )
        .await
        .expect("upsert");
    let mut want: Vec<(String, uuid::Uuid)> = stored
        .iter()
        .filter(|c| c.shipment_id == base.shipment_id)
        .map(|c| (c.number.as_str().to_string(), c.id))
        .collect();
    want.push(("0TEST00001".to_string(), added.id));
    want.sort();
    let want: Vec<uuid::Uuid> = want.into_iter().map(|(_, id)| id).collect();
    let served = store
        .shipments_with_members(account.id, &[base.shipment_id])
        .await
        .expect("shipments with members");
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].1, want, "/v2's members");
    let ids = store
        .container_ids_of_shipments(account.id, &[base.shipment_id])
        .await
        .expect("container ids");
    assert_eq!(ids[&base.shipment_id], want, "GraphQL's members");
}

/// A page of containers with `include=shipment` reads its shipments in the page's own
/// statement (`Store::list_containers_reading`); `GET /v2/shipments/{id}` reads one
/// shipment by id. Over every page of a generated feed, with one shipment tagged, one given
/// reference numbers and one stopped by the user (the columns the page joins beside the
/// body), each page includes exactly its containers' shipments, in the order the page first
/// names them, each the same resource as the shipment's own document; the GraphQL page names
/// the same shipments with the same container ids.
async fn included_shipments_are_the_shipments_own_documents(db: &TestDb) {
    let key = db.create_account("incl");
    let feed = generated_feed(12, 21);
    db.ingest("incl", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let edit = |path: String, body: Option<Value>| {
        let mut req = server
            .client()
            .patch(format!("{}{path}", server.base))
            .header("Authorization", format!("Token {key}"));
        if let Some(body) = body {
            req = req.json(&body);
        }
        async move {
            let resp = req.send().await.expect("request");
            assert_eq!(resp.status().as_u16(), 200, "{path}");
        }
    };
    let (_, shipments) = server.get("/v2/shipments?page[size]=3", Some(&key)).await;
    let sids = ids(&shipments);
    assert_eq!(sids.len(), 3);
    edit(
        format!("/v2/shipments/{}", sids[0]),
        Some(serde_json::json!({"data": {"attributes": {"tags": ["key-account"]}}})),
    )
    .await;
    edit(
        format!("/v2/shipments/{}", sids[1]),
        Some(serde_json::json!({"data": {"attributes": {"ref_numbers": ["PO-4711"]}}})),
    )
    .await;
    edit(format!("/v2/shipments/{}/stop_tracking", sids[2]), None).await;

    let size = 5;
    let (_, first) = server
        .get(&format!("/v2/containers?page[size]={size}"), Some(&key))
        .await;
    let total = first["meta"]["total"].as_u64().expect("total") as usize;
    let mut edited_seen = HashSet::new();
    let mut after: Option<String> = None;
    for n in 1..=total.div_ceil(size) {
        let (status, doc) = server
            .get(
                &format!("/v2/containers?include=shipment&page[number]={n}&page[size]={size}"),
                Some(&key),
            )
            .await;
        assert_eq!(status, 200, "{doc}");
        let mut want: Vec<String> = Vec::new();
        for c in doc["data"].as_array().expect("data") {
            let sid = c["relationships"]["shipment"]["data"]["id"]
                .as_str()
                .expect("shipment id")
                .to_string();
            if !want.contains(&sid) {
                want.push(sid);
            }
        }
        let included = doc["included"].as_array().expect("included");
        let got: Vec<String> = included
            .iter()
            .map(|s| s["id"].as_str().expect("id").to_string())
            .collect();
        assert_eq!(
            got, want,
            "page {n}: the page's shipments, once each, in order"
        );
        for s in included {
            let id = s["id"].as_str().expect("id");
            let (status, own) = server.get(&format!("/v2/shipments/{id}"), Some(&key)).await;
            assert_eq!(status, 200, "{own}");
            assert_eq!(s, &own["data"], "page {n}: shipment {id}");
            if sids.iter().any(|e| e == id) {
                edited_seen.insert(id.to_string());
            }
        }

        // The GraphQL page of the same containers.
        let (_, gql) = server
            .graphql(
                Some(&key),
                "query($n: Int!, $after: String) { containers(first: $n, after: $after) { \
                   pageInfo { endCursor } nodes { id events { id } shipment { id \
                   billOfLadingNumber tags refNumbers lineTrackingStoppedAt containers { id } } } } }",
                serde_json::json!({ "n": size, "after": after }),
            )
            .await;
        after = gql["data"]["containers"]["pageInfo"]["endCursor"]
            .as_str()
            .map(str::to_string);
        let nodes = gql["data"]["containers"]["nodes"]
            .as_array()
            .expect("nodes");
        assert_eq!(nodes.len(), doc["data"].as_array().expect("data").len());
        for (node, c) in nodes.iter().zip(doc["data"].as_array().expect("data")) {
            assert_eq!(node["id"], c["id"], "page {n}: the same order");
            let sid = &c["relationships"]["shipment"]["data"]["id"];
            let s = included.iter().find(|s| &s["id"] == sid).expect("included");
            let g = &node["shipment"];
            assert_eq!(&g["id"], sid);
            assert_eq!(
                g["billOfLadingNumber"],
                s["attributes"]["bill_of_lading_number"]
            );
            assert_eq!(g["tags"], s["attributes"]["tags"]);
            assert_eq!(g["refNumbers"], s["attributes"]["ref_numbers"]);
            let instant = |v: &Value| {
                v.as_str()
                    .map(|t| chrono::DateTime::parse_from_rfc3339(t).expect("RFC 3339"))
            };
            assert_eq!(
                instant(&g["lineTrackingStoppedAt"]),
                instant(&s["attributes"]["line_tracking_stopped_at"]),
                "shipment {sid}"
            );
            let members: Vec<&Value> = g["containers"]
                .as_array()
                .expect("containers")
                .iter()
                .map(|m| &m["id"])
                .collect();
            let rest: Vec<&Value> = s["relationships"]["containers"]["data"]
                .as_array()
                .expect("containers")
                .iter()
                .map(|m| &m["id"])
                .collect();
            assert_eq!(members, rest, "shipment {sid}: container ids");
        }
    }
    assert_eq!(edited_seen.len(), 3, "every edited shipment was on a page");
}
