//! Containers, shipments and events of the store served through GraphQL: paging, values, accounts,
//! batching, the router, the schema file and query limits, and the statements a page costs.

use super::*;
use async_graphql::Value as GqlValue;

const CONTAINER_FIELDS: &str = "id number refNumbers sealNumber createdAt equipmentType \
    equipmentLength equipmentHeight weightInLbs pickupLfd pickupAppointmentAt availabilityKnown \
    availableForPickup podArrivedAt podDischargedAt podFullOutAt terminalCheckedAt \
    podFullOutChassisNumber locationAtPodTerminal finalDestinationFullOutAt emptyTerminatedAt \
    holdsAtPodTerminal { name status description } feesAtPodTerminal { type amount currencyCode } \
    podTimezone finalDestinationTimezone emptyTerminatedTimezone podRailCarrierScac \
    indRailCarrierScac podLastTrackingRequestAt shipmentLastTrackingRequestAt podRailLoadedAt \
    podRailDepartedAt indEtaAt indAtaAt indRailUnloadedAt indFacilityLfdOn \
    importDeadlines { pickupLfdTerminal pickupLfdRail pickupLfdLine } currentStatus";

const SHIPMENT_FIELDS: &str = "id billOfLadingNumber normalizedNumber refNumbers createdAt tags \
    portOfLadingLocode portOfLadingName portOfDischargeLocode portOfDischargeName \
    destinationLocode destinationName shippingLineScac shippingLineName shippingLineShortName \
    customerName podVesselName podVesselImo podVoyageNumber polEtdAt polAtdAt podEtaAt \
    podOriginalEtaAt podAtaAt destinationEtaAt destinationAtaAt polTimezone podTimezone \
    destinationTimezone lineTrackingLastAttemptedAt lineTrackingLastSucceededAt \
    lineTrackingStoppedAt lineTrackingStoppedReason";

