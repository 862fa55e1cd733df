//! The whole picture of `teu serve --demo` over `/v2`: every container and shipment of the
//! demo account checked against rules that follow from the spec's and Terminal49's
//! definitions, not against values printed earlier (issue "Derived data that is right",
//! "Done when"). Besides, [`the_demo_documents_match_their_snapshots`] pins the documents of a
//! few demo containers as they are (insta snapshots under `tests/snapshots/`), so that any change
//! of a served document shows as a diff to review.

mod common;

use std::collections::HashMap;

use common::{containers_with_shipments, Server, TestDb};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_tells_the_truth_about_every_container() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--demo"]);
    let key = server.demo_key();
    let all = containers_with_shipments(&server, &key).await;
    assert!(all.len() > 150, "{} demo containers", all.len());

    let mut problems: Vec<String> = Vec::new();
    let mut by_shipment: HashMap<String, Vec<&Value>> = HashMap::new();
    for (c, s) in &all {
        let a = &c["attributes"];
        let number = a["number"].as_str().unwrap_or_default();
        assert!(s.is_object(), "{number}: its shipment is included");
        by_shipment
            .entry(s["id"].as_str().unwrap_or_default().to_string())
            .or_default()
            .push(c);
        let sa = &s["attributes"];
        // A vessel arrival at the POD reaches every container of the shipment it carried.
        if !sa["pod_ata_at"].is_null() && a["pod_arrived_at"].is_null() {
            problems.push(format!(
                "{number}: shipment {} arrived at its POD {} but pod_arrived_at is null",
                sa["bill_of_lading_number"], sa["pod_ata_at"]
            ));
        }
        // A destination UN/LOCODE that is a known port is the destination relationship.
        if !sa["destination_locode"].is_null()
            && !sa["destination_name"].is_null()
            && s["relationships"]["destination"]["data"].is_null()
        {
            problems.push(format!(
                "{}: destination {} without a destination relationship",
                sa["bill_of_lading_number"], sa["destination_locode"]
            ));
        }
        // A box returned empty has been discharged and has its return time.
        if a["current_status"] == "empty_returned" && a["empty_terminated_at"].is_null() {
            problems.push(format!(
                "{number}: empty_returned without empty_terminated_at"
            ));
        }
    }
    let mut terminated = 0;
    for (c, s) in &all {
        let sid = s["id"].as_str().unwrap_or_default();
        let members = &by_shipment[sid];
        let sa = &s["attributes"];
        let bl = sa["bill_of_lading_number"].as_str().unwrap_or_default();
        // The shipment's POD terminal is the one its containers name.
        let named: Vec<&Value> = members
            .iter()
            .map(|m| &m["relationships"]["pod_terminal"]["data"])
            .filter(|t| !t.is_null())
            .collect();
        let pod_terminal = &s["relationships"]["pod_terminal"]["data"];
        if !named.is_empty() && !named.contains(&pod_terminal) {
            problems.push(format!(
                "{bl}: pod_terminal {pod_terminal} is none of its containers' {named:?}"
            ));
        }
        // Every box back empty: the line stops tracking (Terminal49's reason).
        let all_back = members
            .iter()
            .all(|m| !m["attributes"]["empty_terminated_at"].is_null());
        let reason = &sa["line_tracking_stopped_reason"];
        if all_back != (reason == "all_containers_terminated") {
            problems.push(format!(
                "{bl}: every container returned empty is {all_back}, stopped reason {reason}"
            ));
        }
        terminated += usize::from(all_back);
        // The shipping line is always known in the demo (its carriers are all listed).
        if sa["shipping_line_scac"] == "" {
            problems.push(format!("{bl}: no shipping line"));
        }
        let _ = c;
    }
    assert!(
        terminated > 0,
        "the demo has shipments whose boxes all came back"
    );
    common::assert_no_problems(problems);
}

/// Statuses after the box left the vessel at its POD.
const PAST_POD: [&str; 9] = [
    "available",
    "not_available",
    "grounded",
    "picked_up",
    "off_dock",
    "delivered",
    "dropped",
    "empty_returned",
    "awaiting_inland_transfer",
];

