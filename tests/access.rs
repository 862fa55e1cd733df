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
                .join("pipeline/tests/email/thirdparty-015.eml"),
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
