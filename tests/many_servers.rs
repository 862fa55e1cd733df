//! Many servers on one PostgreSQL (issue 8): two `teu serve` processes on different ports share
//! one database; what is written through one is read through the other.

mod common;

use common::{data, Server, TestDb};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn postgres_two_servers_share_writes() {
    let Some(db) = TestDb::postgres().await else {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    };
    let key = db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let a = Server::start(&db, &[]);
    let b = Server::start(&db, &[]);
    assert_ne!(a.base, b.base);

    // A tracking request created through server A ...
    let resp = a
        .client()
        .post(format!("{}/v2/tracking_requests", a.base))
        .header("Authorization", format!("Token {key}"))
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
    let created: serde_json::Value = resp.json().await.expect("JSON");
    let id = created["data"]["id"].as_str().expect("id").to_string();

    // ... is read through server B, alone and in the list, over REST and GraphQL.
    let (status, body) = b
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["attributes"]["request_number"], "MEDUFR030802");
    let (status, body) = b.get("/v2/tracking_requests", Some(&key)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["total"], 1);
    let (status, body) = b
        .graphql(
            Some(&key),
            "query($id: ID!) { trackingRequest(id: $id) { requestNumber scac } }",
            json!({ "id": id }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["trackingRequest"],
        json!({"requestNumber": "MEDUFR030802", "scac": "MSCU"})
    );

    // Data ingested by a third process is served by both.
    for server in [&a, &b] {
        let (status, body) = server.get("/v2/containers", Some(&key)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["meta"]["total"], 1);
    }
    drop((a, b));
    db.cleanup().await;
}