const EVENT_FIELDS: &str = "id rawEventId eventType classifier code eventAt eventCreatedAt \
    containerNumber billOfLading booking locode locationName facilityCode modeOfTransport \
    vesselImo vesselName voyage delayReason remark timezone";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn containers_connection_pages_through_everything() {
    let f = fixture().await;
    let (_, total) = f.store.list_containers(f.a.id, 0, 1000).await.unwrap();
    assert!(
        total > 30,
        "the fixture should fill more than one default page, got {total} containers"
    );

    let data = ok(
        &f.schema,
        &f.a,
        "{ containers { totalCount edges { cursor node { id number } } nodes { id } \
           pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }",
    )
    .await;
    let conn = &data["containers"];
    assert_eq!(conn["totalCount"], json!(total));
    let edges = conn["edges"].as_array().unwrap();
    assert_eq!(edges.len() as i64, total.min(30));
    assert_eq!(conn["pageInfo"]["hasNextPage"], json!(total > 30));
    assert_eq!(conn["pageInfo"]["hasPreviousPage"], json!(false));
    assert_eq!(conn["pageInfo"]["startCursor"], edges[0]["cursor"]);
    assert_eq!(
        conn["pageInfo"]["endCursor"],
        edges[edges.len() - 1]["cursor"]
    );
    let first_page: Vec<String> = edges
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(first_page, ids(&conn["nodes"]));
    // Same order as the store (and so as /v2).
    let (stored, _) = f.store.list_containers(f.a.id, 0, 30).await.unwrap();
    let stored: Vec<String> = stored.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(first_page, stored);

    // One at a time, following endCursor, gives the same list.
    let mut after: Option<String> = None;
    let mut walked = Vec::new();
    loop {
        let arg = after
            .as_ref()
            .map(|c| format!(", after: \"{c}\""))
            .unwrap_or_default();
        let data = ok(
            &f.schema,
            &f.a,
            &format!(
                "{{ containers(first: 1{arg}) {{ totalCount edges {{ cursor node {{ id }} }} \
                 pageInfo {{ hasNextPage hasPreviousPage endCursor }} }} }}"
            ),
        )
        .await;
        let conn = &data["containers"];
        assert_eq!(conn["totalCount"], json!(total));
        assert_eq!(conn["pageInfo"]["hasPreviousPage"], json!(after.is_some()));
        let edges = conn["edges"].as_array().unwrap();
        assert_eq!(edges.len(), 1);
        let cursor = edges[0]["cursor"].as_str().unwrap().to_string();
        assert!(
            cursor.parse::<u64>().is_err(),
            "cursors are opaque, got {cursor}"
        );
        walked.push(edges[0]["node"]["id"].as_str().unwrap().to_string());
        if conn["pageInfo"]["hasNextPage"] == json!(false) {
            break;
        }
        after = Some(conn["pageInfo"]["endCursor"].as_str().unwrap().to_string());
        assert!(walked.len() as i64 <= total, "pagination does not end");
    }
    assert_eq!(walked.len() as i64, total);
    assert_eq!(walked[..first_page.len()], first_page[..]);

    // Past the end: empty page, still the total.
    let last = after.unwrap_or_default();
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ containers(first: 0) {{ totalCount edges {{ cursor }} pageInfo {{ hasNextPage }} }} \
             shipments {{ totalCount edges {{ node {{ id }} }} }} \
             tail: containers(after: \"{last}\") {{ edges {{ cursor }} }} }}"
        ),
    )
    .await;
    assert_eq!(data["containers"]["edges"], json!([]));
    assert_eq!(data["containers"]["pageInfo"]["hasNextPage"], json!(true));
    assert_eq!(data["tail"]["edges"].as_array().unwrap().len(), 1);
    let (shipments, shipment_total) = f.store.list_shipments(f.a.id, 0, 100).await.unwrap();
    assert!(shipment_total >= 1);
    assert_eq!(data["shipments"]["totalCount"], json!(shipment_total));
    let got: Vec<String> = data["shipments"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = shipments.iter().map(|s| s.id.to_string()).collect();
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_size_and_cursor_are_validated() {
    let f = fixture().await;
    for query in [
        "{ containers(first: 1000) { totalCount } }",
        "{ containers(first: 101) { totalCount } }",
        "{ shipments(first: -1) { totalCount } }",
        "{ containers(after: \"not a cursor\") { totalCount } }",
        "{ shipments(after: \"bm9wZQ\") { totalCount } }",
    ] {
        let (data, errors) = run(&f.schema, Some(&f.a), query).await;
        assert_eq!(codes(&errors), ["BAD_USER_INPUT"], "{query}: {errors:#?}");
        assert_eq!(data, Value::Null, "{query}");
    }
    let data = ok(&f.schema, &f.a, "{ containers(first: 100) { totalCount } }").await;
    assert!(data["containers"]["totalCount"].as_i64().unwrap() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn container_shipment_containers_round_trip() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id number shipment { id billOfLadingNumber \
           containers { id number shipment { id } } } } } }",
    )
    .await;
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    assert!(!nodes.is_empty());
    for node in nodes {
        let shipment = &node["shipment"];
        assert!(shipment.is_object(), "container {node} has no shipment");
        let siblings = shipment["containers"].as_array().unwrap();
        assert!(
            siblings.iter().any(|c| c["id"] == node["id"]),
            "shipment {} does not list its container {}",
            shipment["id"],
            node["id"]
        );
        for c in siblings {
            assert_eq!(c["shipment"]["id"], shipment["id"]);
        }
        let numbers: Vec<&str> = siblings
            .iter()
            .map(|c| c["number"].as_str().unwrap())
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort();
        assert_eq!(numbers, sorted, "Shipment.containers is ordered by number");
    }

    // And by id.
    let id = nodes[0]["id"].as_str().unwrap();
    let data = ok(
        &f.schema,
        &f.a,
        &format!("{{ container(id: \"{id}\") {{ id shipment {{ id }} }} }}"),
    )
    .await;
    assert_eq!(data["container"]["id"], json!(id));
    let shipment_id = data["container"]["shipment"]["id"].as_str().unwrap();
    let data = ok(
        &f.schema,
        &f.a,
        &format!("{{ shipment(id: \"{shipment_id}\") {{ id containers {{ id }} }} }}"),
    )
    .await;
    assert!(ids(&data["shipment"]["containers"]).contains(&id.to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_are_ordered_by_time() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { number events { id eventAt code containerNumber } } } }",
    )
    .await;
    let mut seen = 0;
    for node in data["containers"]["nodes"].as_array().unwrap() {
        let events = node["events"].as_array().unwrap();
        seen += events.len();
        let times: Vec<chrono::DateTime<chrono::Utc>> = events
            .iter()
            .map(|e| e["eventAt"].as_str().unwrap().parse().unwrap())
            .collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "events of {} are not in time order: {times:?}",
            node["number"]
        );
    }
    assert!(seen > 0, "the samples should link events to containers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_sees_nothing() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers { nodes { id shipment { id } } } }",
    )
    .await;
    let container_id = data["containers"]["nodes"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shipment_id = data["containers"]["nodes"][0]["shipment"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let data = ok(
        &f.schema,
        &f.b,
        &format!(
            "{{ containers {{ totalCount edges {{ cursor }} pageInfo {{ hasNextPage }} }} \
             shipments {{ totalCount nodes {{ id }} }} \
             container(id: \"{container_id}\") {{ id }} shipment(id: \"{shipment_id}\") {{ id }} }}"
        ),
    )
    .await;
    assert_eq!(
        data,
        json!({
            "containers": { "totalCount": 0, "edges": [], "pageInfo": { "hasNextPage": false } },
            "shipments": { "totalCount": 0, "nodes": [] },
            "container": null,
            "shipment": null,
        })
    );

    // Unknown and malformed ids are null too, not errors.
    let data = ok(
        &f.schema,
        &f.a,
        "{ container(id: \"00000000-0000-0000-0000-000000000000\") { id } \
           shipment(id: \"not-a-uuid\") { id } }",
    )
    .await;
    assert_eq!(data, json!({ "container": null, "shipment": null }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_account_nothing_is_served() {
    let f = fixture().await;
    let (data, errors) = run(&f.schema, None, "{ containers { totalCount } }").await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_have_the_model_values() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ containers(first: 100) {{ nodes {{ {CONTAINER_FIELDS} \
               shipment {{ {SHIPMENT_FIELDS} }} events {{ {EVENT_FIELDS} }} }} }} }}"
        ),
    )
    .await;
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    let (containers, _) = f.store.list_containers(f.a.id, 0, 100).await.unwrap();
    assert_eq!(nodes.len(), containers.len());
    let stored = stored_events(&f, &containers).await;
    for ((node, c), events) in nodes.iter().zip(&containers).zip(stored) {
        let model = serde_json::to_value(c).unwrap();
        assert_same_values(
            "Container",
            node,
            &model,
            &["current_status", "shipment", "events"],
        );
        assert_eq!(
            node["currentStatus"].as_str().unwrap(),
            c.current_status.as_str().to_uppercase()
        );

        assert_stored_shipment(&f, &node["shipment"], c.shipment_id).await;

        let got = node["events"].as_array().unwrap();
        assert_eq!(got.len(), events.len());
        for (g, e) in got.iter().zip(&events) {
            // The single-valued GraphQL fields show the first of the event's sets.
            let mut model = serde_json::to_value(e).unwrap();
            model["container_number"] = json!(e.event.container_number());
            model["bill_of_lading"] = json!(e.event.bill_of_lading());
            model["booking"] = json!(e.event.booking());
            assert_same_values("TransportEvent", g, &model, &["voyage"]);
            let voyage = e
                .event
                .import_voyage
                .clone()
                .or(e.event.export_voyage.clone());
            assert_eq!(g["voyage"], json!(voyage));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_fields_are_batched() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id events { id } shipment { id containers { id } } } } }",
    )
    .await;
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    assert!(nodes.len() > 30);
    // The page's rows bring the event links and the shipments with their member ids: one
    // store call for the page and all its shipments (N+1 would be one per container or
    // shipment, here 30+), none for the shipments apart.
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    let n = calls.container_pages_with_shipments.load(Ordering::Relaxed);
    assert_eq!(n, 1, "pages read with their shipments: {n}");
    let n = calls.shipments_with_members.load(Ordering::Relaxed);
    assert_eq!(n, 0, "shipments_with_members was called {n} times");
    // `events { id }` is answered from the page's links, `containers { id }` from the ids read
    // with the shipments: no event, link, member id or member container is read apart.
    for (name, n) in [
        ("shipments_by_ids", &calls.shipments_by_ids),
        (
            "event_links_of_containers",
            &calls.event_links_of_containers,
        ),
        (
            "container_ids_of_shipments",
            &calls.container_ids_of_shipments,
        ),
        ("events_of_containers", &calls.events_of_containers),
        ("containers_of_shipments", &calls.containers_of_shipments),
    ] {
        assert_eq!(n.load(Ordering::Relaxed), 0, "{name}");
    }
    // The truth: what the store holds, container by container.
    let ids: Vec<Uuid> = nodes
        .iter()
        .map(|n| Uuid::parse_str(n["id"].as_str().unwrap()).unwrap())
        .collect();
    // Each container's events read from the event table, in event time order.
    let stored_events = f.store.events_of_containers(f.a.id, &ids).await.unwrap();
    let containers = f.store.containers_by_ids(f.a.id, &ids).await.unwrap();
    for (node, id) in nodes.iter().zip(&ids) {
        let events: Vec<Value> = stored_events
            .get(id)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|e| json!(e.id.to_string()))
            .collect();
        let served: Vec<Value> = node["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].clone())
            .collect();
        assert_eq!(served, events, "events of container {id}");
        let shipment = containers.iter().find(|c| c.id == *id).unwrap().shipment_id;
        assert_eq!(node["shipment"]["id"], json!(shipment.to_string()));
        let mut members = f
            .store
            .containers_of_shipments(f.a.id, &[shipment])
            .await
            .unwrap();
        members.sort_by(|x, y| (&x.number, x.id).cmp(&(&y.number, y.id)));
        let members: Vec<Value> = members.iter().map(|c| json!(c.id.to_string())).collect();
        let served: Vec<Value> = node["shipment"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].clone())
            .collect();
        assert_eq!(served, members, "containers of shipment {shipment}");
    }
}

