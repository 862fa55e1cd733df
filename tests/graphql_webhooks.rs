//! Webhooks, webhook notifications and container transport/raw events over GraphQL (issue 19),
//! through the real binary on a random port, on SQLite and PostgreSQL. Every GraphQL answer is
//! compared with what `/v2` serves for the same records (never with hard-coded counts): the
//! two APIs read the same store functions and must not differ.

#[macro_use]
mod common;

use common::{data, generated_feed, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    webhooks_are_managed_through_graphql_as_v2_shows_them,
    notifications_and_transport_events_equal_v2,
);

/// Runs a query and fails on any error; returns `data`.
async fn data_of(server: &Server, key: &str, query: &str, variables: Value) -> Value {
    let (status, body) = server.graphql(Some(key), query, variables).await;
    assert_eq!(status, 200, "{query}: {body}");
    assert!(body.get("errors").is_none(), "{query}: {body}");
    body["data"].clone()
}

/// Runs a query that must fail; returns the first error.
async fn error_of(server: &Server, key: &str, query: &str, variables: Value) -> Value {
    let (_, body) = server.graphql(Some(key), query, variables).await;
    assert!(
        body["errors"].is_array(),
        "{query}: expected an error: {body}"
    );
    body["errors"][0].clone()
}

const WEBHOOK: &str = "id url active events headers { name value } createdAt updatedAt";

const CREATE: &str = "mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { secret webhook { id url active events headers { name value } createdAt updatedAt } } }";

const UPDATE: &str = "mutation($id: ID!, $i: UpdateWebhookInput!) { updateWebhook(id: $id, input: $i) { id url active events headers { name value } createdAt updatedAt } }";

/// The `/v2` webhook resource of a GraphQL webhook (and its secret), to compare with `/v2`.
fn as_v2(w: &Value, secret: &str) -> Value {
    json!({
        "id": w["id"], "type": "webhook",
        "attributes": {
            "url": w["url"], "active": w["active"], "events": w["events"],
            "headers": w["headers"], "secret": secret,
            "created_at": w["createdAt"], "updated_at": w["updatedAt"],
        }
    })
}

