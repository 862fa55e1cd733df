//! What existing Terminal49 clients call besides reading lists (issue 19, "The rest of /v2"):
//! shipment edits, stop/resume tracking, tracking requests with reference numbers, tags,
//! filters and PATCH, list filters and includes, terminals, vessels, and the 413 a client that
//! sends its whole body first can read. The real binary on SQLite (and PostgreSQL when
//! `TEU_TEST_POSTGRES_URL` is set); expectations come from independent sources: a second
//! account that ingested the same feed without edits, the unfiltered lists, the per-container
//! event routes, the bundled facility list and the DCSA events themselves.

#[macro_use]
mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{containers_with_shipments, data, generated_feed, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    shipment_edits_and_tracking_requests,
    lists_includes_and_reference
);

/// PATCH `path` with `body`; status and JSON answer.
async fn patch(server: &Server, key: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = server
        .client()
        .patch(format!("{}{path}", server.base))
        .header("Authorization", format!("Token {key}"));
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("JSON"))
}

/// POST a tracking request; status and JSON answer.
async fn track(server: &Server, key: &str, attributes: Value) -> (u16, Value) {
    let resp = server
        .client()
        .post(format!("{}/v2/tracking_requests", server.base))
        .header("Authorization", format!("Token {key}"))
        .json(&json!({"data": {"type": "tracking_request", "attributes": attributes}}))
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("JSON"))
}

/// The ids of a list page's `data`.
fn ids(page: &Value) -> BTreeSet<&str> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