/// A page that needs its containers' shipments reads them in its own statement whatever
/// else it selects: `shipment` without events, `shipment` beside whole events, and named
/// events alone (named by the shipment's ends). The shipments served are the store's, and
/// the named events are those of each container read alone through `container(id)`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_read_their_shipments_whatever_else_they_select() {
    let f = fixture().await;
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    let counts = || {
        [
            &calls.container_pages_with_shipments,
            &calls.shipments_by_ids,
            &calls.shipments_with_members,
        ]
        .map(|n| n.load(Ordering::Relaxed))
    };
    for selection in [
        format!("id shipment {{ {SHIPMENT_FIELDS} }}"),
        format!("id shipment {{ {SHIPMENT_FIELDS} }} events {{ id eventType }}"),
        "id transportEvents { id event timestamp }".to_string(),
    ] {
        let before = counts();
        let data = ok(
            &f.schema,
            &f.a,
            &format!("{{ containers(first: 100) {{ nodes {{ {selection} }} }} }}"),
        )
        .await;
        let after = counts();
        // One page read with its shipments; no shipment read apart.
        let made: [usize; 3] = std::array::from_fn(|i| after[i] - before[i]);
        assert_eq!(made, [1, 0, 0], "{selection}");
        let nodes = data["containers"]["nodes"].as_array().unwrap();
        assert!(nodes.len() > 30, "{selection}");
        let mut named = 0;
        for node in nodes {
            let id = Uuid::parse_str(node["id"].as_str().unwrap()).unwrap();
            if node.get("shipment").is_some() {
                // The truth: the store's shipment of the container.
                let container = f.store.container(f.a.id, id).await.unwrap().unwrap();
                assert_stored_shipment(&f, &node["shipment"], container.shipment_id).await;
            }
            if let Some(events) = node.get("transportEvents") {
                // The same container read alone, its shipment through the loader.
                let alone = ok(
                    &f.schema,
                    &f.a,
                    &format!(
                        "{{ container(id: \"{id}\") {{ transportEvents {{ id event timestamp }} }} }}"
                    ),
                )
                .await;
                assert_eq!(events, &alone["container"]["transportEvents"], "{id}");
                named += events.as_array().unwrap().len();
            }
        }
        if selection.contains("transportEvents") {
            assert!(named > 0, "no container has a named event");
        }
    }
}

