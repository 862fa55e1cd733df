//! End-to-end tests of `/v2/tracking_requests`: the real binary, SQLite (and PostgreSQL when
//! `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use common::{data, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(pending_until_feed_data_arrives);

async fn post(server: &Server, key: &str, body: Value) -> (u16, Value) {
    let resp = server
        .client()
        .post(format!("{}/v2/tracking_requests", server.base))
        .header("Authorization", format!("Token {key}"))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("JSON body"))
}

fn request(number: &str, scac: &str, kind: &str) -> Value {
    json!({"data": {"type": "tracking_request",
        "attributes": {"request_number": number, "scac": scac, "request_type": kind}}})
}

async fn pending_until_feed_data_arrives(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start(db, &[]);

    let (status, body) = post(&server, &key, request("apzu 4812090", "CMDU", "container")).await;
    assert_eq!(status, 201, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(body["data"]["type"], "tracking_request");
    assert_eq!(body["data"]["attributes"]["request_number"], "APZU4812090");
    assert_eq!(body["data"]["attributes"]["status"], "pending");
    assert_eq!(
        body["data"]["relationships"]["shipment"]["data"],
        Value::Null
    );

    // Validation errors point at the member.
    for (bad, pointer) in [
        (json!({"data": {"type": "shipment"}}), "/data/type"),
        (
            request("", "CMDU", "container"),
            "/data/attributes/request_number",
        ),
        (
            request("APZU4812090", "C-1", "container"),
            "/data/attributes/scac",
        ),
        (
            request("APZU4812090", "CMDU", "pallet"),
            "/data/attributes/request_type",
        ),
    ] {
        let (status, body) = post(&server, &key, bad).await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["errors"][0]["source"]["pointer"], pointer);
    }

    // Feed data for the number arrives: the request is linked to its shipment.
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let (status, body) = server
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["attributes"]["status"], "created");
    let shipment = body["data"]["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .expect("linked shipment")
        .to_string();
    let (status, _) = server
        .get(&format!("/v2/shipments/{shipment}"), Some(&key))
        .await;
    assert_eq!(status, 200);

    let (status, list) = server.get("/v2/tracking_requests", Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(list["meta"]["total"], 1);
    // Another account sees nothing of it.
    let other = db.create_account("other");
    let (status, _) = server
        .get(&format!("/v2/tracking_requests/{id}"), Some(&other))
        .await;
    assert_eq!(status, 404);
}
