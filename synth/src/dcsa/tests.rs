//! Unit tests of the DCSA generator: shapes, determinism, shared voyages and vessels, the
//! clock and check digits.

use super::*;
use chrono::DateTime;
use serde_json::Value;
use teu_pipeline::iso6346::check_digit as iso6346_check_digit;
use uuid::Uuid;

use super::tables::{LESSORS, LOOPS, VESSEL_WORDS};
use super::time::{fmt_local, fmt_time, fmt_utc, D, NOW};
use super::voyages::imo_check_digit;
use chrono_tz::Europe;
use std::collections::{HashMap, HashSet};

fn gen(shipments: usize, seed: u64) -> Vec<GeneratedFile> {
    generate(&GenOptions {
        shipments,
        seed,
        events_per_file: 0,
    })
}

fn all(files: &[GeneratedFile]) -> Vec<&Value> {
    files.iter().flat_map(|f| f.events.iter()).collect()
}

fn s<'v>(e: &'v Value, k: &str) -> &'v str {
    e[k].as_str()
        .unwrap_or_else(|| panic!("missing {k} in {e}"))
}

fn valid_iso6346(n: &str) -> bool {
    n.len() == 11
        && n.as_bytes()[3] == b'U'
        && iso6346_check_digit(&n[..10]) == n[10..].parse().ok()
}

fn bl_of(e: &Value) -> Option<String> {
    match e["eventType"].as_str()? {
        "SHIPMENT" => (e["documentTypeCode"] != "BKG").then(|| s(e, "documentID").to_string()),
        _ => e["documentReferences"]
            .as_array()?
            .iter()
            .find(|r| r["documentReferenceType"] == "TRD")
            .map(|r| {
                r["documentReferenceValue"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            }),
    }
}

#[test]
fn iso6346_check_digit_known_examples() {
    assert_eq!(iso6346_check_digit("CSQU305438"), Some(3));
    assert_eq!(iso6346_check_digit("APZU481209"), Some(0));
    assert_eq!(iso6346_check_digit("CSQU30543"), None);
    assert_eq!(iso6346_check_digit("csqu305438"), None);
    assert!(valid_iso6346("CSQU3054383"));
    assert!(!valid_iso6346("CSQU3054384"));
}

#[test]
fn imo_check_digit_known_example() {
    // IMO 9074729 (the IMO's own example).
    assert_eq!(imo_check_digit(907472), 9);
}

#[test]
fn time_formatting() {
    assert_eq!(fmt_utc(NOW), GENERATOR_NOW);
    assert_eq!(fmt_time(0, -5 * 3600 - 1800), "1969-12-31T18:30:00-05:30");
    assert_eq!(
        fmt_local(NOW, Europe::Amsterdam),
        "2026-11-01T01:00:00+01:00"
    );
    assert_eq!(
        fmt_local(NOW - 30 * D, Europe::Amsterdam),
        "2026-10-02T02:00:00+02:00"
    );
    assert_eq!(generator_now().to_rfc3339(), "2026-11-01T00:00:00+00:00");
}

#[test]
fn generate_is_deterministic() {
    let a = serde_json::to_string(&all(&gen(60, 7))).unwrap();
    let b = serde_json::to_string(&all(&gen(60, 7))).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&all(&gen(60, 8))).unwrap();
    assert_ne!(a, c);
}

#[test]
fn generated_container_numbers_are_valid_iso6346() {
    let files = gen(300, 1);
    let mut n = 0;
    for e in all(&files) {
        if let Some(r) = e.get("equipmentReference") {
            assert!(valid_iso6346(r.as_str().unwrap()), "{r}");
            // Cross-check with the crate's own validator.
            assert!(
                teu_pipeline::iso6346::validate(r.as_str().unwrap()).is_ok(),
                "{r}"
            );
            n += 1;
        }
        for r in e["references"].as_array().into_iter().flatten() {
            if r["referenceType"] == "EQ" {
                assert!(valid_iso6346(r["referenceValue"].as_str().unwrap()), "{r}");
            }
        }
    }
    assert!(n > 1000);
}

#[test]
fn lessor_share_is_about_a_fifth() {
    let files = gen(400, 2);
    let mut boxes = HashSet::new();
    for e in all(&files) {
        if let Some(r) = e.get("equipmentReference").and_then(|r| r.as_str()) {
            boxes.insert(r.to_string());
        }
    }
    let lessor = boxes.iter().filter(|b| LESSORS.contains(&&b[..4])).count();
    let share = lessor as f64 / boxes.len() as f64;
    assert!((0.14..0.26).contains(&share), "lessor share {share}");
}