/// `Shipment.containers { id __typename }` (answered from the ids alone) lists the same
/// containers in the same order as a selection that reads them whole, for every shipment,
/// through a page (loaded ahead) and through `shipment(id)` (the loader); a fragment that
/// asks for another field reads them whole and serves its values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn container_ids_alone_equal_the_whole_containers() {
    let f = fixture().await;
    let ids = ok(
        &f.schema,
        &f.a,
        "{ shipments(first: 100) { nodes { id containers { id __typename } } } }",
    )
    .await;
    let whole = ok(
        &f.schema,
        &f.a,
        "{ shipments(first: 100) { nodes { id containers { ...C } } } } \
         fragment C on Container { id number }",
    )
    .await;
    let (ids, whole) = (
        ids["shipments"]["nodes"].as_array().unwrap(),
        whole["shipments"]["nodes"].as_array().unwrap(),
    );
    assert_eq!(ids.len(), whole.len());
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    assert!(calls.container_ids_of_shipments.load(Ordering::Relaxed) >= 1);
    assert!(calls.containers_of_shipments.load(Ordering::Relaxed) >= 1);
    let mut containers_seen = 0;
    for (a, b) in ids.iter().zip(whole) {
        assert_eq!(a["id"], b["id"]);
        let shipment = Uuid::parse_str(a["id"].as_str().unwrap()).unwrap();
        // The truth: the store's containers of the shipment, by number.
        let mut stored: Vec<_> = f
            .store
            .containers_of_shipments(f.a.id, &[shipment])
            .await
            .unwrap();
        stored.sort_by(|x, y| (&x.number, x.id).cmp(&(&y.number, y.id)));
        let expected: Vec<Value> = stored.iter().map(|c| json!(c.id.to_string())).collect();
        let served: Vec<Value> = a["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                assert_eq!(c["__typename"], "Container");
                c["id"].clone()
            })
            .collect();
        assert_eq!(served, expected, "shipment {shipment}");
        let numbers: Vec<Value> = stored.iter().map(|c| json!(c.number.as_str())).collect();
        let whole_numbers: Vec<Value> = b["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["number"].clone())
            .collect();
        assert_eq!(whole_numbers, numbers, "shipment {shipment}");
        // One shipment by id: the loader's path, not the page's.
        let one = ok(
            &f.schema,
            &f.a,
            &format!("{{ shipment(id: \"{shipment}\") {{ containers {{ id }} }} }}"),
        )
        .await;
        let one: Vec<Value> = one["shipment"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].clone())
            .collect();
        assert_eq!(one, expected, "shipment {shipment} by id");
        containers_seen += stored.len();
    }
    assert!(containers_seen > 30, "{containers_seen} containers");
}

/// `events { id rawEventId }` (answered from the event links) lists the same events in the
/// same order as a selection that reads them whole, for every container; a fragment that
/// asks for a body field reads them whole and serves its values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_ids_alone_equal_the_whole_events() {
    let f = fixture().await;
    let ids = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id events { id rawEventId __typename } } } }",
    )
    .await;
    let whole = ok(
        &f.schema,
        &f.a,
        "{ containers(first: 100) { nodes { id events { ...E } } } } \
         fragment E on TransportEvent { id rawEventId code eventAt }",
    )
    .await;
    let (ids, whole) = (
        ids["containers"]["nodes"].as_array().unwrap(),
        whole["containers"]["nodes"].as_array().unwrap(),
    );
    assert_eq!(ids.len(), whole.len());
    let (containers, _) = f.store.list_containers(f.a.id, 0, 100).await.unwrap();
    let mut events_seen = 0;
    let all_stored = stored_events(&f, &containers).await;
    for (((a, b), c), stored) in ids.iter().zip(whole).zip(&containers).zip(all_stored) {
        assert_eq!(a["id"], b["id"]);
        let (a, b) = (
            a["events"].as_array().unwrap(),
            b["events"].as_array().unwrap(),
        );
        assert_eq!(a.len(), stored.len(), "container {}", c.number);
        assert_eq!(b.len(), stored.len(), "container {}", c.number);
        for ((x, y), e) in a.iter().zip(b).zip(&stored) {
            assert_eq!(x["id"], json!(e.id.to_string()));
            assert_eq!(x["rawEventId"], json!(e.raw_event_id.to_string()));
            assert_eq!(x["__typename"], json!("TransportEvent"));
            assert_eq!(y["id"], x["id"]);
            assert_eq!(y["code"], json!(e.event.code));
        }
        events_seen += stored.len();
    }
    assert!(events_seen > 100, "{events_seen} events");
}

