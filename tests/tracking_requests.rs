//! End-to-end tests of `/v2/tracking_requests`: the real binary, SQLite (and PostgreSQL when
//! `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use common::{data, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    pending_until_feed_data_arrives,
    list_is_paginated,
    graphql_and_rest_share_one_domain_path
);

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

    // A later request for the same box's booking (`documentReferences`, BKG): the box's
    // `shipment_last_tracking_request_at` is the latest request for its shipment's numbers
    // (`pipeline/src/shipment_facts.rs`), so this one's `created_at`.
    let (status, later) = post(&server, &key, request("ABC123123123", "CMDU", "booking")).await;
    assert_eq!(status, 201, "{later}");
    let last_request = later["data"]["attributes"]["created_at"].clone();
    assert!(last_request.is_string(), "{later}");

    // Feed data for the number arrives: the request is linked to its shipment.
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let (status, boxes) = server
        .get("/v2/containers?filter[number]=APZU4812090", Some(&key))
        .await;
    assert_eq!(status, 200, "{boxes}");
    assert_eq!(
        boxes["data"][0]["attributes"]["shipment_last_tracking_request_at"], last_request,
        "{boxes}"
    );
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
    assert_eq!(list["meta"]["total"], 2);
    assert_eq!(list["meta"]["size"], 30);
    // Another account sees nothing of it.
    let other = db.create_account("other");
    let (status, _) = server
        .get(&format!("/v2/tracking_requests/{id}"), Some(&other))
        .await;
    assert_eq!(status, 404);
}

async fn list_is_paginated(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start(db, &[]);
    let numbers = [
        "APZU4812090",
        "MSKU1234565",
        "TCLU1234565",
        "HHL71800000",
        "ABC709951",
    ];
    let mut created = Vec::new();
    for n in numbers {
        let (status, body) = post(&server, &key, request(n, "MAEU", "booking")).await;
        assert_eq!(status, 201, "{body}");
        created.push(body["data"]["id"].as_str().unwrap().to_string());
    }

    // Walk pages of 2 through `next`: every request once, newest first, as one full list.
    let (status, all) = server.get("/v2/tracking_requests", Some(&key)).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["meta"], json!({"size": 30, "total": 5}));
    let all_ids: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(all_ids.len(), 5);
    let mut sorted = all_ids.clone();
    sorted.sort();
    let mut want = created.clone();
    want.sort();
    assert_eq!(sorted, want);

    let base = server.base.clone();
    let link = |n: u64| format!("{base}/v2/tracking_requests?page[number]={n}&page[size]=2");
    let (status, p1) = server
        .get("/v2/tracking_requests?page[size]=2", Some(&key))
        .await;
    assert_eq!(status, 200, "{p1}");
    assert_eq!(p1["meta"], json!({"size": 2, "total": 5}));
    assert_eq!(
        p1["links"],
        json!({"first": link(1), "next": link(2), "last": link(3),
               "self": link(1), "current": link(1)})
    );
    let mut walked: Vec<String> = Vec::new();
    let mut page = p1;
    loop {
        for r in page["data"].as_array().unwrap() {
            walked.push(r["id"].as_str().unwrap().to_string());
        }
        let Some(next) = page["links"]["next"].as_str() else {
            break;
        };
        let path = next.strip_prefix(&base).unwrap().to_string();
        let (status, p) = server.get(&path, Some(&key)).await;
        assert_eq!(status, 200, "{p}");
        page = p;
    }
    assert_eq!(walked, all_ids);
    assert_eq!(page["links"]["self"], link(3));
    assert_eq!(page["links"]["prev"], link(2));
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    // Past the end: an empty page whose prev steps back onto the last page.
    let (status, past) = server
        .get(
            "/v2/tracking_requests?page[number]=9&page[size]=2",
            Some(&key),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(past["data"], json!([]));
    assert_eq!(past["links"]["prev"], link(3));
    assert!(past["links"].get("next").is_none(), "{past}");

    // Bad values: 400 JSON:API errors naming the parameter.
    for (q, param) in [
        ("page[size]=0", "page[size]"),
        ("page[size]=101", "page[size]"),
        ("page[size]=abc", "page[size]"),
        ("page[number]=0", "page[number]"),
        ("page[number]=-1", "page[number]"),
        ("include=shipment", "include"),
    ] {
        let (status, body) = server
            .get(&format!("/v2/tracking_requests?{q}"), Some(&key))
            .await;
        assert_eq!(status, 400, "{q}: {body}");
        assert_eq!(body["errors"][0]["status"], "400");
        assert_eq!(body["errors"][0]["source"]["parameter"], param, "{q}");
    }
    // Another account: an empty list.
    let other = db.create_account("other");
    let (_, list) = server.get("/v2/tracking_requests", Some(&other)).await;
    assert_eq!(list["meta"]["total"], 0);
    assert_eq!(list["data"], json!([]));
}