async fn shipment_edits_and_tracking_requests(db: &TestDb) {
    let key = db.create_account("acme");
    let baseline_key = db.create_account("baseline");
    let other = db.create_account("other");
    let server = Server::start(db, &["--no-webhook-delivery"]);

    // A tracking request made before the feed arrives, carrying reference numbers and tags.
    let (status, made) = track(
        &server,
        &key,
        json!({"request_number": "MSKU4000010", "request_type": "container", "scac": "MAEU",
               "ref_numbers": ["PO-1", " PO-1 "], "shipment_tags": ["urgent"]}),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let request_id = made["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(made["data"]["attributes"]["status"], "pending");
    assert_eq!(
        strings(&made["data"]["attributes"]["ref_numbers"]),
        ["PO-1"]
    );
    assert_eq!(
        made["data"]["relationships"]["tracked_object"]["data"],
        Value::Null
    );
    let (status, bad) = track(
        &server,
        &key,
        json!({"request_number": "MSKU4000010", "request_type": "container", "scac": "MAEU",
               "shipment_tags": "urgent"}),
    )
    .await;
    assert_eq!(status, 422, "{bad}");
    assert_eq!(
        bad["errors"][0]["source"]["pointer"],
        "/data/attributes/shipment_tags"
    );

    let case = data("dcsa-cases/04-transshipment-rolled/events.json");
    db.ingest("acme", std::slice::from_ref(&case));
    db.ingest("baseline", std::slice::from_ref(&case));

    // The request found its shipment and handed it the tags and reference numbers.
    let (_, tr) = server
        .get(&format!("/v2/tracking_requests/{request_id}"), Some(&key))
        .await;
    assert_eq!(tr["data"]["attributes"]["status"], "created", "{tr}");
    let shipment_id = tr["data"]["relationships"]["tracked_object"]["data"]["id"]
        .as_str()
        .expect("tracked_object")
        .to_string();
    assert_eq!(
        tr["data"]["relationships"]["tracked_object"]["data"]["type"],
        "shipment"
    );
    let (_, baseline) = server.get("/v2/shipments", Some(&baseline_key)).await;
    let feed_refs = strings(&baseline["data"][0]["attributes"]["ref_numbers"]);
    let (_, s) = server
        .get(&format!("/v2/shipments/{shipment_id}"), Some(&key))
        .await;
    let mut expected = feed_refs.clone();
    expected.push("PO-1".into());
    assert_eq!(strings(&s["data"]["attributes"]["ref_numbers"]), expected);
    assert_eq!(strings(&s["data"]["attributes"]["tags"]), ["urgent"]);

    // PATCH replaces each list it names; the feeds' own numbers stay.
    let path = format!("/v2/shipments/{shipment_id}");
    let (status, s) = patch(
        &server,
        &key,
        &path,
        Some(json!({"data": {"type": "shipment", "attributes":
            {"ref_numbers": ["X-9"], "tags": ["west", "hot"]}}})),
    )
    .await;
    assert_eq!(status, 200, "{s}");
    let mut expected = feed_refs.clone();
    expected.push("X-9".into());
    assert_eq!(strings(&s["data"]["attributes"]["ref_numbers"]), expected);
    assert_eq!(strings(&s["data"]["attributes"]["tags"]), ["hot", "west"]);
    let (status, s) = patch(
        &server,
        &key,
        &path,
        Some(json!({"data": {"attributes": {"tags": []}}})),
    )
    .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        strings(&s["data"]["attributes"]["tags"]),
        Vec::<String>::new()
    );
    assert_eq!(strings(&s["data"]["attributes"]["ref_numbers"]), expected);
    for (body, pointer) in [
        (
            json!({"data": {"attributes": {"tags": [1]}}}),
            "/data/attributes/tags/0",
        ),
        (
            json!({"data": {"attributes": {"ref_numbers": "X"}}}),
            "/data/attributes/ref_numbers",
        ),
        (
            json!({"data": {"attributes": {"ref_numbers": [" "]}}}),
            "/data/attributes/ref_numbers",
        ),
        (
            json!({"data": {"type": "container", "attributes": {}}}),
            "/data/type",
        ),
    ] {
        let (status, e) = patch(&server, &key, &path, Some(body.clone())).await;
        assert_eq!(status, 422, "{body}: {e}");
        assert_eq!(e["errors"][0]["source"]["pointer"], pointer, "{body}");
    }

    // What the user set survives a re-derivation from the stored events.
    let out = db.teu(&["rederive", "--account", "acme"]);
    assert!(out.status.success(), "{out:?}");
    let (_, s) = server.get(&path, Some(&key)).await;
    assert_eq!(strings(&s["data"]["attributes"]["ref_numbers"]), expected);

    // Stop and resume tracking, seen by the tracking_stopped filter.
    let (status, s) = patch(&server, &key, &format!("{path}/stop_tracking"), None).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        s["data"]["attributes"]["line_tracking_stopped_reason"],
        "cancelled_by_user"
    );
    let (_, stopped) = server
        .get("/v2/shipments?filter[tracking_stopped]=true", Some(&key))
        .await;
    assert_eq!(stopped["data"][0]["id"], shipment_id.as_str(), "{stopped}");
    let (status, s) = patch(&server, &key, &format!("{path}/resume_tracking"), None).await;
    assert_eq!(status, 200, "{s}");
    assert_ne!(
        s["data"]["attributes"]["line_tracking_stopped_reason"],
        "cancelled_by_user"
    );
    let (_, running) = server
        .get("/v2/shipments?filter[tracking_stopped]=true", Some(&key))
        .await;
    let (_, baseline_stopped) = server
        .get(
            "/v2/shipments?filter[tracking_stopped]=true",
            Some(&baseline_key),
        )
        .await;
    assert_eq!(running["meta"]["total"], baseline_stopped["meta"]["total"]);

    // Another account cannot edit, stop or patch what is not its own.
    for (path, body) in [
        (
            path.clone(),
            Some(json!({"data": {"attributes": {"tags": ["mine"]}}})),
        ),
        (format!("{path}/stop_tracking"), None),
        (
            format!("/v2/tracking_requests/{request_id}"),
            Some(json!({"data": {"type": "tracking_request", "attributes": {"ref_number": "Z"}}})),
        ),
    ] {
        let (status, e) = patch(&server, &other, &path, body).await;
        assert_eq!(status, 404, "{path}: {e}");
        assert!(e["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("Couldn't find"));
    }

    // PATCH a tracking request: Terminal49's single `ref_number`, then lists.
    let (status, tr) = patch(
        &server,
        &key,
        &format!("/v2/tracking_requests/{request_id}"),
        Some(json!({"data": {"type": "tracking_request", "attributes": {"ref_number": "ONE"}}})),
    )
    .await;
    assert_eq!(status, 200, "{tr}");
    assert_eq!(strings(&tr["data"]["attributes"]["ref_numbers"]), ["ONE"]);
    assert_eq!(
        strings(&tr["data"]["attributes"]["shipment_tags"]),
        ["urgent"]
    );

    // Filters of the tracking request list, checked against the unfiltered list.
    for (n, scac) in [
        ("MSKU4000027", "MAEU"),
        ("HLXU1234561", "HLCU"),
        ("HLCUBKG1", "HLCU"),
    ] {
        let kind = if n.len() == 11 {
            "container"
        } else {
            "booking_number"
        };
        let (status, r) = track(
            &server,
            &key,
            json!({"request_number": n, "request_type": kind, "scac": scac}),
        )
        .await;
        assert_eq!(status, 201, "{r}");
    }
    // GraphQL creates the same kind of request through the same rules.
    let (status, g) = server
        .graphql(
            Some(&key),
            "mutation { createTrackingRequest(input: {requestNumber: \"MSKU4000034\", \
             requestType: CONTAINER, scac: \"MAEU\", refNumbers: [\"G-1\"], \
             shipmentTags: [\"gql\"]}) { id refNumbers shipmentTags failedReason } }",
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{g}");
    let made = &g["data"]["createTrackingRequest"];
    let (_, rest) = server
        .get(
            &format!("/v2/tracking_requests/{}", made["id"].as_str().unwrap()),
            Some(&key),
        )
        .await;
    assert_eq!(
        made["refNumbers"],
        rest["data"]["attributes"]["ref_numbers"]
    );
    assert_eq!(
        made["shipmentTags"],
        rest["data"]["attributes"]["shipment_tags"]
    );
    assert_eq!(strings(&made["refNumbers"]), ["G-1"]);
    let (_, g) = server
        .graphql(
            Some(&key),
            "mutation { createTrackingRequest(input: {requestNumber: \"MSKU4000041\", \
             requestType: CONTAINER, scac: \"MAEU\", refNumbers: [\"\"]}) { id } }",
            json!({}),
        )
        .await;
    assert_eq!(g["errors"][0]["extensions"]["field"], "refNumbers", "{g}");

    let (_, all) = server.get("/v2/tracking_requests", Some(&key)).await;
    let all = all["data"].as_array().unwrap().clone();
    assert_eq!(all.len(), 5);
    let count = |f: &dyn Fn(&Value) -> bool| all.iter().filter(|r| f(r)).count();
    for (query, expected) in [
        (
            "filter[scac]=hlcu",
            count(&|r| r["attributes"]["scac"] == "HLCU"),
        ),
        (
            "filter[status]=pending",
            count(&|r| r["attributes"]["status"] == "pending"),
        ),
        (
            "filter[status]=created",
            count(&|r| r["attributes"]["status"] == "created"),
        ),
        ("filter[request_number]=hlxu-123456-1", 1),
        ("filter[created_at][end]=2000-01-01", 0),
        ("filter[updated_at][start]=2000-01-01&filter[scac]=MAEU", 3),
    ] {
        let (status, page) = server
            .get(&format!("/v2/tracking_requests?{query}"), Some(&key))
            .await;
        assert_eq!(status, 200, "{query}: {page}");
        assert_eq!(page["meta"]["total"], expected, "{query}");
        assert_eq!(page["data"].as_array().unwrap().len(), expected, "{query}");
    }
    let (status, e) = server
        .get("/v2/tracking_requests?filter[status]=lost", Some(&key))
        .await;
    assert_eq!(status, 400, "{e}");
    assert_eq!(e["errors"][0]["source"]["parameter"], "filter[status]");
}

async fn lists_includes_and_reference(db: &TestDb) {
    let key = db.create_account_with("acme", true);
    let plain = db.create_account("plain");
    let feed = generated_feed(12, 3);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &["--no-webhook-delivery"]);
    let all = containers_with_shipments(&server, &key).await;
    assert!(all.len() > 12, "{} containers", all.len());

    // Status and POD filters against the unfiltered list.
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    for (c, _) in &all {
        *by_status
            .entry(
                c["attributes"]["current_status"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
            .or_default() += 1;
    }
    for (status, n) in &by_status {
        let (code, page) = server
            .get(
                &format!("/v2/containers?filter[status]={status}"),
                Some(&key),
            )
            .await;
        assert_eq!(code, 200, "{page}");
        assert_eq!(page["meta"]["total"], *n, "status {status}");
    }
    let (pod_container, pod_shipment) = &all[0];
    let pod = pod_shipment["attributes"]["port_of_discharge_locode"]
        .as_str()
        .unwrap();
    let pod_shipments: BTreeSet<&str> = all
        .iter()
        .filter(|(_, s)| s["attributes"]["port_of_discharge_locode"] == pod)
        .map(|(_, s)| s["id"].as_str().unwrap())
        .collect();
    let (_, page) = server
        .get(
            &format!(
                "/v2/shipments?filter[pod]={}&page[size]=100",
                pod.to_lowercase()
            ),
            Some(&key),
        )
        .await;
    assert_eq!(ids(&page), pod_shipments);
    // One page: no prev or next member at all (Terminal49's schema types them as strings).
    assert!(page["links"].get("prev").is_none() && page["links"].get("next").is_none());

    // The tracking-stopped filter against every shipment's own attribute: the feeds stop
    // tracking a shipment once all its containers are back empty (no user stop here).
    let shipments: BTreeMap<&str, &Value> = all
        .iter()
        .map(|(_, s)| (s["id"].as_str().unwrap(), s))
        .collect();
    for stopped in [true, false] {
        let want: BTreeSet<&str> = shipments
            .iter()
            .filter(|(_, s)| s["attributes"]["line_tracking_stopped_at"].is_string() == stopped)
            .map(|(id, _)| *id)
            .collect();
        assert!(!want.is_empty(), "the feed has shipments stopped={stopped}");
        let (code, page) = server
            .get(
                &format!("/v2/shipments?filter[tracking_stopped]={stopped}&page[size]=100"),
                Some(&key),
            )
            .await;
        assert_eq!(code, 200, "{page}");
        assert_eq!(ids(&page), want, "filter[tracking_stopped]={stopped}");
    }
    let number = pod_container["attributes"]["number"].as_str().unwrap();
    let (_, one) = server
        .get(
            &format!("/v2/containers?filter[number]={number}"),
            Some(&key),
        )
        .await;
    assert_eq!(one["meta"]["total"], 1);

    // Included events are those of the per-container routes; terminals are the facility list's.
    let facilities = std::fs::read_to_string(data("reference/facilities.csv")).unwrap();
    let (_, page) = server
        .get(
            "/v2/containers?page[size]=5&include=transport_events,raw_events,pod_terminal",
            Some(&key),
        )
        .await;
    let included = page["included"].as_array().unwrap();
    for c in page["data"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        for kind in ["transport_events", "raw_events"] {
            let (_, own) = server
                .get(&format!("/v2/containers/{id}/{kind}"), Some(&key))
                .await;
            for e in own["data"].as_array().unwrap() {
                assert!(included.contains(e), "{kind} of {id} not included: {e}");
            }
            let ids: Vec<&Value> = c["relationships"][kind]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| &r["id"])
                .collect();
            for rid in ids {
                assert!(
                    included.iter().any(|i| &i["id"] == rid),
                    "{kind} {rid} of {id} missing from included"
                );
            }
        }
        if let Some(t) = c["relationships"]["pod_terminal"]["data"]["id"].as_str() {
            let term = included
                .iter()
                .find(|i| i["id"] == t && i["type"] == "terminal")
                .expect("pod_terminal included");
            let (_, alone) = server.get(&format!("/v2/terminals/{t}"), Some(&key)).await;
            assert_eq!(&alone["data"], term);
            if let Some(smdg) = term["attributes"]["smdg_code"].as_str() {
                let name = term["attributes"]["name"].as_str().unwrap();
                assert!(
                    facilities
                        .lines()
                        .any(|l| l.starts_with(&format!("{name},"))
                            && l.contains(&format!(",{smdg},"))),
                    "{name} {smdg} not in facilities.csv"
                );
            }
        }
    }

    // Vessels: by IMO and by the id transport events link to; named as the DCSA events do.
    let raw = included
        .iter()
        .find(|i| i["type"] == "raw_event" && i["attributes"]["vessel_imo"].is_string())
        .expect("an event with a vessel");
    let imo = raw["attributes"]["vessel_imo"].as_str().unwrap();
    let (status, v) = server.get(&format!("/v2/vessels/{imo}"), Some(&key)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"]["type"], "vessel");
    assert_eq!(v["data"]["attributes"]["imo"], imo);
    assert_eq!(
        v["data"]["attributes"]["name"],
        raw["attributes"]["vessel_name"]
    );
    let vessel_id = raw["relationships"]["vessel"]["data"]["id"]
        .as_str()
        .unwrap();
    assert_eq!(v["data"]["id"], vessel_id);
    let (_, by_id) = server
        .get(&format!("/v2/vessels/{vessel_id}"), Some(&key))
        .await;
    assert_eq!(by_id, v);
    let (status, _) = server.get("/v2/vessels/9999998", Some(&key)).await;
    assert_eq!(status, 404);
    let (status, e) = server
        .get(&format!("/v2/vessels/{imo}"), Some(&plain))
        .await;
    assert_eq!(status, 403, "{e}");

    // A client that sends its whole oversized body before reading gets the 413, not a reset.
    let addr = server.base.trim_start_matches("http://").to_string();
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut conn = std::net::TcpStream::connect(&addr).unwrap();
        let len = 3 << 20;
        let head = format!(
            "POST /v2/tracking_requests HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Token {key}\r\n\
             Content-Type: application/json\r\nContent-Length: {len}\r\n\r\n"
        );
        conn.write_all(head.as_bytes()).unwrap();
        conn.write_all(&vec![b' '; len])
            .expect("the server reads the body it refuses");
        let mut text = String::new();
        let _ = conn.read_to_string(&mut text);
        text
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"status\":\"413\""), "{answer}");
}