/// Two selections of ids under one response key (`events { id }` and, in a fragment,
/// `events { rawEventId __typename }`) merge item by item into the objects one selection of all
/// three answers, in the same text; the merged lists are built as objects, since JSON text
/// (`response::raw_json`) cannot be merged, and the single selection's lists are text. The
/// same fragment spread twice answers what it answers once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_ids_of_merged_selections_equal_one_selection() {
    let f = fixture().await;
    // The containers as objects of values (`types::Plainly`), not JSON text, so that the
    // events' lists in them can be counted.
    let data = |query: &str| {
        let schema = f.schema.clone();
        let request = Request::new(query)
            .data(f.a.clone())
            .data(crate::types::Plainly);
        async move {
            let response = schema.execute(request).await;
            assert!(response.errors.is_empty(), "{:#?}", response.errors);
            response.data
        }
    };
    let merged = data(
        "{ containers(first: 40) { nodes { id events { id } \
         ... on Container { events { rawEventId __typename } } } } }",
    )
    .await;
    let single =
        data("{ containers(first: 40) { nodes { id events { id rawEventId __typename } } } }")
            .await;
    let (_, total) = f.store.list_containers(f.a.id, 0, 1).await.unwrap();
    assert!(total > 0, "the fixture has containers");
    assert_eq!(raw_lists(&merged), 0, "merged lists are objects");
    assert_eq!(
        raw_lists(&single),
        usize::try_from(total).unwrap().min(40),
        "single lists are text"
    );
    let text = serde_json::to_string(&single).unwrap();
    assert_eq!(serde_json::to_string(&merged).unwrap(), text);
    // The values are the store's events of each container, in order.
    let answer: Value = serde_json::from_str(&text).unwrap();
    let nodes = answer["containers"]["nodes"].as_array().unwrap();
    let (containers, _) = f.store.list_containers(f.a.id, 0, 40).await.unwrap();
    assert_eq!(nodes.len(), containers.len());
    let mut events_seen = 0;
    let all_stored = stored_events(&f, &containers).await;
    for ((node, c), stored) in nodes.iter().zip(&containers).zip(all_stored) {
        assert_eq!(node["id"], json!(c.id.to_string()));
        let expected: Vec<Value> = stored
            .iter()
            .map(|e| {
                json!({"id": e.id.to_string(), "rawEventId": e.raw_event_id.to_string(),
                       "__typename": "TransportEvent"})
            })
            .collect();
        events_seen += expected.len();
        assert_eq!(node["events"], json!(expected), "container {}", c.number);
    }
    assert!(events_seen > 100, "{events_seen} events");

    let twice = data(
        "{ containers(first: 40) { nodes { ...F ...F } } } \
         fragment F on Container { id events { id rawEventId __typename } }",
    )
    .await;
    assert_eq!(
        raw_lists(&twice),
        usize::try_from(total).unwrap().min(40),
        "one field spread twice"
    );
    assert_eq!(serde_json::to_string(&twice).unwrap(), text);
}

/// Asserts that `served` (a GraphQL `Shipment` object) has the values of the store's
/// shipment `id` of account `a` (`Store::shipment`), its enums in GraphQL's upper case
/// (`ALL_CONTAINERS_TERMINATED`).
async fn assert_stored_shipment(f: &Fixture, served: &Value, id: Uuid) {
    let shipment = f.store.shipment(f.a.id, id).await.unwrap().unwrap();
    let mut model = serde_json::to_value(&shipment).unwrap();
    if let Some(reason) = shipment.line_tracking_stopped_reason.as_deref() {
        model["line_tracking_stopped_reason"] = json!(reason.to_uppercase());
    }
    assert_same_values("Shipment", served, &model, &[]);
}

/// The store's events of each of `containers`, in their order, read in one call
/// ([`Store::events_of_containers`]): what each served container's `events` must list.
async fn stored_events(
    f: &Fixture,
    containers: &[model::Container],
) -> Vec<Vec<model::TransportEvent>> {
    let ids: Vec<uuid::Uuid> = containers.iter().map(|c| c.id).collect();
    let mut events = f.store.events_of_containers(f.a.id, &ids).await.unwrap();
    containers
        .iter()
        .map(|c| events.remove(&c.id).unwrap_or_default())
        .collect()
}

/// How many values in `value` are JSON text (`response::raw_json`).
fn raw_lists(value: &GqlValue) -> usize {
    match value {
        GqlValue::Object(members) if members.contains_key(async_graphql_value::RAW_VALUE_TOKEN) => {
            1
        }
        GqlValue::Object(members) => members.values().map(raw_lists).sum(),
        GqlValue::List(items) => items.iter().map(raw_lists).sum(),
        _ => 0,
    }
}

/// Removes member `key` from every object in `value`, keeping the order of the others;
/// returns how many it removed.
fn remove_key(value: &mut GqlValue, key: &str) -> usize {
    match value {
        GqlValue::Object(members) => {
            usize::from(members.shift_remove(key).is_some())
                + members
                    .values_mut()
                    .map(|v| remove_key(v, key))
                    .sum::<usize>()
        }
        GqlValue::List(items) => items.iter_mut().map(|v| remove_key(v, key)).sum(),
        _ => 0,
    }
}

