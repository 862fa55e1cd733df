//! The GraphQL facade (issue 7) through real HTTP on a random port, on SQLite and PostgreSQL:
//! filters and sort orders of `containers` and `shipments` (and the start-up backfill of their
//! columns), the tag and tracking mutations as `/v2/shipments` shows them, the protections
//! (page cap, input checks, depth limit, automatic persisted queries, introspection switch,
//! query timeout) and the error codes.

#[macro_use]
mod common;

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use common::{generated_feed, Server, TestDb};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

on_both_backends!(
    filters_and_orders_select_what_the_rules_say,
    mutations_change_what_v2_shows,
    protections_and_error_codes,
);

/// Runs a query and fails on any error; returns `data`.
async fn data(server: &Server, key: &str, query: &str, variables: Value) -> Value {
    let (status, body) = server.graphql(Some(key), query, variables).await;
    assert_eq!(status, 200, "{query}: {body}");
    assert!(body.get("errors").is_none(), "{query}: {body}");
    body["data"].clone()
}

/// Runs a query that must fail; returns the first error.
async fn error(server: &Server, key: Option<&str>, query: &str, variables: Value) -> Value {
    let (_, body) = server.graphql(key, query, variables).await;
    body["errors"][0].clone()
}

fn ts(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str().map(|s| s.parse().expect("RFC 3339"))
}

fn ids<'a>(nodes: impl IntoIterator<Item = &'a Value>) -> HashSet<String> {
    nodes
        .into_iter()
        .map(|n| n["id"].as_str().expect("id").to_string())
        .collect()
}

const CONTAINER_NODE: &str = "id number currentStatus hasHolds pickupLfd updatedAt \
    shipment { id billOfLadingNumber portOfLadingLocode portOfDischargeLocode shippingLineScac podEtaAt }";

/// `containers` with `filter` and `orderBy`: (totalCount, nodes).
async fn containers(server: &Server, key: &str, filter: Value, order: &str) -> (u64, Vec<Value>) {
    let q = format!(
        "query($f: ListFilter) {{ containers(first: 100, filter: $f, orderBy: {order}) \
         {{ totalCount nodes {{ {CONTAINER_NODE} }} }} }}"
    );
    let d = data(server, key, &q, json!({ "f": filter })).await;
    let total = d["containers"]["totalCount"].as_u64().expect("totalCount");
    let nodes = d["containers"]["nodes"].as_array().expect("nodes").clone();
    (total, nodes)
}

/// Every container in `order`, walked `size` at a time with the connection's cursors, each
/// page selecting its shipments (on PostgreSQL a page's rows are chosen before their
/// shipments are joined: `Store::container_page`).
async fn walk_pages(server: &Server, key: &str, order: &str, size: usize) -> Vec<Value> {
    let q = format!(
        "query($after: String) {{ containers(first: {size}, after: $after, orderBy: {order}) \
         {{ pageInfo {{ hasNextPage endCursor }} nodes {{ {CONTAINER_NODE} }} }} }}"
    );
    let (mut walked, mut after) = (Vec::new(), Value::Null);
    loop {
        let d = data(server, key, &q, json!({ "after": after })).await;
        let page = &d["containers"];
        let nodes = page["nodes"].as_array().expect("nodes");
        assert!(nodes.len() <= size, "{order}: a page of {}", nodes.len());
        walked.extend(nodes.iter().cloned());
        if page["pageInfo"]["hasNextPage"] != true {
            return walked;
        }
        assert_eq!(nodes.len(), size, "{order}: a page before the last is full");
        after = page["pageInfo"]["endCursor"].clone();
    }
}

/// The ids of `nodes`, in their order.
fn id_list(nodes: &[Value]) -> Vec<&str> {
    nodes
        .iter()
        .map(|n| n["id"].as_str().expect("id"))
        .collect()
}

/// Blanks the filter columns as if the rows were written before migration 09.
async fn forget_filter_columns(db: &TestDb) {
    let url = if db.url.starts_with("sqlite:") {
        format!("{}?mode=rw", db.url)
    } else {
        db.url.clone()
    };
    let mut conn = teu_store::db::Conn::connect(&url).await.expect("connect");
    for sql in [
        "UPDATE containers SET pickup_lfd = NULL, has_holds = NULL, filters_at = NULL",
        "UPDATE shipments SET pol_locode = NULL, pod_locode = NULL, shipping_line_scac = NULL, \
         pod_eta_at = NULL, filters_at = NULL",
    ] {
        teu_store::db::query(sql)
            .execute(&mut conn)
            .await
            .expect(sql);
    }
}