const CREATE: &str = "mutation($input: CreateTrackingRequestInput!) { \
    createTrackingRequest(input: $input) { id requestNumber requestType scac status \
    createdAt updatedAt shipment { id billOfLadingNumber } } }";

async fn graphql_and_rest_share_one_domain_path(db: &TestDb) {
    let key = db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-300-response.json")]);
    let server = Server::start(db, &[]);

    // Created over GraphQL (the DCSA 3.0 sample's bill of lading is stored: linked at once).
    let input = json!({"input": {"requestNumber": "hhl 718-00000", "requestType": "BILL_OF_LADING",
                                 "scac": "exco"}});
    let (status, body) = server.graphql(Some(&key), CREATE, input).await;
    assert_eq!(status, 200);
    assert!(body.get("errors").is_none(), "{body}");
    let g = &body["data"]["createTrackingRequest"];
    assert_eq!(g["requestNumber"], "HHL71800000");
    assert_eq!(g["requestType"], "BILL_OF_LADING");
    assert_eq!(g["scac"], "EXCO");
    assert_eq!(g["status"], "CREATED");
    assert_eq!(g["shipment"]["billOfLadingNumber"], "HHL71800000");
    let id = g["id"].as_str().unwrap().to_string();

    // Read back over /v2: the same values.
    let (status, rest) = server
        .get(&format!("/v2/tracking_requests/{id}"), Some(&key))
        .await;
    assert_eq!(status, 200, "{rest}");
    let a = &rest["data"]["attributes"];
    assert_eq!(a["request_number"], g["requestNumber"]);
    assert_eq!(a["request_type"], "bill_of_lading");
    assert_eq!(a["scac"], g["scac"]);
    assert_eq!(a["status"], "created");
    assert_eq!(a["created_at"], g["createdAt"]);
    assert_eq!(a["updated_at"], g["updatedAt"]);
    assert_eq!(
        rest["data"]["relationships"]["shipment"]["data"]["id"],
        g["shipment"]["id"]
    );
    // The same number through /v2 is the same request.
    let (status, body) = post(
        &server,
        &key,
        request("HHL71800000", "EXCO", "bill_of_lading"),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(body["data"]["id"], id.as_str());

    // The same rules refuse the same values: a 422 pointer in /v2, the field in GraphQL.
    for (number, scac, field) in [
        ("", "EXCO", "request_number"),
        ("HHL-718/00000?", "EXCO", "request_number"),
        ("HHL71800000", "EXCOX", "scac"),
    ] {
        let (status, rest) = post(&server, &key, request(number, scac, "bill_of_lading")).await;
        assert_eq!(status, 422, "{rest}");
        assert_eq!(
            rest["errors"][0]["source"]["pointer"],
            format!("/data/attributes/{field}")
        );
        let input = json!({"input": {"requestNumber": number, "requestType": "BILL_OF_LADING",
                                     "scac": scac}});
        let (status, body) = server.graphql(Some(&key), CREATE, input).await;
        assert_eq!(status, 200);
        let e = &body["errors"][0];
        assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{body}");
        let camel = if field == "scac" {
            "scac"
        } else {
            "requestNumber"
        };
        assert_eq!(e["extensions"]["field"], camel);
        // Same problem text after the field name.
        let rest_detail = rest["errors"][0]["detail"].as_str().unwrap();
        let problem = rest_detail
            .strip_prefix(field)
            .unwrap()
            .trim_end_matches('.');
        assert!(
            e["message"].as_str().unwrap().ends_with(problem),
            "{e} vs {rest_detail}"
        );
    }

    // The GraphQL list and by-id read what /v2 wrote; another account sees none of it.
    let q = format!(
        "{{ trackingRequests {{ totalCount nodes {{ id }} }} trackingRequest(id: \"{id}\") {{ id }} }}"
    );
    let (_, body) = server.graphql(Some(&key), &q, json!({})).await;
    assert_eq!(body["data"]["trackingRequests"]["totalCount"], 1, "{body}");
    assert_eq!(body["data"]["trackingRequest"]["id"], id.as_str());
    let other = db.create_account("other");
    let (_, body) = server.graphql(Some(&other), &q, json!({})).await;
    assert_eq!(
        body["data"],
        json!({"trackingRequests": {"totalCount": 0, "nodes": []}, "trackingRequest": null})
    );
    let (status, _) = server.graphql(None, CREATE, json!({})).await;
    assert_eq!(status, 401);
}