/// An ids-only `events` selection with aliases, a repeated key, an inline fragment and a
/// named fragment (answered by building the objects directly) serves the same document, key
/// order included, as the same selection plus `code` once `code` is taken out (which reads
/// the events whole and resolves them field by field); and its values are the store's events
/// of each container.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_ids_built_directly_equal_the_resolved_ones() {
    let f = fixture().await;
    let query = |more: &str| {
        format!(
            "{{ containers(first: 100) {{ nodes {{ id events {{ k: id \
             ... on TransportEvent {{ rawEventId t: __typename }} ...I id k: id{more} }} }} }} }} \
             fragment I on TransportEvent {{ raw: rawEventId k: id }}"
        )
    };
    // The containers as objects of values (`types::Plainly`), not JSON text, so that the
    // events' lists in them can be told apart and their keys taken out.
    let document = |query: String| {
        let schema = f.schema.clone();
        let account = f.a.clone();
        async move {
            let request = Request::new(query)
                .data(account)
                .data(crate::types::Plainly);
            let response = schema.execute(request).await;
            assert!(response.errors.is_empty(), "{:#?}", response.errors);
            response.data
        }
    };
    let direct_value = document(query("")).await;
    // The selection names `events` once in the document: each list is answered as JSON text.
    let (_, total) = f.store.list_containers(f.a.id, 0, 1).await.unwrap();
    assert_eq!(
        raw_lists(&direct_value),
        usize::try_from(total).unwrap().min(100),
        "lists as text"
    );
    let direct = serde_json::to_string(&direct_value).unwrap();
    let mut resolved = document(query(" code")).await;
    assert_eq!(raw_lists(&resolved), 0, "events read whole are objects");
    let codes = remove_key(&mut resolved, "code");
    assert!(codes > 100, "{codes} events read whole");
    assert_eq!(direct, serde_json::to_string(&resolved).unwrap());

    let data: Value = serde_json::from_str(&direct).unwrap();
    let nodes = data["containers"]["nodes"].as_array().unwrap();
    let (containers, _) = f.store.list_containers(f.a.id, 0, 100).await.unwrap();
    assert_eq!(nodes.len(), containers.len());
    let mut events_seen = 0;
    let all_stored = stored_events(&f, &containers).await;
    for ((node, c), stored) in nodes.iter().zip(&containers).zip(all_stored) {
        let served = node["events"].as_array().unwrap();
        assert_eq!(served.len(), stored.len(), "container {}", c.number);
        if let Some(e) = stored.first() {
            let (id, raw) = (e.id, e.raw_event_id);
            let exact = format!(
                r#"{{"k":"{id}","rawEventId":"{raw}","t":"TransportEvent","raw":"{raw}","id":"{id}"}}"#
            );
            assert!(
                direct.contains(&exact),
                "keys in the selection's order: {exact}"
            );
        }
        for (x, e) in served.iter().zip(&stored) {
            let keys: Vec<&str> = x.as_object().unwrap().keys().map(String::as_str).collect();
            let mut expected = vec!["k", "rawEventId", "t", "raw", "id"];
            expected.sort_unstable();
            assert_eq!(keys, expected, "one key each, no other");
            assert_eq!(x["k"], json!(e.id.to_string()));
            assert_eq!(x["id"], json!(e.id.to_string()));
            assert_eq!(x["rawEventId"], json!(e.raw_event_id.to_string()));
            assert_eq!(x["raw"], json!(e.raw_event_id.to_string()));
            assert_eq!(x["t"], json!("TransportEvent"));
        }
        events_seen += stored.len();
    }
    assert!(events_seen > 100, "{events_seen} events");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn router_serves_graphiql_and_executes_with_the_account() {
    let f = fixture().await;
    let app = router(f.schema.clone());

    let response = app
        .clone()
        .oneshot(
            axum::http::Request::get("/graphql")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let html = response.into_body().collect().await.unwrap().to_bytes();
    let html = String::from_utf8_lossy(&html);
    assert!(
        html.contains("graphiql"),
        "GET /graphql should serve GraphiQL"
    );
    assert!(html.contains("/graphql"));

    let post = |account: Option<Account>| {
        let mut request = axum::http::Request::builder()
            .method(Method::POST)
            .uri("/graphql")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                json!({ "query": "{ containers { totalCount } }" }).to_string(),
            ))
            .unwrap();
        if let Some(account) = account {
            request.extensions_mut().insert(account);
        }
        request
    };
    let (_, total) = f.store.list_containers(f.a.id, 0, 1).await.unwrap();
    for (account, want) in [
        (
            Some(f.a.clone()),
            json!({ "data": { "containers": { "totalCount": total } } }),
        ),
        (
            Some(f.b.clone()),
            json!({ "data": { "containers": { "totalCount": 0 } } }),
        ),
    ] {
        let response = app.clone().oneshot(post(account)).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body, want);
    }
    let response = app.oneshot(post(None)).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body["errors"][0]["extensions"]["code"],
        json!("UNAUTHENTICATED")
    );
}

#[test]
fn status_enum_matches_the_spec_values() {
    for status in model::ContainerStatus::ALL {
        let ours = ContainerStatus::from(status);
        let item = ContainerStatus::items()
            .iter()
            .find(|i| i.value == ours)
            .unwrap();
        assert_eq!(item.name, status.as_str().to_uppercase());
    }
    assert_eq!(
        ContainerStatus::items().len(),
        model::ContainerStatus::ALL.len()
    );
}

#[test]
fn schema_file_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema.graphql");
    let sdl = sdl();
    if std::env::var_os("UPDATE_SCHEMA").is_some_and(|v| v == "1") {
        std::fs::write(&path, &sdl).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == sdl,
        "{} is out of date with the schema; regenerate it with\n  \
         UPDATE_SCHEMA=1 cargo test --workspace --lib schema_file_is_up_to_date",
        path.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_deep_queries_are_refused() {
    let f = fixture().await;
    // containers.nodes.shipment.containers.shipment.containers.shipment.containers.shipment
    // .containers.shipment.containers.id: depth 13.
    let mut inner = String::from("id");
    for _ in 0..5 {
        inner = format!("shipment {{ containers {{ {inner} }} }}");
    }
    let query = format!("{{ containers {{ nodes {{ {inner} }} }} }}");
    let (data, errors) = run(&f.schema, Some(&f.a), &query).await;
    assert_eq!(data, Value::Null);
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("nested too deep"),
        "{errors:#?}"
    );
}

