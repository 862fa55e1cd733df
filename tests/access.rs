//! Access matrix (issue 8): one account can never read, count or infer the existence of another
//! account's records. Every `/v2` resource and GraphQL field, asked by another account for ids
//! that exist, answers exactly as for ids that do not (404, never 403; null in GraphQL), lists
//! and counts are empty, and inference does not use another account's history. `map_geojson`
//! and GraphQL `Container.route` are in the matrix; subscriptions have their own cross-account
//! test (`tests/subscriptions.rs`: another account's subscriber hears nothing).

#[macro_use]
mod common;

use common::{data, generated_feed, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(no_account_sees_another_accounts_records);

/// The error title and status of a 404, with the id taken out of the detail so that answers for
/// an existing and a missing id can be compared.
fn not_found_shape(status: u16, body: &Value, id: &str) -> (u16, String, String) {
    let e = &body["errors"][0];
    (
        status,
        e["title"].as_str().unwrap_or_default().to_string(),
        e["detail"].as_str().unwrap_or_default().replace(id, "<id>"),
    )
}

async fn no_account_sees_another_accounts_records(db: &TestDb) {
    let owner = db.create_account("owner");
    let feed = generated_feed(20, 7);
    db.ingest(
        "owner",
        &[
            data("dcsa/tnt-220-response.json"),
            feed.path().into(),
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("feeds/tests/email/thirdparty-015.eml"),
        ],
    );
    let intruder = db.create_account("intruder");
    let fresh = db.create_account("fresh");
    let server = Server::start(db, &["--no-webhook-delivery"]);

    // The owner's ids, one of each resource kind.
    let mut ids: Vec<(&str, String)> = Vec::new();
    for kind in ["containers", "shipments", "email_submissions"] {
        let (status, body) = server.get(&format!("/v2/{kind}"), Some(&owner)).await;
        assert_eq!(status, 200, "{kind}: {body}");
        let id = body["data"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{kind}: {body}"));
        ids.push((kind, id.to_string()));
    }

    // A second key of the owner's (`teu accounts key`) reads the same records; the first
    // stays valid; no key is issued for a name no account has.
    let out = db.teu(&["accounts", "key", "--name", "owner"]);
    assert!(out.status.success(), "{out:?}");
    let second = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(second.starts_with("teu_") && second != owner, "{second}");
    for key in [&owner, &second] {
        let (status, body) = server.get("/v2/containers", Some(key)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"][0]["id"].as_str(), Some(ids[0].1.as_str()));
    }
    let out = db.teu(&["accounts", "key", "--name", "nobody"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let resp = server
        .client()
        .post(format!("{}/v2/tracking_requests", server.base))
        .header("Authorization", format!("Token {owner}"))
        .header("Content-Type", "application/json")
        .body(
            json!({"data": {"type": "tracking_request", "attributes": {
                "request_number": "MEDUFR030802", "scac": "MSCU", "request_type": "bill_of_lading"
            }}})
            .to_string(),
        )
        .send()
        .await
        .expect("create");
    assert_eq!(resp.status().as_u16(), 201);
    let tr: Value = resp.json().await.expect("JSON");
    ids.push((
        "tracking_requests",
        tr["data"]["id"].as_str().expect("id").to_string(),
    ));
    // A webhook, and the notifications of a later ingest (delivery is off in this server).
    let resp = server
        .client()
        .post(format!("{}/v2/webhooks", server.base))
        .header("Authorization", format!("Token {owner}"))
        .json(&json!({"data": {"type": "webhook", "attributes": {
            "url": "https://example.com/hook", "events": ["container.created"]}}}))
        .send()
        .await
        .expect("create webhook");
    assert_eq!(resp.status().as_u16(), 201);
    let hook: Value = resp.json().await.expect("JSON");
    ids.push((
        "webhooks",
        hook["data"]["id"].as_str().expect("id").to_string(),
    ));
    let more = generated_feed(3, 99);
    db.ingest("owner", &[more.path().into()]);
    let (status, body) = server.get("/v2/webhook_notifications", Some(&owner)).await;
    assert_eq!(status, 200, "{body}");
    ids.push((
        "webhook_notifications",
        body["data"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no notification: {body}"))
            .to_string(),
    ));

    // /v2 by id: the owner sees each; the intruder gets the same 404 as for a made-up id.
    let missing = "00000000-0000-4000-8000-000000000000";
    for (kind, id) in &ids {
        let (status, body) = server.get(&format!("/v2/{kind}/{id}"), Some(&owner)).await;
        assert_eq!(status, 200, "owner {kind}: {body}");
        let (s1, b1) = server
            .get(&format!("/v2/{kind}/{id}"), Some(&intruder))
            .await;
        let (s2, b2) = server
            .get(&format!("/v2/{kind}/{missing}"), Some(&intruder))
            .await;
        assert_eq!(s1, 404, "intruder {kind}: {b1}");
        assert_eq!(
            not_found_shape(s1, &b1, id),
            not_found_shape(s2, &b2, missing),
            "{kind}: an existing id must look like a missing one"
        );
    }
    // map_geojson: an account with the Routing Data feature gets, for another account's
    // container, the 404 of a made-up id; one without the feature gets the same 403 for both,
    // so neither learns the id exists. GraphQL's `route` hangs off a container it cannot reach.
    let mapper = db.create_account_with("mapper", true);
    let cid = ids[0].1.clone();
    for (key, expected) in [(&mapper, 404), (&intruder, 403)] {
        let (s1, b1) = server
            .get(&format!("/v2/containers/{cid}/map_geojson"), Some(key))
            .await;
        let (s2, b2) = server
            .get(&format!("/v2/containers/{missing}/map_geojson"), Some(key))
            .await;
        assert_eq!(s1, expected, "map_geojson: {b1}");
        assert_eq!(
            not_found_shape(s1, &b1, &cid),
            not_found_shape(s2, &b2, missing),
            "map_geojson: an existing id must look like a missing one"
        );
    }
    // A container's events, and the edits: another account's id answers as a made-up one.
    let sid = ids
        .iter()
        .find(|(k, _)| *k == "shipments")
        .unwrap()
        .1
        .clone();
    let tid = ids
        .iter()
        .find(|(k, _)| *k == "tracking_requests")
        .unwrap()
        .1
        .clone();
    for (method, path, body) in [
        (
            "GET",
            format!("/v2/containers/{cid}/transport_events"),
            None,
        ),
        ("GET", format!("/v2/containers/{cid}/raw_events"), None),
        (
            "PATCH",
            format!("/v2/shipments/{sid}"),
            Some(json!({"data": {"attributes": {"tags": ["x"]}}})),
        ),
        ("PATCH", format!("/v2/shipments/{sid}/stop_tracking"), None),
        (
            "PATCH",
            format!("/v2/shipments/{sid}/resume_tracking"),
            None,
        ),
        (
            "PATCH",
            format!("/v2/tracking_requests/{tid}"),
            Some(json!({"data": {"type": "tracking_request", "attributes": {"ref_number": "X"}}})),
        ),
    ] {
        let made_up = path
            .replace(&cid, missing)
            .replace(&sid, missing)
            .replace(&tid, missing);
        let mut answers = Vec::new();
        for target in [&path, &made_up] {
            let mut req = server
                .client()
                .request(method.parse().unwrap(), format!("{}{target}", server.base))
                .header("Authorization", format!("Token {intruder}"));
            if let Some(b) = &body {
                req = req.json(b);
            }
            let resp = req.send().await.expect("request");
            let status = resp.status().as_u16();
            let v: Value = resp.json().await.expect("JSON");
            let (status, title, detail) = not_found_shape(status, &v, missing);
            let detail = [&cid, &sid, &tid]
                .iter()
                .fold(detail, |d, id| d.replace(id.as_str(), "<id>"));
            answers.push((status, title, detail));
        }
        assert_eq!(answers[0].0, 404, "{method} {path}: {answers:?}");
        assert_eq!(
            answers[0], answers[1],
            "{method} {path}: an existing id must look like a missing one"
        );
    }
    // The owner's shipment is untouched by those attempts.
    let (_, s) = server
        .get(&format!("/v2/shipments/{sid}"), Some(&owner))
        .await;
    assert_eq!(s["data"]["attributes"]["tags"], json!([]), "{s}");
    // Vessels the owner's events name (no AIS here) are unknown to another account.
    let (_, raw) = server
        .get(&format!("/v2/containers/{cid}/raw_events"), Some(&owner))
        .await;
    let imo = raw["data"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|e| e["attributes"]["vessel_imo"].as_str())
        .expect("an event with a vessel")
        .to_string();
    let (s1, b1) = server
        .get(&format!("/v2/vessels/{imo}"), Some(&mapper))
        .await;
    let (s2, b2) = server.get("/v2/vessels/9999998", Some(&mapper)).await;
    assert_eq!(s1, 404, "{b1}");
    assert_eq!(
        not_found_shape(s1, &b1, &imo),
        not_found_shape(s2, &b2, "9999998")
    );
    // Filtered lists count nothing of another account's.
    let (_, c) = server
        .get(&format!("/v2/containers/{cid}"), Some(&owner))
        .await;
    let number = c["data"]["attributes"]["number"].as_str().unwrap();
    let (_, mine) = server
        .get(
            &format!("/v2/containers?filter[number]={number}"),
            Some(&owner),
        )
        .await;
    assert_eq!(mine["meta"]["total"], 1);
    let (_, theirs) = server
        .get(
            &format!("/v2/containers?filter[number]={number}"),
            Some(&intruder),
        )
        .await;
    assert_eq!(theirs["meta"]["total"], 0);
    let (status, body) = server
        .graphql(
            Some(&mapper),
            "query($c: ID!) { container(id: $c) { id route { featureCollection } } }",
            json!({ "c": cid }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["container"], Value::Null, "{body}");

    // Lists and counts.
    for kind in [
        "containers",
        "shipments",
        "email_submissions",
        "tracking_requests",
        "webhooks",
        "webhook_notifications",
    ] {
        let (status, body) = server.get(&format!("/v2/{kind}"), Some(&intruder)).await;
        assert_eq!(status, 200, "{kind}: {body}");
        assert_eq!(body["meta"]["total"], 0, "{kind}: {body}");
        assert_eq!(body["data"], json!([]), "{kind}");
        let (_, body) = server.get(&format!("/v2/{kind}"), Some(&owner)).await;
        assert!(body["meta"]["total"].as_u64().unwrap() >= 1, "owner {kind}");
    }

    // GraphQL: the same ids are null, the connections empty.
    let id_of = |kind: &str| ids.iter().find(|(k, _)| *k == kind).unwrap().1.clone();
    let query = "query($c: ID!, $s: ID!, $e: ID!, $t: ID!, $w: ID!, $n: ID!) {
        container(id: $c) { id } shipment(id: $s) { id }
        emailSubmission(id: $e) { id } trackingRequest(id: $t) { id }
        webhook(id: $w) { id } webhookNotification(id: $n) { id }
        containers(first: 5) { totalCount } shipments(first: 5) { totalCount }
        emailSubmissions(first: 5) { totalCount } trackingRequests(first: 5) { totalCount }
        webhooks(first: 5) { totalCount } webhookNotifications(first: 5) { totalCount } }";
    let vars = json!({
        "c": id_of("containers"), "s": id_of("shipments"),
        "e": id_of("email_submissions"), "t": id_of("tracking_requests"),
        "w": id_of("webhooks"), "n": id_of("webhook_notifications"),
    });
    let (status, body) = server.graphql(Some(&intruder), query, vars.clone()).await;
    assert_eq!(status, 200, "{body}");
    let d = &body["data"];
    let by_id = [
        "container",
        "shipment",
        "emailSubmission",
        "trackingRequest",
        "webhook",
        "webhookNotification",
    ];
    for field in by_id {
        assert_eq!(d[field], Value::Null, "{field}: {body}");
    }
    for field in [
        "containers",
        "shipments",
        "emailSubmissions",
        "trackingRequests",
        "webhooks",
        "webhookNotifications",
    ] {
        assert_eq!(d[field]["totalCount"], 0, "{field}: {body}");
    }
    let (_, body) = server.graphql(Some(&owner), query, vars).await;
    for field in by_id {
        assert!(
            body["data"][field]["id"].as_str().is_some(),
            "owner {field}: {body}"
        );
    }

    // Inference: the intruder's answer for the owner's container numbers equals a fresh
    // account's, so the owner's history (owner prefix -> SCAC counts) does not leak.
    let (_, body) = server
        .get("/v2/containers?page[size]=10", Some(&owner))
        .await;
    for c in body["data"].as_array().unwrap() {
        let number = c["attributes"]["number"].as_str().unwrap();
        let mut answers = Vec::new();
        for key in [&intruder, &fresh] {
            let resp = server
                .client()
                .post(format!("{}/v2/tracking_requests/infer_number", server.base))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "application/json")
                .body(json!({ "number": number }).to_string())
                .send()
                .await
                .expect("infer");
            assert_eq!(resp.status().as_u16(), 200);
            let v: Value = resp.json().await.expect("JSON");
            answers.push(v["data"]["attributes"].clone());
        }
        assert_eq!(answers[0], answers[1], "{number}");
    }
}