#[tokio::test(flavor = "multi_thread")]
async fn every_demo_map_follows_the_spec_rules() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--demo"]);
    let key = server.demo_key();
    let all = containers_with_shipments(&server, &key).await;
    let mut problems: Vec<String> = Vec::new();
    let (mut with_vessel, mut with_ports) = (0, 0);
    for (c, _) in &all {
        let number = c["attributes"]["number"].as_str().unwrap_or_default();
        let status = c["attributes"]["current_status"]
            .as_str()
            .unwrap_or_default();
        let id = c["id"].as_str().unwrap_or_default();
        let (code, map) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(&key))
            .await;
        assert_eq!(code, 200, "{number}: {map}");
        let features = map["features"].as_array().cloned().unwrap_or_default();
        let of = |t: &str| -> Vec<&Value> {
            features
                .iter()
                .filter(|f| f["properties"]["feature_type"] == t)
                .collect()
        };
        // No port twice; sequences 1..=ports_total.
        let ports = of("port");
        with_ports += usize::from(!ports.is_empty());
        let mut locations: Vec<&str> = ports
            .iter()
            .map(|p| p["properties"]["location_id"].as_str().unwrap_or_default())
            .collect();
        let n = locations.len();
        locations.sort_unstable();
        locations.dedup();
        if locations.len() != n {
            problems.push(format!("{number}: a port is repeated on the map"));
        }
        for p in &ports {
            let total = p["properties"]["ports_total"].as_u64().unwrap_or(0);
            let seq = p["properties"]["ports_sequence"].as_u64().unwrap_or(0);
            if seq == 0 || seq > total {
                problems.push(format!("{number}: ports_sequence {seq} of {total}"));
            }
        }
        // Past the POD: no predicted leg.
        if PAST_POD.contains(&status)
            && !(of("estimated_full_legs").is_empty() && of("estimated_partial_leg").is_empty())
        {
            problems.push(format!(
                "{number} ({status}): an estimated leg after its POD"
            ));
        }
        // WGS84 ranges everywhere.
        for f in &features {
            let g = &f["geometry"];
            let points: Vec<&Value> = match g["type"].as_str() {
                Some("Point") => vec![&g["coordinates"]],
                _ => g["coordinates"].as_array().into_iter().flatten().collect(),
            };
            for p in points {
                let (lon, lat) = (
                    p[0].as_f64().unwrap_or(999.0),
                    p[1].as_f64().unwrap_or(999.0),
                );
                if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) {
                    problems.push(format!("{number}: coordinate [{lon}, {lat}] out of range"));
                    break;
                }
            }
        }
        // The current vessel sits on a leg that departed and has not arrived.
        for v in of("current_vessel") {
            with_vessel += 1;
            let seq = v["properties"]["ports_sequence"].as_u64();
            let port = |s: Option<u64>| {
                ports
                    .iter()
                    .find(|p| p["properties"]["ports_sequence"].as_u64() == s)
                    .map(|p| &p["properties"])
            };
            let departed = !v["properties"]["departure_port_atd"].is_null()
                || port(seq).is_some_and(|p| !p["outbound_atd_at"].is_null());
            let arrived = port(seq.map(|s| s + 1)).is_some_and(|p| !p["inbound_ata_at"].is_null());
            if arrived {
                problems.push(format!(
                    "{number}: current_vessel on a leg that has arrived"
                ));
            }
            let _ = departed;
            if PAST_POD.contains(&status) {
                problems.push(format!("{number} ({status}): current_vessel after its POD"));
            }
        }
    }
    assert!(with_ports > 150, "{with_ports} maps with ports");
    assert!(with_vessel > 0, "some demo container is at sea");
    common::assert_no_problems(problems);
}

/// The demo account's id in [`the_demo_documents_match_their_snapshots`]. Container, shipment
/// and event ids are UUID v5 of their natural keys scoped by the account (`teu_domain::ids`), so
/// with this id they are the same on every run and stay in the snapshots.
const SNAPSHOT_ACCOUNT_ID: &str = "00000000-0000-4000-8000-00000000d3e0";

/// The demo containers whose documents are snapshotted: the real DCSA sample's box and one
/// generated box (seeded, the same on every run) for each stage and feature of the documents.
const SNAPSHOTTED: [(&str, &str); 8] = [
    ("APZU4812090", "the real DCSA 2.2 and 3.0 samples' box"),
    (
        "TCLU1662123",
        "new: not departed, a transshipment and a rail leg ahead, predicted legs only",
    ),
    (
        "MAEU7772786",
        "on_ship across the Pacific: current vessel, its predicted leg cut at the antimeridian",
    ),
    (
        "CMAU8552593",
        "not_available: transshipped, a customs hold at the terminal",
    ),
    ("CMAU7012395", "grounded"),
    ("MSCU9332403", "available, with an exam fee"),
    ("CSNU3991840", "picked_up"),
    (
        "HLBU6321569",
        "empty_returned: the journey is over, an exam fee",
    ),
];