#[test]
fn every_event_has_the_required_dcsa_fields() {
    let files = gen(300, 3);
    let mut ids = HashSet::new();
    for e in all(&files) {
        assert!(Uuid::parse_str(s(e, "eventID")).is_ok());
        assert!(ids.insert(s(e, "eventID").to_string()), "duplicate eventID");
        DateTime::parse_from_rfc3339(s(e, "eventDateTime")).unwrap();
        DateTime::parse_from_rfc3339(s(e, "eventCreatedDateTime")).unwrap();
        let cls = s(e, "eventClassifierCode");
        assert!(["ACT", "EST", "PLN"].contains(&cls));
        match s(e, "eventType") {
            "SHIPMENT" => {
                assert!(["RECE", "CONF", "DRFT", "ISSU", "SURR", "RELS"]
                    .contains(&s(e, "shipmentEventTypeCode")));
                assert!(["BKG", "TRD", "SRM"].contains(&s(e, "documentTypeCode")));
                assert!(!s(e, "documentID").is_empty());
                assert_eq!(e["eventDateTime"], e["eventCreatedDateTime"]);
            }
            "TRANSPORT" => {
                assert!(["ARRI", "DEPA"].contains(&s(e, "transportEventTypeCode")));
                let tc = &e["transportCall"];
                assert_eq!(tc["modeOfTransport"], "VESSEL");
                assert!(!s(tc, "transportCallID").is_empty());
                assert_eq!(s(tc, "UNLocationCode").len(), 5);
                assert!(tc["transportCallSequenceNumber"].is_u64());
                let imo = s(&tc["vessel"], "vesselIMONumber");
                assert_eq!(imo.len(), 7);
                let body: u32 = imo[..6].parse().unwrap();
                assert_eq!(imo_check_digit(body).to_string(), &imo[6..]);
                assert!(!s(&tc["vessel"], "vesselName").is_empty());
                assert!(s(tc, "carrierServiceCode").len() <= 5);
                let docs = e["documentReferences"].as_array().unwrap();
                assert_eq!(docs.len(), 2);
                assert!(e["references"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|r| r["referenceType"] == "EQ"));
            }
            "EQUIPMENT" => {
                assert!(["GTOT", "GTIN", "LOAD", "DISC"].contains(&s(e, "equipmentEventTypeCode")));
                assert!(valid_iso6346(s(e, "equipmentReference")));
                assert!(["EMPTY", "LADEN"].contains(&s(e, "emptyIndicatorCode")));
                assert_eq!(s(e, "ISOEquipmentCode").len(), 4);
                assert_eq!(e["documentReferences"].as_array().unwrap().len(), 2);
                if ["LOAD", "DISC"].contains(&s(e, "equipmentEventTypeCode")) {
                    assert_eq!(e["transportCall"]["modeOfTransport"], "VESSEL");
                    assert!(e["transportCall"]["vessel"].is_object());
                    assert_eq!(s(&e["transportCall"], "UNLocationCode").len(), 5);
                } else {
                    assert_eq!(s(&e["eventLocation"], "UNLocationCode").len(), 5);
                }
            }
            other => panic!("unexpected eventType {other}"),
        }
    }
}

#[test]
fn voyages_are_shared_and_vessels_consistent() {
    assert!(LOOPS.len() * 16 <= VESSEL_WORDS.len());
    let files = gen(400, 13);
    let mut calls: HashMap<String, String> = HashMap::new();
    let mut imo_name: HashMap<String, String> = HashMap::new();
    let mut name_imo: HashMap<String, String> = HashMap::new();
    let mut shared = 0;
    for e in all(&files) {
        let tc = &e["transportCall"];
        if !tc.is_object() {
            continue;
        }
        let json = tc.to_string();
        match calls.get(s(tc, "transportCallID")) {
            Some(prev) => {
                assert_eq!(prev, &json, "one transport call, two shapes");
                shared += 1;
            }
            None => {
                calls.insert(s(tc, "transportCallID").to_string(), json);
            }
        }
        let (imo, name) = (
            s(&tc["vessel"], "vesselIMONumber"),
            s(&tc["vessel"], "vesselName"),
        );
        assert_eq!(imo_name.entry(imo.into()).or_insert(name.into()), name);
        assert_eq!(name_imo.entry(name.into()).or_insert(imo.into()), imo);
    }
    assert!(shared > 0);
    // Several shipments sail on the same voyage.
    let mut per_call: HashMap<&str, HashSet<String>> = HashMap::new();
    for e in all(&files) {
        if e["eventType"] == "TRANSPORT" {
            per_call
                .entry(s(&e["transportCall"], "transportCallID"))
                .or_default()
                .insert(bl_of(e).unwrap());
        }
    }
    assert!(per_call.values().any(|b| b.len() > 1));
}

#[test]
fn act_events_are_never_after_now() {
    let now = generator_now();
    let files = gen(400, 4);
    let mut act = 0;
    let mut future = 0;
    for e in all(&files) {
        let created = DateTime::parse_from_rfc3339(s(e, "eventCreatedDateTime")).unwrap();
        assert!(created <= now, "created after now: {e}");
        let at = DateTime::parse_from_rfc3339(s(e, "eventDateTime")).unwrap();
        if e["eventClassifierCode"] == "ACT" {
            assert!(at <= now, "ACT after now: {e}");
            act += 1;
        } else if at > now {
            future += 1;
        }
    }
    assert!(act > 1000 && future > 100, "act {act}, future {future}");
}

