//! The whole picture of `teu serve --demo` over `/v2`: every container and shipment of the
//! demo account checked against rules that follow from the spec's and Terminal49's
//! definitions, not against values printed earlier (issue "Derived data that is right",
//! "Done when").

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