/// Puts a customs hold on the last check of the first `n` containers of a generated terminal
/// file, and takes its gate-out away (the generator releases every hold).
fn put_holds(path: &std::path::Path, n: usize) {
    let text = std::fs::read_to_string(path).expect("terminal checks");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (hold, gate_out) = (col("Customs Hold"), col("Gate Out"));
    let mut last: Vec<(String, usize)> = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let number = f[0].to_string();
        match last.iter_mut().find(|(c, _)| *c == number) {
            Some(entry) => entry.1 = i,
            None => last.push((number, i)),
        }
    }
    let mut done = 0;
    for (_, i) in last {
        let mut f: Vec<String> = lines[i].split(',').map(str::to_string).collect();
        if done == n {
            break;
        }
        f[hold] = "HOLD".into();
        f[gate_out].clear();
        lines[i] = f.join(",");
        done += 1;
    }
    assert_eq!(done, n, "containers in the file");
    std::fs::write(path, lines.join("\n") + "\n").expect("write");
}

/// Whether `items` are ascending by `key` with the missing ones last.
fn ascending_nulls_last<T: PartialOrd + std::fmt::Debug>(items: &[Option<T>]) -> bool {
    let first_none = items
        .iter()
        .position(Option::is_none)
        .unwrap_or(items.len());
    items[first_none..].iter().all(Option::is_none)
        && items[..first_none].windows(2).all(|w| w[0] <= w[1])
}