async fn webhooks_are_managed_through_graphql_as_v2_shows_them(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    let server = Server::start(db, &["--no-webhook-delivery"]);

    // Create: the answer and /v2 hold the same webhook, secret included.
    let input = json!({
        "url": "https://example.com/t49", "events": ["container.updated"],
        "headers": [{"name": "X-Secret-Sauce", "value": "sriracha"}]
    });
    let d = data_of(&server, &key, CREATE, json!({ "i": input })).await;
    let created = d["createWebhook"]["webhook"].clone();
    let secret = d["createWebhook"]["secret"].as_str().expect("secret");
    assert_eq!(secret.len(), 64, "{d}");
    assert_eq!(created["active"], true, "active defaults to true");
    let id = created["id"].as_str().expect("id").to_string();
    let (status, list) = server.get("/v2/webhooks", Some(&key)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"], json!([as_v2(&created, secret)]));

    // The connection and the lookup answer it; the secret is not a field of Webhook.
    let d = data_of(
        &server,
        &key,
        &format!(
            "query($id: ID!) {{ webhooks(first: 10) {{ totalCount nodes {{ {WEBHOOK} }} }} \
             webhook(id: $id) {{ {WEBHOOK} }} }}"
        ),
        json!({ "id": id }),
    )
    .await;
    assert_eq!(d["webhooks"]["totalCount"], 1);
    assert_eq!(d["webhooks"]["nodes"], json!([created.clone()]));
    assert_eq!(d["webhook"], created);
    let e = error_of(
        &server,
        &key,
        "{ webhooks { nodes { secret } } }",
        json!({}),
    )
    .await;
    assert!(
        e["message"].as_str().unwrap_or_default().contains("secret"),
        "{e}"
    );

    // Update: present fields replace, absent ones stay; /v2 shows the change.
    let d = data_of(
        &server,
        &key,
        UPDATE,
        json!({ "id": id, "i": {"active": false,
            "events": ["container.created", "tracking_request.succeeded"]} }),
    )
    .await;
    let updated = d["updateWebhook"].clone();
    assert_eq!(updated["active"], false);
    assert_eq!(updated["url"], "https://example.com/t49");
    assert_eq!(updated["headers"], created["headers"]);
    assert_eq!(
        updated["events"],
        json!(["container.created", "tracking_request.succeeded"])
    );
    let (_, one) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(one["data"], as_v2(&updated, secret));
    // `headers: null` removes them all.
    let d = data_of(
        &server,
        &key,
        UPDATE,
        json!({ "id": id, "i": {"headers": null} }),
    )
    .await;
    assert_eq!(d["updateWebhook"]["headers"], json!([]));

    // Each broken rule is BAD_USER_INPUT naming the field, and nothing is stored.
    let bad = [
        (json!({"url": "ftp://example.com"}), "url", "input.url"),
        (
            json!({"url": "https://example.com", "events": []}),
            "events",
            "input.events",
        ),
        (
            json!({"url": "https://example.com", "events": ["container.updated", "container.sunk"]}),
            "events",
            "input.events[1]",
        ),
        (
            json!({"url": "https://example.com", "events": ["container.created", "container.created"]}),
            "events",
            "input.events[1]",
        ),
        (
            json!({"url": "https://example.com",
                   "headers": [{"name": "Content-Type", "value": "text/plain"}]}),
            "headers",
            "input.headers[0].name",
        ),
    ];
    for (input, field, path) in bad {
        let e = error_of(&server, &key, CREATE, json!({ "i": input })).await;
        assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{input}: {e}");
        assert_eq!(e["extensions"]["field"], field, "{input}: {e}");
        assert!(
            e["message"].as_str().unwrap_or_default().starts_with(path),
            "{input}: {e}"
        );
    }
    let e = error_of(
        &server,
        &key,
        UPDATE,
        json!({ "id": id, "i": {"events": ["nope"]} }),
    )
    .await;
    assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{e}");
    assert_eq!(e["extensions"]["field"], "events", "{e}");
    let (_, list) = server.get("/v2/webhooks", Some(&key)).await;
    assert_eq!(list["meta"]["total"], 1, "refused inputs stored nothing");
    let (_, one) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(one["data"]["attributes"]["events"], updated["events"]);

    // Another account: null, an empty list, NOT_FOUND for the mutations, as for a made-up id.
    let missing = "00000000-0000-4000-8000-000000000000";
    let q = "query($id: ID!) { webhook(id: $id) { id } webhooks { totalCount } }";
    for probe in [id.as_str(), missing, "not-an-id"] {
        let d = data_of(&server, &other, q, json!({ "id": probe })).await;
        assert_eq!(d["webhook"], Value::Null, "{probe}");
        assert_eq!(d["webhooks"]["totalCount"], 0, "{probe}");
        for (query, vars) in [
            (UPDATE, json!({ "id": probe, "i": {"active": true} })),
            (
                "mutation($id: ID!) { deleteWebhook(id: $id) }",
                json!({ "id": probe }),
            ),
        ] {
            let e = error_of(&server, &other, query, vars).await;
            assert_eq!(e["extensions"]["code"], "NOT_FOUND", "{probe}: {e}");
            assert_eq!(
                e["message"]
                    .as_str()
                    .unwrap_or_default()
                    .replace(probe, "<id>"),
                "no webhook with id \"<id>\"",
            );
        }
    }
    let (_, one) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(
        one["data"]["attributes"]["active"], false,
        "untouched by the other account"
    );

    // The catalog: the same categories and events as /v2, with emittedWhen.
    let d = data_of(
        &server,
        &key,
        "{ webhookEvents { id name events { name description emittedWhen } } }",
        json!({}),
    )
    .await;
    let (_, v2) = server.get("/v2/webhooks/events", Some(&key)).await;
    let v2_catalog: Vec<Value> = v2["data"]
        .as_array()
        .expect("categories")
        .iter()
        .map(|c| {
            json!({
                "id": c["id"], "name": c["attributes"]["name"],
                "events": c["attributes"]["events"].as_array().expect("events").iter()
                    .map(|e| json!({"name": e["name"], "description": e["description"],
                                    "emittedWhen": e["emitted_when"]}))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    assert!(!v2_catalog.is_empty());
    assert_eq!(d["webhookEvents"], json!(v2_catalog));

    // Delete: answered with the id; gone from /v2; a second delete is NOT_FOUND.
    let del = "mutation($id: ID!) { deleteWebhook(id: $id) }";
    let d = data_of(&server, &key, del, json!({ "id": id })).await;
    assert_eq!(d["deleteWebhook"], id);
    let (status, _) = server.get(&format!("/v2/webhooks/{id}"), Some(&key)).await;
    assert_eq!(status, 404);
    let e = error_of(&server, &key, del, json!({ "id": id })).await;
    assert_eq!(e["extensions"]["code"], "NOT_FOUND", "{e}");
}

const NOTIFICATION: &str = "id event deliveryStatus createdAt webhookId \
    webhook { id url } referenceObject { type id }";

/// Every notification GraphQL lists for `filter`, page by page (50 at a time).
async fn gql_notifications(server: &Server, key: &str, filter: Value) -> (u64, Vec<Value>) {
    let q = format!(
        "query($f: WebhookNotificationFilter, $after: String) {{ \
         webhookNotifications(first: 50, after: $after, filter: $f) {{ totalCount \
         pageInfo {{ hasNextPage endCursor }} nodes {{ {NOTIFICATION} }} }} }}"
    );
    let mut out = Vec::new();
    let mut after = Value::Null;
    loop {
        let d = data_of(server, key, &q, json!({ "f": filter, "after": after })).await;
        let c = &d["webhookNotifications"];
        out.extend(c["nodes"].as_array().expect("nodes").iter().cloned());
        if c["pageInfo"]["hasNextPage"] != true {
            return (c["totalCount"].as_u64().expect("totalCount"), out);
        }
        after = c["pageInfo"]["endCursor"].clone();
    }
}

/// Every notification `/v2/webhook_notifications` lists, page by page.
async fn v2_notifications(server: &Server, key: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1.. {
        let (status, body) = server
            .get(
                &format!("/v2/webhook_notifications?page[number]={page}&page[size]=50"),
                Some(key),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let data = body["data"].as_array().expect("data");
        out.extend(data.iter().cloned());
        if out.len() as u64 >= body["meta"]["total"].as_u64().expect("total") || data.is_empty() {
            break;
        }
    }
    out
}

/// A GraphQL notification in the `/v2` resource shape.
fn notification_as_v2(n: &Value) -> Value {
    json!({
        "id": n["id"], "type": "webhook_notification",
        "attributes": {
            "event": n["event"],
            "delivery_status": n["deliveryStatus"].as_str().map(str::to_ascii_lowercase),
            "created_at": n["createdAt"],
        },
        "relationships": {
            "webhook": {"data": {"id": n["webhookId"], "type": "webhook"}},
            "reference_object": {"data": {"id": n["referenceObject"]["id"],
                                          "type": n["referenceObject"]["type"]}},
        }
    })
}

async fn notifications_and_transport_events_equal_v2(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    // Deliveries are off: every notification stays pending.
    let server = Server::start(db, &["--no-webhook-delivery"]);
    let d = data_of(
        &server,
        &key,
        CREATE,
        json!({ "i": {"url": "http://127.0.0.1:9/unreachable"} }),
    )
    .await;
    let hook = d["createWebhook"]["webhook"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    db.ingest(
        "acme",
        &[
            data("dcsa/tnt-220-response.json"),
            generated_feed(3, 41).path().into(),
        ],
    );

    // The same notifications, in the same order, with the same values.
    let v2 = v2_notifications(&server, &key).await;
    assert!(!v2.is_empty(), "the ingest made notifications");
    let (total, gql) = gql_notifications(&server, &key, Value::Null).await;
    assert_eq!(total, v2.len() as u64);
    let as_v2: Vec<Value> = gql.iter().map(notification_as_v2).collect();
    assert_eq!(as_v2, v2);
    assert!(
        gql.iter().all(|n| n["webhook"]["id"] == hook.as_str()),
        "webhook of each"
    );

    // Filters select what they say.
    let first_event = gql[0]["event"].as_str().expect("event").to_string();
    let (n, of_event) = gql_notifications(&server, &key, json!({"event": first_event})).await;
    let want: Vec<&Value> = gql
        .iter()
        .filter(|n| n["event"] == first_event.as_str())
        .collect();
    assert_eq!(n as usize, want.len());
    assert_eq!(of_event.iter().collect::<Vec<_>>(), want);
    let (n, _) = gql_notifications(&server, &key, json!({"deliveryStatus": "PENDING"})).await;
    assert_eq!(n, total, "deliveries are off: all pending");
    let (n, _) = gql_notifications(&server, &key, json!({"webhookId": hook})).await;
    assert_eq!(n, total);
    let (n, _) = gql_notifications(
        &server,
        &key,
        json!({"webhookId": "00000000-0000-4000-8000-000000000000"}),
    )
    .await;
    assert_eq!(n, 0);
    for (filter, field) in [
        (json!({"event": "container.sunk"}), "event"),
        (json!({"webhookId": "nope"}), "webhookId"),
    ] {
        let e = error_of(
            &server,
            &key,
            "query($f: WebhookNotificationFilter) { webhookNotifications(filter: $f) { totalCount } }",
            json!({ "f": filter }),
        )
        .await;
        assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{e}");
        assert_eq!(e["extensions"]["field"], field, "{e}");
    }

    // One by id; another account sees nothing.
    let nid = gql[0]["id"].as_str().expect("id");
    let q = format!("query($id: ID!) {{ webhookNotification(id: $id) {{ {NOTIFICATION} }} }}");
    let d = data_of(&server, &key, &q, json!({ "id": nid })).await;
    assert_eq!(d["webhookNotification"], gql[0]);
    let d = data_of(&server, &other, &q, json!({ "id": nid })).await;
    assert_eq!(d["webhookNotification"], Value::Null);
    let (n, _) = gql_notifications(&server, &other, Value::Null).await;
    assert_eq!(n, 0);

    // Transport and raw events of every container equal /v2's.
    let (status, containers) = server
        .get("/v2/containers?page[size]=100", Some(&key))
        .await;
    assert_eq!(status, 200, "{containers}");
    let containers = containers["data"].as_array().expect("containers").clone();
    assert!(!containers.is_empty());
    let q = "query($id: ID!) { container(id: $id) { \
        transportEvents { id event createdAt voyageNumber timestamp timezone locationLocode \
                          dataSource location { id } shipment { id } } \
        rawEvents { id event originalEvent timestamp estimated actualAt estimatedAt index \
                    createdAt voyageNumber locationName locationLocode vesselName vesselImo \
                    timezone location { id } } } }";
    let mut transport_seen = 0;
    for c in &containers {
        let cid = c["id"].as_str().expect("id");
        let d = data_of(&server, &key, q, json!({ "id": cid })).await;
        let (status, v2) = server
            .get(
                &format!("/v2/containers/{cid}/transport_events"),
                Some(&key),
            )
            .await;
        assert_eq!(status, 200, "{v2}");
        let want: Vec<Value> = v2["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(|e| {
                let a = &e["attributes"];
                json!({
                    "id": e["id"], "event": a["event"], "createdAt": a["created_at"],
                    "voyageNumber": a["voyage_number"], "timestamp": a["timestamp"],
                    "timezone": a["timezone"], "locationLocode": a["location_locode"],
                    "dataSource": a["data_source"].as_str().map(str::to_ascii_uppercase),
                    "location": e["relationships"]["location"]["data"]["id"].as_str()
                        .map(|id| json!({"id": id})),
                    "shipment": {"id": e["relationships"]["shipment"]["data"]["id"]},
                })
            })
            .collect();
        assert_eq!(d["container"]["transportEvents"], json!(want), "{cid}");
        transport_seen += want.len();

        let (status, v2) = server
            .get(&format!("/v2/containers/{cid}/raw_events"), Some(&key))
            .await;
        assert_eq!(status, 200, "{v2}");
        let want: Vec<Value> = v2["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(|e| {
                let a = &e["attributes"];
                json!({
                    "id": e["id"], "event": a["event"], "originalEvent": a["original_event"],
                    "timestamp": a["timestamp"], "estimated": a["estimated"],
                    "actualAt": a["actual_at"], "estimatedAt": a["estimated_at"],
                    "index": a["index"], "createdAt": a["created_at"],
                    "voyageNumber": a["voyage_number"], "locationName": a["location_name"],
                    "locationLocode": a["location_locode"], "vesselName": a["vessel_name"],
                    "vesselImo": a["vessel_imo"], "timezone": a["timezone"],
                    "location": e["relationships"]["location"]["data"]["id"].as_str()
                        .map(|id| json!({"id": id})),
                })
            })
            .collect();
        assert_eq!(d["container"]["rawEvents"], json!(want), "{cid}");
        // Another account: the container is null, so are its events.
        let d = data_of(&server, &other, q, json!({ "id": cid })).await;
        assert_eq!(d["container"], Value::Null);
    }
    assert!(transport_seen > 0, "some container has transport events");

    // Deleting the webhook fails its pending notifications; they stay listed, webhook null.
    data_of(
        &server,
        &key,
        "mutation($id: ID!) { deleteWebhook(id: $id) }",
        json!({ "id": hook }),
    )
    .await;
    let (n, failed) = gql_notifications(&server, &key, json!({"deliveryStatus": "FAILED"})).await;
    assert_eq!(n, total);
    assert!(
        failed.iter().all(|n| n["webhook"].is_null()),
        "the webhook is gone"
    );
    let v2 = v2_notifications(&server, &key).await;
    assert_eq!(
        failed.iter().map(notification_as_v2).collect::<Vec<_>>(),
        v2
    );
}
