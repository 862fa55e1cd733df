//! The hand-written DCSA T&T 2.2 cases of `data/dcsa-cases/` (what each tests: its README):
//! every case's files ingested in their name order and reversed, each into a fresh database,
//! and every expected field compared over `/v2` (issue "Derived data that is right", item 6:
//! the truth does not rest on teu's own generator alone).

#[macro_use]
mod common;

use std::path::PathBuf;

use common::{Server, TestDb};
use serde_json::Value;

/// The case directories, sorted.
fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(common::data("dcsa-cases"))
        .expect("data/dcsa-cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The value `/v2` gives for `field` of the container `c` (container attribute, else shipment
/// attribute, else from its map: `route`, `ts1_inbound_ata_at`, `ts1_outbound_atd_at`;
/// `shipment_ref_numbers` is the shipment's `ref_numbers`).
fn got(field: &str, c: &Value, s: &Value, map: &Value) -> Value {
    let ports = || {
        let mut p: Vec<&Value> = map["features"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["properties"]["feature_type"] == "port")
            .collect();
        p.sort_by_key(|f| f["properties"]["ports_sequence"].as_u64());
        p
    };
    match field {
        "route" => Value::from(
            ports()
                .iter()
                .map(|p| p["properties"]["location_id"].clone())
                .collect::<Vec<_>>(),
        ),
        "shipment_ref_numbers" => s["attributes"]["ref_numbers"].clone(),
        "ts1_inbound_ata_at" | "ts1_outbound_atd_at" => ports()
            .iter()
            .find(|p| p["properties"]["label"] == "TS1")
            .map(|p| p["properties"][&field[4..]].clone())
            .unwrap_or(Value::Null),
        _ => match c["attributes"].get(field) {
            Some(v) => v.clone(),
            None => s["attributes"][field].clone(),
        },
    }
}

async fn every_case_gives_its_expected_fields(db_for: &dyn Fn() -> TestDb) {
    let mut problems = Vec::new();
    let mut compared = 0;
    for case in cases() {
        let name = case
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let expected: Vec<Value> = serde_json::from_slice(
            &std::fs::read(case.join("expected.json")).expect("expected.json"),
        )
        .expect("JSON");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&case)
            .expect("case")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.file_name().is_some_and(|n| n != "expected.json"))
            .collect();
        files.sort();
        for order in ["in order", "reversed"] {
            if order == "reversed" {
                files.reverse();
            }
            let db = db_for();
            let key = db.create_account_with("acme", true);
            db.ingest("acme", &files);
            let server = Server::start(&db, &[]);
            let (status, doc) = server
                .get("/v2/containers?include=shipment&page[size]=100", Some(&key))
                .await;
            assert_eq!(status, 200, "{doc}");
            let included = doc["included"].as_array().cloned().unwrap_or_default();
            for want in &expected {
                let number = want["number"].as_str().unwrap_or_default();
                let Some(c) = doc["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|c| c["attributes"]["number"] == number)
                else {
                    problems.push(format!("{name} ({order}): {number} missing"));
                    continue;
                };
                let sid = &c["relationships"]["shipment"]["data"]["id"];
                let s = included
                    .iter()
                    .find(|s| &s["id"] == sid)
                    .cloned()
                    .unwrap_or(Value::Null);
                let id = c["id"].as_str().unwrap_or_default();
                let (_, map) = server
                    .get(&format!("/v2/containers/{id}/map_geojson"), Some(&key))
                    .await;
                for (field, value) in want.as_object().into_iter().flatten() {
                    let value = if field == "route" {
                        Value::from(
                            value
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(|l| {
                                    teu_pipeline::ids::port_id(l.as_str().unwrap_or_default())
                                        .to_string()
                                })
                                .collect::<Vec<_>>(),
                        )
                    } else {
                        value.clone()
                    };
                    let g = got(field, c, &s, &map);
                    compared += 1;
                    if g != value {
                        problems.push(format!(
                            "{name} ({order}) {number} {field}: expected {value}, got {g}"
                        ));
                    }
                }
            }
            drop(server);
            db.cleanup().await;
        }
    }
    println!("{compared} fields compared");
    assert!(compared > 100, "{compared} fields compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn hand_written_dcsa_cases_sqlite() {
    every_case_gives_its_expected_fields(&TestDb::sqlite).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn hand_written_dcsa_cases_postgres() {
    if std::env::var("TEU_TEST_POSTGRES_URL").is_err() {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    }
    every_case_gives_its_expected_fields(&common::postgres_blocking).await;
}