async fn filters_and_orders_select_what_the_rules_say(db: &TestDb) {
    let key = db.create_account("acme");
    let feed = generated_feed(20, 3);
    put_holds(&feed.path().join("terminal-checks.csv"), 3);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    // The rows look as if written before the migration: start-up must fill the columns.
    forget_filter_columns(db).await;
    let server = Server::start(db, &[]);

    let (total, all) = containers(&server, &key, json!(null), "NUMBER_ASC").await;
    assert!(
        (30..=100).contains(&total),
        "{total} containers: the test wants one page"
    );
    assert_eq!(all.len() as u64, total);
    let numbers: Vec<&str> = all.iter().map(|c| c["number"].as_str().unwrap()).collect();
    let mut sorted = numbers.clone();
    sorted.sort();
    assert_eq!(numbers, sorted, "NUMBER_ASC");

    // Every filter selects exactly the containers the rule names (compared with the full list).
    let expect = |pred: &dyn Fn(&Value) -> bool| ids(all.iter().filter(|c| pred(c)));
    let status = all[0]["currentStatus"].as_str().unwrap().to_string();
    let c0 = all[0].clone();
    let s0 = &c0["shipment"];
    let lfds: Vec<DateTime<Utc>> = all.iter().filter_map(|c| ts(&c["pickupLfd"])).collect();
    assert!(
        lfds.len() >= 5,
        "the generated terminal feed gives last free days"
    );
    let mut lfd_sorted = lfds.clone();
    lfd_sorted.sort();
    let mid = lfd_sorted[lfd_sorted.len() / 2];
    let spaced = format!(
        "{} {}",
        &c0["number"].as_str().unwrap()[..4].to_lowercase(),
        &c0["number"].as_str().unwrap()[4..]
    );
    let cases: Vec<(Value, HashSet<String>)> = vec![
        (
            json!({"status": [status]}),
            expect(&|c| c["currentStatus"] == status.as_str()),
        ),
        (
            json!({"containerNumber": spaced}),
            expect(&|c| c["number"] == c0["number"]),
        ),
        (
            json!({"billOfLadingNumber": s0["billOfLadingNumber"]}),
            expect(&|c| c["shipment"]["id"] == s0["id"]),
        ),
        (
            json!({"polLocode": s0["portOfLadingLocode"].as_str().unwrap().to_lowercase()}),
            expect(&|c| c["shipment"]["portOfLadingLocode"] == s0["portOfLadingLocode"]),
        ),
        (
            json!({"podLocode": s0["portOfDischargeLocode"]}),
            expect(&|c| c["shipment"]["portOfDischargeLocode"] == s0["portOfDischargeLocode"]),
        ),
        (
            json!({"shippingLineScac": s0["shippingLineScac"]}),
            expect(&|c| c["shipment"]["shippingLineScac"] == s0["shippingLineScac"]),
        ),
        (
            json!({"hasHolds": true}),
            expect(&|c| c["hasHolds"] == true),
        ),
        (
            json!({"hasHolds": false}),
            expect(&|c| c["hasHolds"] == false),
        ),
        (
            json!({"lfdBefore": mid.to_rfc3339()}),
            expect(&|c| ts(&c["pickupLfd"]).is_some_and(|t| t < mid)),
        ),
        (
            json!({"lfdAfter": mid.to_rfc3339()}),
            expect(&|c| ts(&c["pickupLfd"]).is_some_and(|t| t > mid)),
        ),
        (
            json!({"hasHolds": false, "podLocode": s0["portOfDischargeLocode"], "status": [status]}),
            expect(&|c| {
                c["hasHolds"] == false
                    && c["shipment"]["portOfDischargeLocode"] == s0["portOfDischargeLocode"]
                    && c["currentStatus"] == status.as_str()
            }),
        ),
        (json!({"updatedAfter": "2000-01-01T00:00:00Z"}), ids(&all)),
        (
            json!({"updatedAfter": "2999-01-01T00:00:00Z"}),
            HashSet::new(),
        ),
    ];
    for (filter, want) in cases {
        let (n, got) = containers(&server, &key, filter.clone(), "UPDATED_AT_DESC").await;
        assert_eq!(ids(&got), want, "containers {filter}");
        assert_eq!(n as usize, want.len(), "totalCount {filter}");
    }
    let holds = all.iter().filter(|c| c["hasHolds"] == true).count();
    assert_eq!(holds, 3, "the holds put into the terminal file");
    println!(
        "{total} containers, {holds} with holds, {} with a last free day",
        lfds.len()
    );

    // Orders: last free day and POD arrival ascending, unknown last; the default is the /v2
    // order (most recently changed first).
    let (_, by_lfd) = containers(&server, &key, json!(null), "LFD_ASC").await;
    let lfd: Vec<_> = by_lfd.iter().map(|c| ts(&c["pickupLfd"])).collect();
    assert!(ascending_nulls_last(&lfd), "LFD_ASC: {lfd:?}");
    let (_, by_eta) = containers(&server, &key, json!(null), "POD_ETA_ASC").await;
    let eta: Vec<_> = by_eta
        .iter()
        .map(|c| ts(&c["shipment"]["podEtaAt"]))
        .collect();
    assert!(ascending_nulls_last(&eta), "POD_ETA_ASC: {eta:?}");
    // Walked in pages of 7, each order lists the same containers in the same order as its
    // single page: no container twice, none left out, the order kept across pages.
    for (order, whole) in [
        ("POD_ETA_ASC", &by_eta),
        ("LFD_ASC", &by_lfd),
        ("NUMBER_ASC", &all),
    ] {
        let walked = walk_pages(&server, &key, order, 7).await;
        assert_eq!(id_list(&walked), id_list(whole), "{order} in pages of 7");
    }
    let (_, default) = containers(&server, &key, json!(null), "UPDATED_AT_DESC").await;
    let (_, v2) = server
        .get("/v2/containers?page[size]=100", Some(&key))
        .await;
    let v2_ids: Vec<&str> = v2["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let gql_ids: Vec<&str> = default.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(gql_ids, v2_ids, "default order is the /v2 order");

    // Pages of a filtered list: totalCount counts all matches, the pages add up to them.
    let want = expect(&|c| c["hasHolds"] == false);
    let mut seen = HashSet::new();
    let mut after: Option<String> = None;
    loop {
        let d = data(
            &server,
            &key,
            "query($a: String) { containers(first: 7, after: $a, filter: {hasHolds: false}, orderBy: LFD_ASC) \
             { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }",
            json!({ "a": after }),
        )
        .await;
        let c = &d["containers"];
        assert_eq!(c["totalCount"].as_u64().unwrap() as usize, want.len());
        for n in c["nodes"].as_array().unwrap() {
            assert!(
                seen.insert(n["id"].as_str().unwrap().to_string()),
                "pages overlap"
            );
        }
        if c["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = c["pageInfo"]["endCursor"].as_str().map(str::to_string);
    }
    assert_eq!(seen, want);

    // Shipments: container filters match a shipment when one of its containers matches.
    let d = data(
        &server,
        &key,
        "{ shipments(first: 100, filter: {hasHolds: true}, orderBy: NUMBER_ASC) { totalCount nodes { id billOfLadingNumber containers { hasHolds } } } }",
        json!({}),
    )
    .await;
    let nodes = d["shipments"]["nodes"].as_array().unwrap();
    let want: HashSet<String> = all
        .iter()
        .filter(|c| c["hasHolds"] == true)
        .map(|c| c["shipment"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids(nodes), want);
    for s in nodes {
        assert!(s["containers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["hasHolds"] == true));
    }
    let bls: Vec<&str> = nodes
        .iter()
        .map(|s| s["billOfLadingNumber"].as_str().unwrap())
        .collect();
    let mut sorted = bls.clone();
    sorted.sort();
    assert_eq!(bls, sorted, "shipments NUMBER_ASC");
}

/// The `/v2/shipments/{id}` attributes.
async fn v2(server: &Server, key: &str, id: &str) -> Value {
    let (status, doc) = server.get(&format!("/v2/shipments/{id}"), Some(key)).await;
    assert_eq!(status, 200, "{doc}");
    doc["data"]["attributes"].clone()
}

const SHIPMENT_STATE: &str = "id tags lineTrackingStoppedAt lineTrackingStoppedReason updatedAt";

async fn mutations_change_what_v2_shows(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    let feed = generated_feed(4, 8);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let d = data(
        &server,
        &key,
        "{ shipments(first: 2) { nodes { id containers { id } } } }",
        json!({}),
    )
    .await;
    let shipment = d["shipments"]["nodes"][0].clone();
    let id = shipment["id"].as_str().unwrap().to_string();
    // What the feeds say of the line's tracking (all_containers_terminated when every box is
    // back): resuming a user's stop shows it again.
    let derived = v2(&server, &key, &id).await;
    let derived_stop = (
        derived["line_tracking_stopped_at"].clone(),
        derived["line_tracking_stopped_reason"].clone(),
    );
    // Tags: trimmed, deduplicated, sorted; the same in /v2; filterable.
    let add = format!(
        "mutation($id: ID!, $t: [String!]!) {{ addShipmentTags(shipmentId: $id, tags: $t) {{ {SHIPMENT_STATE} }} }}"
    );
    let d = data(
        &server,
        &key,
        &add,
        json!({"id": id, "t": [" urgent ", "reefer", "urgent"]}),
    )
    .await;
    assert_eq!(d["addShipmentTags"]["tags"], json!(["reefer", "urgent"]));
    assert_eq!(
        v2(&server, &key, &id).await["tags"],
        json!(["reefer", "urgent"])
    );
    let d = data(
        &server,
        &key,
        "{ shipments(filter: {tags: [\"urgent\"]}) { totalCount nodes { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(d["shipments"]["totalCount"], 1);
    assert_eq!(d["shipments"]["nodes"][0]["id"], id.as_str());
    let d = data(
        &server,
        &key,
        "{ containers(first: 100, filter: {tags: [\"urgent\", \"reefer\"]}) { nodes { id } } }",
        json!({}),
    )
    .await;
    assert_eq!(
        ids(d["containers"]["nodes"].as_array().unwrap()),
        ids(shipment["containers"].as_array().unwrap())
    );
    let remove = format!(
        "mutation($id: ID!, $t: [String!]!) {{ removeShipmentTags(shipmentId: $id, tags: $t) {{ {SHIPMENT_STATE} }} }}"
    );
    let d = data(
        &server,
        &key,
        &remove,
        json!({"id": id, "t": ["reefer", "never-there"]}),
    )
    .await;
    assert_eq!(d["removeShipmentTags"]["tags"], json!(["urgent"]));
    assert_eq!(v2(&server, &key, &id).await["tags"], json!(["urgent"]));

    // Stop and resume tracking; the stop survives a re-ingest of the same feed.
    let stop =
        format!("mutation($id: ID!) {{ stopTracking(shipmentId: $id) {{ {SHIPMENT_STATE} }} }}");
    let d = data(&server, &key, &stop, json!({"id": id})).await;
    let stopped = &d["stopTracking"];
    assert_eq!(stopped["lineTrackingStoppedReason"], "CANCELLED_BY_USER");
    let at = stopped["lineTrackingStoppedAt"].clone();
    assert!(at.is_string(), "{stopped}");
    let a = v2(&server, &key, &id).await;
    assert_eq!(a["line_tracking_stopped_reason"], "cancelled_by_user");
    assert_eq!(a["line_tracking_stopped_at"], at, "same text in both APIs");
    let again = data(&server, &key, &stop, json!({"id": id})).await;
    assert_eq!(
        again["stopTracking"]["lineTrackingStoppedAt"], at,
        "the first stop time stays"
    );
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let a = v2(&server, &key, &id).await;
    assert_eq!(
        a["line_tracking_stopped_reason"], "cancelled_by_user",
        "kept over a re-ingest"
    );
    assert_eq!(a["tags"], json!(["urgent"]), "tags kept over a re-ingest");
    let resume =
        format!("mutation($id: ID!) {{ resumeTracking(shipmentId: $id) {{ {SHIPMENT_STATE} }} }}");
    let d = data(&server, &key, &resume, json!({"id": id})).await;
    assert_eq!(d["resumeTracking"]["lineTrackingStoppedAt"], derived_stop.0);
    assert_eq!(
        d["resumeTracking"]["lineTrackingStoppedReason"],
        derived_stop
            .1
            .as_str()
            .map(|r| json!(r.to_uppercase()))
            .unwrap_or(Value::Null)
    );
    let a = v2(&server, &key, &id).await;
    assert_eq!(a["line_tracking_stopped_at"], derived_stop.0);
    assert_eq!(a["line_tracking_stopped_reason"], derived_stop.1);

    // Errors: unknown, malformed or another account's id is NOT_FOUND; a blank tag
    // BAD_USER_INPUT naming the field; and nothing changed.
    for (who, shipment_id) in [
        (&key, "00000000-0000-0000-0000-000000000000"),
        (&key, "not-a-uuid"),
        (&other, id.as_str()),
    ] {
        let e = error(&server, Some(who), &stop, json!({"id": shipment_id})).await;
        assert_eq!(e["extensions"]["code"], "NOT_FOUND", "{e}");
        let e = error(
            &server,
            Some(who),
            &add,
            json!({"id": shipment_id, "t": ["x"]}),
        )
        .await;
        assert_eq!(e["extensions"]["code"], "NOT_FOUND", "{e}");
    }
    let e = error(
        &server,
        Some(&key),
        &add,
        json!({"id": id, "t": ["ok", "  "]}),
    )
    .await;
    assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{e}");
    assert_eq!(e["extensions"]["field"], "tags", "{e}");
    let e = error(
        &server,
        Some(&key),
        &add,
        json!({"id": id, "t": ["x".repeat(65)]}),
    )
    .await;
    assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{e}");
    let a = v2(&server, &key, &id).await;
    assert_eq!(a["tags"], json!(["urgent"]));
    assert_eq!(a["line_tracking_stopped_at"], derived_stop.0);

    // Without a key: 401 with the GraphQL code beside the /v2 error fields.
    let (status, body) = server.graphql(None, &stop, json!({"id": id})).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
        "{body}"
    );
    assert_eq!(body["errors"][0]["status"], "401", "{body}");
    assert!(body["errors"][0]["message"].is_string(), "{body}");
}

/// POSTs a raw GraphQL request body.
async fn post(server: &Server, key: &str, body: Value) -> (u16, Value) {
    let resp = server
        .client()
        .post(format!("{}/graphql", server.base))
        .header("Authorization", format!("Token {key}"))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("JSON"))
}

async fn protections_and_error_codes(db: &TestDb) {
    let key = db.create_account("acme");
    let feed = generated_feed(20, 3);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let server = Server::start(db, &[]);

    // Page cap and input checks.
    let e = error(
        &server,
        Some(&key),
        "{ containers(first: 101) { totalCount } }",
        json!({}),
    )
    .await;
    assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{e}");
    for (filter, field) in [
        (json!({"polLocode": "NOPE"}), "polLocode"),
        // Five characters: no SCAC (NMFTA codes may hold digits, so M4EU would be one).
        (json!({"shippingLineScac": "MAEUX"}), "shippingLineScac"),
        (json!({"containerNumber": "  "}), "containerNumber"),
        (json!({"tags": [""]}), "tags"),
    ] {
        let e = error(
            &server,
            Some(&key),
            "query($f: ListFilter) { shipments(filter: $f) { totalCount } }",
            json!({ "f": filter }),
        )
        .await;
        assert_eq!(e["extensions"]["code"], "BAD_USER_INPUT", "{filter}: {e}");
        assert_eq!(e["extensions"]["field"], field, "{filter}: {e}");
    }

    // Depth limit.
    let mut inner = String::from("id");
    for _ in 0..6 {
        inner = format!("shipment {{ containers {{ {inner} }} }}");
    }
    let e = error(
        &server,
        Some(&key),
        &format!("{{ containers {{ nodes {{ {inner} }} }} }}"),
        json!({}),
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains("nested too deep"),
        "{e}"
    );

    // Complexity: a connection counts its selection once per item asked for.
    let page = "containers(first: 100) { nodes { number currentStatus pickupLfd podTimezone \
                shipment { billOfLadingNumber podEtaAt } events { code eventAt locode } } }";
    data(&server, &key, &format!("{{ a: {page} }}"), json!({})).await;
    // About 1,200 each: 20 of them are over the limit of 20,000 (and never reach the store).
    let many: String = (0..20).map(|i| format!("a{i}: {page} ")).collect();
    let e = error(&server, Some(&key), &format!("{{ {many} }}"), json!({})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("too complex"),
        "{e}"
    );

    // Introspection is on by default.
    let d = data(
        &server,
        &key,
        "{ __schema { queryType { name } } }",
        json!({}),
    )
    .await;
    assert_eq!(d["__schema"]["queryType"]["name"], "Query");

    // Automatic persisted queries: unknown hash, then hash and text, then the hash alone.
    let query = "{ containers(first: 2) { totalCount } }";
    let hash = hex(&Sha256::digest(query.as_bytes()));
    let apq = json!({"persistedQuery": {"version": 1, "sha256Hash": hash}});
    let (_, body) = post(&server, &key, json!({"extensions": apq})).await;
    assert_eq!(
        body["errors"][0]["message"], "PersistedQueryNotFound",
        "{body}"
    );
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "PERSISTED_QUERY_NOT_FOUND",
        "{body}"
    );
    // A hash that is not the text's, and a version other than 1, are refused and not kept.
    let other = "{ containers(first: 1) { totalCount } }";
    let (_, body) = post(&server, &key, json!({"query": other, "extensions": apq})).await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{body}"
    );
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "extensions.persistedQuery",
        "{body}"
    );
    let v2 = json!({"persistedQuery": {"version": 2, "sha256Hash": hash}});
    let (_, body) = post(&server, &key, json!({"query": query, "extensions": v2})).await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{body}"
    );
    let (_, body) = post(&server, &key, json!({"extensions": apq})).await;
    assert_eq!(
        body["errors"][0]["message"], "PersistedQueryNotFound",
        "{body}"
    );
    let (status, body) = post(&server, &key, json!({"query": query, "extensions": apq})).await;
    assert_eq!(status, 200, "{body}");
    let total = body["data"]["containers"]["totalCount"].clone();
    assert!(total.as_u64().unwrap() > 0, "{body}");
    let (_, body) = post(&server, &key, json!({"extensions": apq})).await;
    assert_eq!(body["data"]["containers"]["totalCount"], total, "{body}");
    drop(server);

    // Introspection switched off.
    let server = Server::start(db, &["--no-introspection"]);
    let (_, body) = server
        .graphql(Some(&key), "{ __schema { queryType { name } } }", json!({}))
        .await;
    assert_eq!(body["data"]["__schema"], Value::Null, "{body}");
    let (_, body) = server
        .graphql(
            Some(&key),
            "{ __type(name: \"Container\") { name } }",
            json!({}),
        )
        .await;
    assert_eq!(body["data"]["__type"], Value::Null, "{body}");
    data(
        &server,
        &key,
        "{ containers(first: 1) { totalCount } }",
        json!({}),
    )
    .await;
    drop(server);

    // Query timeout: 503 with TIMEOUT.
    let server = Server::start(db, &["--graphql-timeout-ms", "1"]);
    let (status, body) = server
        .graphql(
            Some(&key),
            "{ a: containers(first: 100) { nodes { number events { code eventAt } shipment { containers { events { code } } } } } \
               b: shipments(first: 100, orderBy: LFD_ASC) { totalCount nodes { containers { events { code } } } } }",
            json!({}),
        )
        .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["errors"][0]["extensions"]["code"], "TIMEOUT", "{body}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