/// A query text sent again is answered from its cached parse exactly as the first time, its
/// variables apply anew, the LRU keeps working past its capacity, and a syntax error is
/// answered every time (nothing cached for it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_sent_again_answers_as_the_first_time() {
    let f = fixture().await;
    let options = crate::Options {
        persisted_queries: 2,
        ..crate::Options::default()
    };
    let schema = crate::schema_with(
        f.store.clone(),
        teu_api::limit::AccountLimiter::default(),
        &options,
    );
    let numbers = "{ containers(first: 3) { totalCount nodes { number } } }";
    let bols = "{ shipments(first: 2) { nodes { billOfLadingNumber } } }";
    let ids = "{ containers(first: 1) { nodes { id } } }";
    let first: Vec<Value> = [
        ok(&schema, &f.a, numbers).await,
        ok(&schema, &f.a, bols).await,
        ok(&schema, &f.a, ids).await,
    ]
    .into();
    assert_eq!(first[0]["containers"]["nodes"].as_array().unwrap().len(), 3);
    assert_eq!(first[1]["shipments"]["nodes"].as_array().unwrap().len(), 2);
    // Twice round, in an order that evicts each before it comes again (capacity 2).
    for _ in 0..2 {
        for (query, answer) in [numbers, bols, ids].iter().zip(&first) {
            assert_eq!(&ok(&schema, &f.a, query).await, answer, "{query}");
        }
        for (query, answer) in [ids, numbers].iter().zip([&first[2], &first[0]]) {
            assert_eq!(&ok(&schema, &f.a, query).await, answer, "{query}");
        }
    }
    // The same text with other variables: the parse is shared, the answer is not.
    let paged = "query($n: Int) { containers(first: $n) { nodes { id } } }";
    for n in [1, 3, 2, 3] {
        let request = Request::new(paged)
            .variables(async_graphql::Variables::from_json(json!({ "n": n })))
            .data(f.a.clone());
        let response = serde_json::to_value(schema.execute(request).await).unwrap();
        let nodes = response["data"]["containers"]["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), n, "{response}");
    }
    for _ in 0..2 {
        let (_, errors) = run(&schema, Some(&f.a), "{ containers(first: 2) { totalCount ").await;
        assert_eq!(errors.len(), 1, "{errors:?}");
    }
}

/// A store with [`N_PLUS_ONE_SHIPMENTS`] generated shipments (well over 100 containers) and
/// their terminal availability (holds, fees, last free days), line deadlines and rail legs.
const N_PLUS_ONE: teu_synth::dcsa::GenOptions = teu_synth::dcsa::GenOptions {
    shipments: 45,
    seed: 5,
    events_per_file: 0,
};

/// The statements one query costs, counted by the store.
async fn statements_of(schema: &TeuSchema, store: &Store, account: &Account, query: &str) -> u64 {
    let before = store.statement_count();
    let data = ok(schema, account, query).await;
    assert!(data.is_object());
    store.statement_count() - before
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_costs_a_constant_number_of_statements() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap();
    let (a, _) = store.create_account("a", false).await.unwrap();
    let generated = teu_synth::dcsa::generate(&N_PLUS_ONE);
    let extra = teu_synth::terminal::extra_feeds(&generated, N_PLUS_ONE.seed);
    for file in generated {
        let batch =
            teu_pipeline::feeds::dcsa::read_value(Value::Array(file.events), &file.name).unwrap();
        teu_pipeline::ingest::ingest_batch(&store, &a, batch)
            .await
            .unwrap();
    }
    for (name, content) in extra.files {
        let batch = teu_pipeline::feeds::read_bytes(content.as_bytes(), &name).unwrap();
        teu_pipeline::ingest::ingest_batch(&store, &a, batch)
            .await
            .unwrap();
    }
    let schema = schema(store.clone(), teu_api::limit::AccountLimiter::default());
    let (_, total) = store.list_containers(a.id, 0, 1).await.unwrap();
    assert!(total >= 100, "only {total} containers");

    let page = |n: u32| {
        format!(
            "{{ containers(first: {n}) {{ totalCount nodes {{ number currentStatus hasHolds \
               holdsAtPodTerminal {{ name status }} feesAtPodTerminal {{ type amount }} pickupLfd \
               podTerminal {{ name port {{ locode }} }} vessels {{ imo name }} \
               shipment {{ billOfLadingNumber podEtaAt podTimezone portOfDischarge {{ name }} }} \
               events {{ code eventAt timezone vessel {{ imo }} }} }} }} }}"
        )
    };
    let small = statements_of(&schema, &store, &a, &page(10)).await;
    let large = statements_of(&schema, &store, &a, &page(100)).await;
    println!("containers page: 10 → {small} statements, 100 → {large} statements");
    // count + page, one batch of shipments, one batch of events: 4.
    assert!(large <= 8, "{large} statements for 100 containers");
    assert_eq!(small, large, "the cost must not grow with the page");

    let shipments = |n: u32| {
        format!(
            "{{ shipments(first: {n}, filter: {{hasHolds: false}}, orderBy: POD_ETA_ASC) {{ nodes {{ \
               billOfLadingNumber portOfLading {{ name }} podVessel {{ name }} \
               containers {{ number hasHolds events {{ code }} shipment {{ id }} }} }} }} }}"
        )
    };
    let small = statements_of(&schema, &store, &a, &shipments(5)).await;
    let large = statements_of(&schema, &store, &a, &shipments(40)).await;
    println!("shipments page: 5 → {small} statements, 40 → {large} statements");
    assert!(large <= 8, "{large} statements for 40 shipments");
    assert_eq!(small, large, "the cost must not grow with the page");
}