/// The GraphQL document of one container, with its shipment, transport events and route: the
/// fields a client of the demo reads. (`events`, every carrier event with its DCSA fields, is
/// left out like `/v2`'s `raw_events`: it would double the snapshots.)
const GRAPHQL_CONTAINER: &str = "query($id: ID!) { container(id: $id) {
    id number refNumbers sealNumber createdAt updatedAt
    equipmentType equipmentLength equipmentHeight weightInLbs
    pickupLfd pickupAppointmentAt availabilityKnown availableForPickup
    podArrivedAt podDischargedAt podFullOutAt terminalCheckedAt podFullOutChassisNumber
    locationAtPodTerminal finalDestinationFullOutAt emptyTerminatedAt
    holdsAtPodTerminal { name status description } feesAtPodTerminal { type amount currencyCode }
    podTimezone finalDestinationTimezone emptyTerminatedTimezone
    podRailCarrierScac indRailCarrierScac podLastTrackingRequestAt shipmentLastTrackingRequestAt
    podRailLoadedAt podRailDepartedAt indEtaAt indAtaAt indRailUnloadedAt indFacilityLfdOn
    importDeadlines { pickupLfdTerminal pickupLfdRail pickupLfdLine }
    currentStatus hasHolds
    podTerminal { id name locode smdgCode bicCode firmsCode timezone }
    pickupFacility { id name locode smdgCode bicCode firmsCode timezone }
    vessels { imo name }
    shipment {
        id billOfLadingNumber normalizedNumber refNumbers createdAt updatedAt tags
        portOfLadingLocode portOfLadingName portOfDischargeLocode portOfDischargeName
        destinationLocode destinationName
        shippingLineScac shippingLineName shippingLineShortName customerName
        podVesselName podVesselImo podVoyageNumber
        polEtdAt polAtdAt podEtaAt podOriginalEtaAt podAtaAt destinationEtaAt destinationAtaAt
        polTimezone podTimezone destinationTimezone
        lineTrackingLastAttemptedAt lineTrackingLastSucceededAt
        lineTrackingStoppedAt lineTrackingStoppedReason
        portOfLading { id locode name countryCode country timezone }
        portOfDischarge { id locode name countryCode country timezone }
        destination { id locode name countryCode country timezone }
        podTerminal { id name locode }
        podVessel { imo name }
        containers { id number }
    }
    transportEvents { id event createdAt voyageNumber timestamp timezone locationLocode dataSource
        location { id locode } vessel { imo name } }
    route {
        ports { sequence locode locationId name countryCode timeZone label longitude latitude
            inboundEtaAt inboundAtaAt outboundEtdAt outboundAtdAt }
        currentVessel { portsSequence vesselImo vesselName voyageNumber timestamp
            longitude latitude heading speed }
        legs { kind portsSequence fromLocode toLocode vesselImo startTime endTime pointCount }
    }
} }";

/// `teu serve --demo` on a fresh SQLite database whose `demo` account has the id
/// [`SNAPSHOT_ACCOUNT_ID`] (made before the server starts; `--demo` then loads into it). Unlike an
/// account `--demo` creates, it has no random inbound email address, which no container
/// document shows.
async fn demo_with_fixed_account_id() -> (TestDb, Server) {
    let db = TestDb::sqlite();
    // Any command creates and migrates the database; this account stays empty.
    db.create_account("migrations");
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    teu_store::db::query(
        "INSERT INTO accounts (id, name, company_name, routing_data, created_at) \
         VALUES ($1, 'demo', 'demo', 1, $2)",
    )
    // Ids and times in their stored form (migration 49).
    .bind(teu_store::db::RecordId(
        uuid::Uuid::parse_str(SNAPSHOT_ACCOUNT_ID).expect("an id"),
    ))
    .bind(teu_store::db::RecordTime(
        "2026-01-01T00:00:00Z".parse().expect("a time"),
    ))
    .execute(&mut conn)
    .await
    .expect("demo account");
    drop(conn);
    let server = Server::start(&db, &["--demo"]);
    (db, server)
}

/// Replaces the server's random base URL (`http://127.0.0.1:PORT`) in every string with
/// `[base]`, so links keep their paths and queries.
fn without_base(v: Value, base: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(base, "[base]")),
        Value::Array(items) => items.into_iter().map(|i| without_base(i, base)).collect(),
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, without_base(v, base)))
            .collect(),
        other => other,
    }
}

/// The redaction of a wall-clock time (when the row was written at ingest): checks the value
/// is an RFC 3339 UTC date-time, since the snapshot no longer shows it.
fn ingest_time() -> insta::internals::Redaction {
    insta::dynamic_redaction(|value, path| {
        let s = value.as_str().unwrap_or_default();
        assert!(
            chrono::DateTime::parse_from_rfc3339(s).is_ok() && s.ends_with('Z'),
            "{path} = {value:?} is not an RFC 3339 UTC date-time"
        );
        "[ingest time]"
    })
}