#[test]
fn events_per_container_are_in_range() {
    let files = gen(500, 5);
    let events = all(&files);
    let mut per_box: HashMap<String, usize> = HashMap::new();
    for e in &events {
        if let Some(r) = e.get("equipmentReference").and_then(|r| r.as_str()) {
            *per_box.entry(r.to_string()).or_default() += 1;
        }
    }
    let avg = events.len() as f64 / per_box.len() as f64;
    assert!((20.0..=35.0).contains(&avg), "events per container {avg}");
    assert!(
        per_box.values().all(|&n| (1..=24).contains(&n)),
        "{per_box:?}"
    );
}

#[test]
fn transshipment_share_is_about_thirty_percent() {
    let files = gen(600, 6);
    let mut vessels: HashMap<String, HashSet<String>> = HashMap::new();
    for e in all(&files) {
        if e["eventType"] == "TRANSPORT" {
            let bl = bl_of(e).unwrap();
            let imo = s(&e["transportCall"]["vessel"], "vesselIMONumber").to_string();
            vessels.entry(bl).or_default().insert(imo);
        }
    }
    assert_eq!(vessels.len(), 600);
    let ts = vessels.values().filter(|v| v.len() == 2).count();
    assert!(vessels.values().all(|v| v.len() <= 2));
    let share = ts as f64 / vessels.len() as f64;
    assert!((0.2..=0.4).contains(&share), "transshipment share {share}");
}

#[test]
fn shipments_are_at_every_stage() {
    let files = gen(400, 9);
    let mut stages: HashMap<String, (bool, bool)> = HashMap::new();
    for e in all(&files) {
        let Some(bl) = bl_of(e) else { continue };
        let st = stages.entry(bl).or_default();
        if e["eventClassifierCode"] == "ACT" {
            match (
                s(e, "eventType"),
                e["equipmentEventTypeCode"].as_str(),
                e["emptyIndicatorCode"].as_str(),
            ) {
                ("EQUIPMENT", Some("LOAD"), _) => st.0 = true,
                ("EQUIPMENT", Some("GTIN"), Some("EMPTY")) => st.1 = true,
                _ => {}
            }
        }
    }
    let not_loaded = stages.values().filter(|s| !s.0).count();
    let returned = stages.values().filter(|s| s.1).count();
    let between = stages.values().filter(|s| s.0 && !s.1).count();
    assert!(
        not_loaded > 20 && returned > 20 && between > 60,
        "{not_loaded} {returned} {between}"
    );
}

#[test]
fn files_split_by_shipment() {
    let one = gen(120, 10);
    let split = generate(&GenOptions {
        shipments: 120,
        seed: 10,
        events_per_file: 500,
    });
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].name, "generated-0001.json");
    assert!(split.len() > 5);
    assert_eq!(event_count(&one), event_count(&split));
    assert_eq!(all(&one), all(&split));
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, f) in split.iter().enumerate() {
        assert_eq!(f.name, format!("generated-{:04}.json", i + 1));
        for e in &f.events {
            if let Some(bl) = bl_of(e) {
                assert_eq!(
                    *seen.entry(bl).or_insert(i),
                    i,
                    "shipment split across files"
                );
            }
        }
    }
    assert!(split.iter().all(|f| f.events.len() <= 700));
    let empty = gen(0, 1);
    assert_eq!(empty.len(), 1);
    assert!(empty[0].events.is_empty());
}

#[test]
fn write_to_dir_round_trips() {
    let files = generate(&GenOptions {
        shipments: 20,
        seed: 11,
        events_per_file: 300,
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/feeds");
    let paths = write_to_dir(&files, &out).unwrap();
    assert_eq!(paths.len(), files.len());
    for (p, f) in paths.iter().zip(&files) {
        let back: Vec<Value> = serde_json::from_slice(&fs::read(p).unwrap()).unwrap();
        assert_eq!(back, f.events);
    }
}

#[test]
fn sample_feed_shape_matches() {
    // Every key the generator emits at the top level appears in the DCSA sample or schema.
    let allowed = [
        "eventID",
        "eventCreatedDateTime",
        "eventType",
        "eventClassifierCode",
        "eventDateTime",
        "transportEventTypeCode",
        "delayReasonCode",
        "changeRemark",
        "transportCall",
        "documentReferences",
        "references",
        "shipmentEventTypeCode",
        "documentID",
        "documentTypeCode",
        "equipmentEventTypeCode",
        "equipmentReference",
        "ISOEquipmentCode",
        "emptyIndicatorCode",
        "eventLocation",
        "seals",
    ];
    for e in all(&gen(50, 12)) {
        for k in e.as_object().unwrap().keys() {
            assert!(allowed.contains(&k.as_str()), "unexpected key {k}");
        }
    }
}