/// The selection of every field of type `ty` that takes no required argument, as the
/// schema lists them (introspection), so that a field added later is in it too: scalars and
/// enums by name, object fields with their own selection while `depth` lasts (interfaces and
/// unions left out).
async fn every_field(f: &Fixture, ty: &str, depth: usize) -> String {
    let query = format!(
        "{{ __type(name: \"{ty}\") {{ fields {{ name args {{ type {{ kind }} }} \
         type {{ kind name ofType {{ kind name ofType {{ kind name ofType {{ kind name }} }} }} }} }} }} }}"
    );
    let data = ok(&f.schema, &f.a, &query).await;
    let mut selection = Vec::new();
    for field in data["__type"]["fields"].as_array().unwrap() {
        if field["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"]["kind"] == "NON_NULL")
        {
            continue;
        }
        let mut named = &field["type"];
        while named["kind"] == "NON_NULL" || named["kind"] == "LIST" {
            named = &named["ofType"];
        }
        let name = field["name"].as_str().unwrap();
        match named["kind"].as_str().unwrap() {
            "SCALAR" | "ENUM" => selection.push(name.to_string()),
            "OBJECT" if depth > 0 => {
                let inner =
                    Box::pin(every_field(f, named["name"].as_str().unwrap(), depth - 1)).await;
                if !inner.is_empty() {
                    selection.push(format!("{name} {{ {inner} }}"));
                }
            }
            _ => {}
        }
    }
    selection.join(" ")
}

/// Every field of `Container` and of its `Shipment` (and of the objects under them, two
/// levels down), for every container of the fixture, page by page: the objects `InPlace`
/// writes as JSON text (`types::text`) answer the same bytes as async-graphql's own
/// resolution of the same request (`types::Plainly`), errors and their paths included
/// (`route` is a paid feature `a` does not have); so does a selection that names a key
/// twice, which is answered as objects of values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_written_as_text_answer_what_async_graphql_answers() {
    let f = fixture().await;
    let container = every_field(&f, "Container", 2).await;
    for field in [
        "number",
        "currentStatus",
        "podArrivedAt",
        "shipment {",
        "events {",
    ] {
        assert!(container.contains(field), "{field} in {container}");
    }
    let execute = |query: String, plainly: bool| {
        let schema = f.schema.clone();
        let account = f.a.clone();
        async move {
            let mut request = Request::new(query).data(account);
            if plainly {
                request = request.data(crate::types::Plainly);
            }
            schema.execute(request).await
        }
    };
    let (_, total) = f.store.list_containers(f.a.id, 0, 1).await.unwrap();
    for selection in [container.clone(), format!("number {container} number")] {
        let twice = selection.starts_with("number");
        let (mut after, mut seen) = (String::from("null"), 0);
        loop {
            let query = format!(
                "{{ containers(first: 5, after: {after}) {{ pageInfo {{ hasNextPage endCursor }} \
                 edges {{ node {{ {selection} }} }} }} }}"
            );
            let text = execute(query.clone(), false).await;
            let plain = execute(query.clone(), true).await;
            let nodes = text.data.clone().into_json().unwrap()["containers"]["edges"]
                .as_array()
                .unwrap()
                .len();
            // The containers themselves are text, unless a key is named twice.
            let raw = text.data.clone();
            let raw = match raw {
                GqlValue::Object(mut data) => match data.shift_remove("containers") {
                    Some(GqlValue::Object(mut page)) => match page.shift_remove("edges") {
                        Some(GqlValue::List(edges)) => edges
                            .iter()
                            .filter(|edge| match edge {
                                GqlValue::Object(edge) => matches!(
                                    edge.get("node"),
                                    Some(GqlValue::Object(node))
                                        if node.contains_key(async_graphql_value::RAW_VALUE_TOKEN)
                                ),
                                _ => false,
                            })
                            .count(),
                        _ => 0,
                    },
                    _ => 0,
                },
                _ => 0,
            };
            let json = serde_json::to_string(&text).unwrap();
            assert_eq!(json, serde_json::to_string(&plain).unwrap(), "{query}");
            assert_eq!(
                raw,
                if twice { 0 } else { nodes },
                "containers written as text"
            );
            let answer: Value = serde_json::from_str(&json).unwrap();
            let errors = answer["errors"].as_array().cloned().unwrap_or_default();
            assert_eq!(
                errors.len(),
                nodes,
                "one `route` error a container: {answer}"
            );
            assert!(codes(&errors).iter().all(|c| *c == "FORBIDDEN"), "{answer}");
            seen += nodes;
            let page = &answer["data"]["containers"]["pageInfo"];
            if page["hasNextPage"] != true {
                break;
            }
            after = page["endCursor"].to_string();
        }
        assert_eq!(seen as i64, total, "every container");
    }
}