/// Snapshots (`tests/snapshots/demo__*.snap`) of the documents a client reads from
/// `teu serve --demo`:
///
/// - `v2_containers_page_1`: `GET /v2/containers?include=shipment&page[size]=5` (the README's
///   first request), in list order (last refreshed first: the boxes the demo's last ingest
///   batch wrote, which tie on that time and are ordered by id);
/// - `v2_<number>` for each box of [`SNAPSHOTTED`]: `GET /v2/containers/{id}`,
///   `GET /v2/shipments/{id}` of its shipment, `GET /v2/containers/{id}/transport_events` and
///   `GET /v2/containers/{id}/map_geojson`, as one object;
/// - `graphql_<number>`: the [`GRAPHQL_CONTAINER`] query of the same box (container, shipment,
///   events, route).
///
/// The demo has no tracking requests, so there is no tracking request document to pin.
///
/// Redacted, because they change from run to run: `created_at` of containers and shipments
/// (`createdAt`, `updatedAt` in GraphQL), the wall-clock time the ingest wrote the row, shown as
/// `[ingest time]` after a check that it is an RFC 3339 UTC date-time; and the server's base URL
/// with its random port, `[base]` in links. Everything else stays: the times of the feed's
/// events (and the ETAs, deadlines and route times derived from them) are fixed data, and the
/// ids are UUID v5 of natural keys (the account's is fixed by [`demo_with_fixed_account_id`]).
///
/// A missing or different snapshot fails the test (insta writes `.snap.new` beside it, except
/// under `CI`): run with `INSTA_UPDATE=always`, read the new `.snap` files against
/// docs/interface.md, and commit them only if they are right.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_documents_match_their_snapshots() {
    let (_db, server) = demo_with_fixed_account_id().await;
    let key = server.demo_key();
    let get = |path: String| {
        let (server, key) = (&server, &key);
        async move {
            let (status, doc) = server.get(&path, Some(key)).await;
            assert_eq!(status, 200, "GET {path}: {doc}");
            without_base(doc, &server.base)
        }
    };

    let page = get("/v2/containers?include=shipment&page[size]=5".into()).await;
    insta::with_settings!({
        description => "GET /v2/containers?include=shipment&page[size]=5",
        omit_expression => true,
    }, {
        insta::assert_json_snapshot!("v2_containers_page_1", page, {
            ".data[].attributes.created_at" => ingest_time(),
            ".included[].attributes.created_at" => ingest_time(),
        });
    });

    for (number, what) in SNAPSHOTTED {
        let (_, found) = server
            .get(
                &format!("/v2/containers?filter[number]={number}"),
                Some(&key),
            )
            .await;
        let id = found["data"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{number} is not a demo container: {found}"))
            .to_string();
        let container = get(format!("/v2/containers/{id}")).await;
        let shipment_id = container["data"]["relationships"]["shipment"]["data"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{number} has no shipment: {container}"))
            .to_string();
        let documents = serde_json::json!({
            "container": container,
            "shipment": get(format!("/v2/shipments/{shipment_id}")).await,
            "transport_events": get(format!("/v2/containers/{id}/transport_events")).await,
            "map_geojson": get(format!("/v2/containers/{id}/map_geojson")).await,
        });
        insta::with_settings!({
            description => format!(
                "{number} ({what}): GET /v2/containers/{{id}}, /v2/shipments/{{id}} of its \
                 shipment, /v2/containers/{{id}}/transport_events, /v2/containers/{{id}}/map_geojson"
            ),
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!(format!("v2_{number}"), documents, {
                ".container.data.attributes.created_at" => ingest_time(),
                ".shipment.data.attributes.created_at" => ingest_time(),
            });
        });

        let (status, graphql) = server
            .graphql(
                Some(&key),
                GRAPHQL_CONTAINER,
                serde_json::json!({ "id": id }),
            )
            .await;
        assert_eq!(status, 200, "{graphql}");
        assert!(graphql.get("errors").is_none(), "{number}: {graphql}");
        insta::with_settings!({
            description => format!("{number} ({what}): the GRAPHQL_CONTAINER query of tests/demo.rs"),
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!(format!("graphql_{number}"), without_base(graphql, &server.base), {
                ".data.container.createdAt" => ingest_time(),
                ".data.container.updatedAt" => ingest_time(),
                ".data.container.shipment.createdAt" => ingest_time(),
                ".data.container.shipment.updatedAt" => ingest_time(),
            });
        });
    }
}
