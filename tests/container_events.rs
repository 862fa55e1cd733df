//! `/v2/containers/{id}/transport_events` and `/raw_events` on the hand-written transshipment
//! case (`data/dcsa-cases/04-transshipment-rolled`: loaded at Ho Chi Minh City (POL), moved to
//! another vessel at Singapore, bound for Hamburg (POD) with only an estimate there): the real
//! binary, SQLite (and PostgreSQL when `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use common::{data, Server, TestDb};
use serde_json::Value;

on_both_backends!(a_transshipped_box_has_its_events_named_by_port);

async fn a_transshipped_box_has_its_events_named_by_port(db: &TestDb) {
    let key = db.create_account("acme");
    let other = db.create_account("other");
    db.ingest(
        "acme",
        &[data("dcsa-cases/04-transshipment-rolled/events.json")],
    );
    let server = Server::start(db, &["--no-webhook-delivery"]);
    let (_, list) = server.get("/v2/containers", Some(&key)).await;
    let container = &list["data"][0];
    assert_eq!(container["attributes"]["number"], "MSKU4000010");
    let id = container["id"].as_str().unwrap();

    let (status, te) = server
        .get(&format!("/v2/containers/{id}/transport_events"), Some(&key))
        .await;
    assert_eq!(status, 200, "{te}");
    let named: Vec<(String, String)> = te["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "transport_event");
            assert_eq!(e["relationships"]["container"]["data"]["id"], id);
            (
                e["attributes"]["event"].as_str().unwrap().to_string(),
                e["attributes"]["location_locode"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    // The actual events only: at the POL the vessel's, at Singapore the transshipment's, none
    // at Hamburg (only estimated there).
    assert!(named.contains(&("container.transport.vessel_loaded".into(), "VNSGN".into())));
    assert!(named.contains(&("container.transport.vessel_departed".into(), "VNSGN".into())));
    for (event, at) in &named {
        match at.as_str() {
            "VNSGN" => assert!(event.starts_with("container.transport.vessel_"), "{event}"),
            "SGSIN" => assert!(
                event.starts_with("container.transport.transshipment_"),
                "{event} at {at}"
            ),
            _ => panic!("{event} at {at}: no actual event happened there"),
        }
    }
    for want in ["arrived", "discharged", "loaded", "departed"] {
        let event = format!("container.transport.transshipment_{want}");
        assert!(
            named.iter().any(|(e, _)| *e == event),
            "{event} missing: {named:?}"
        );
    }
    // The ids are the container's transport_events relationship.
    let related: Vec<&Value> = container["relationships"]["transport_events"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    for e in te["data"].as_array().unwrap() {
        assert!(related.contains(&&e["id"]), "{}", e["id"]);
    }
    // …and nothing more: every id of the relationship is one the route serves.
    assert_eq!(related.len(), te["data"].as_array().unwrap().len());

    let (status, raw) = server
        .get(&format!("/v2/containers/{id}/raw_events"), Some(&key))
        .await;
    assert_eq!(status, 200, "{raw}");
    let raw = raw["data"].as_array().unwrap();
    assert!(
        raw.len() > named.len(),
        "raw events include the estimates and plans"
    );
    // The estimate of the arrival at Hamburg: a vessel arrival, estimated.
    let eta = raw
        .iter()
        .find(|e| {
            e["attributes"]["location_locode"] == "DEHAM"
                && e["attributes"]["estimated"] == true
                && e["attributes"]["original_event"] == "TRANSPORT ARRI"
        })
        .expect("estimated arrival at Hamburg");
    assert_eq!(eta["attributes"]["event"], "vessel_arrived");
    assert_eq!(eta["attributes"]["actual_at"], Value::Null);
    assert_eq!(
        eta["attributes"]["estimated_at"],
        eta["attributes"]["timestamp"]
    );
    for (i, e) in raw.iter().enumerate() {
        assert_eq!(e["type"], "raw_event");
        assert_eq!(e["attributes"]["index"], i);
    }

    // Another account's container is a 404, as is a made-up one.
    for key in [&other, &key] {
        let path = if key == &other {
            format!("/v2/containers/{id}/transport_events")
        } else {
            "/v2/containers/00000000-0000-4000-8000-000000000000/raw_events".to_string()
        };
        let (status, body) = server.get(&path, Some(key)).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
}
