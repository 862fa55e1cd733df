//! Every field of every container over `/v2` against the ground truth the generator wrote
//! (`truth.jsonl`, see `teu_synth::truth`), on a feed made awkward the way carriers' feeds
//! are (`teu generate --awkward`, see `teu_synth::awkward`: missing departures, equipment
//! events naming only the booking or only the container, every shipment scattered over files,
//! a file delivered twice), its files ingested in a shuffled order.
//! Prints the agreement per field and fails on any disagreement (issue "Derived data that is
//! right", item 6). Beside the fields, each container's shipment lists in its `containers`
//! relationship every container the truth gives its bill of lading, by number.

#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Rng, Server, TestDb};
use serde_json::Value;

/// The feed files of `dir` (`teu generate --awkward`: `awkward-*.json` and the AIS file), the
/// DCSA files in a shuffled order (the redelivered one included), the AIS last.
fn feed_files(dir: &Path, rng: &mut Rng) -> Vec<PathBuf> {
    let mut dcsa = Vec::new();
    let mut ais = Vec::new();
    for entry in std::fs::read_dir(dir).expect("feed") {
        let p = entry.expect("entry").path();
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("awkward-") {
            dcsa.push(p);
        } else if name.starts_with("ais") {
            ais.push(p);
        }
    }
    dcsa.sort();
    rng.shuffle(&mut dcsa);
    assert!(dcsa.len() > 5, "{dcsa:?}");
    dcsa.extend(ais);
    dcsa
}

/// (field, expected, got) of one container.
type Row = (String, Value, Value);

async fn compare(server: &Server, key: &str, truth: &[Value]) -> Vec<(String, Row)> {
    let mut out = Vec::new();
    let containers: BTreeMap<String, (Value, Value)> =
        common::containers_with_shipments(server, key)
            .await
            .into_iter()
            .map(|(c, s)| {
                let number = c["attributes"]["number"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                (number, (c, s))
            })
            .collect();
    // Each container's number by its id, and each bill of lading's container numbers in the
    // order a shipment's `containers` relationship lists them (by number).
    let numbers: BTreeMap<&str, &str> = containers
        .iter()
        .map(|(number, (c, _))| (c["id"].as_str().unwrap_or_default(), number.as_str()))
        .collect();
    let mut members: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for t in truth {
        members
            .entry(t["bill_of_lading_number"].as_str().unwrap_or_default())
            .or_default()
            .push(t["number"].as_str().unwrap_or_default());
    }
    for list in members.values_mut() {
        list.sort_unstable();
    }
    for t in truth {
        let number = t["number"].as_str().unwrap_or_default().to_string();
        let mut push = |field: &str, got: Value| {
            out.push((number.clone(), (field.to_string(), t[field].clone(), got)));
        };
        let Some((c, s)) = containers.get(&number) else {
            push("number", Value::Null);
            continue;
        };
        let a = &c["attributes"];
        let sa = &s["attributes"];
        push("number", a["number"].clone());
        for f in [
            "pod_arrived_at",
            "pod_discharged_at",
            "pod_full_out_at",
            "empty_terminated_at",
            "current_status",
        ] {
            push(f, a[f].clone());
        }
        for f in [
            "bill_of_lading_number",
            "shipping_line_scac",
            "port_of_lading_locode",
            "port_of_discharge_locode",
            "pol_atd_at",
            "pol_etd_at",
            "pod_ata_at",
            "pod_eta_at",
            "pod_vessel_name",
            "pod_vessel_imo",
            "pod_voyage_number",
        ] {
            push(f, sa[f].clone());
        }
        // The shipment's containers: every container of its bill of lading, each once.
        let want = members
            .get(t["bill_of_lading_number"].as_str().unwrap_or_default())
            .cloned()
            .unwrap_or_default();
        let got: Vec<&str> = s["relationships"]["containers"]["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                let id = r["id"].as_str().unwrap_or_default();
                numbers.get(id).copied().unwrap_or(id)
            })
            .collect();
        out.push((
            number.clone(),
            (
                "shipment_containers".into(),
                Value::from(want),
                Value::from(got),
            ),
        ));
        // The map: ports in order, and the leg under way (the current vessel's).
        let id = c["id"].as_str().unwrap_or_default();
        let (status, map) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(key))
            .await;
        assert_eq!(status, 200, "{map}");
        let features = map["features"].as_array().cloned().unwrap_or_default();
        let mut ports: Vec<(u64, String)> = features
            .iter()
            .filter(|f| f["properties"]["feature_type"] == "port")
            .map(|f| {
                (
                    f["properties"]["ports_sequence"].as_u64().unwrap_or(0),
                    f["properties"]["location_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            })
            .collect();
        ports.sort();
        let want: Vec<String> = t["route"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| teu_pipeline::ids::port_id(l.as_str().unwrap_or_default()).to_string())
            .collect();
        let got: Vec<String> = ports.into_iter().map(|(_, id)| id).collect();
        out.push((
            number.clone(),
            ("route".into(), Value::from(want), Value::from(got)),
        ));
        let vessel = features
            .iter()
            .find(|f| f["properties"]["feature_type"] == "current_vessel")
            .map(|f| {
                serde_json::json!({
                    "ports_sequence": f["properties"]["ports_sequence"],
                    "vessel_imo": f["properties"]["vessel_imo"],
                })
            })
            .unwrap_or(Value::Null);
        out.push((
            number,
            ("leg_under_way".into(), t["leg_under_way"].clone(), vessel),
        ));
    }
    out
}

async fn every_field_agrees_with_the_generators_truth(db: &TestDb) {
    let feed = tempfile::tempdir().expect("dir");
    let out = std::process::Command::new(common::TEU)
        .args([
            "generate",
            "--shipments",
            "40",
            "--seed",
            "41",
            "--ais",
            "--awkward",
        ])
        .arg(feed.path())
        .output()
        .expect("teu generate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let truth: Vec<Value> = std::fs::read_to_string(feed.path().join("truth.jsonl"))
        .expect("truth.jsonl beside the feed")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert!(truth.len() > 60, "{} containers", truth.len());
    assert!(
        truth
            .iter()
            .any(|t| t["pol_atd_at"].is_null() && !t["pod_ata_at"].is_null()),
        "some departures are missing from the awkward feed"
    );
    let files = feed_files(feed.path(), &mut Rng(0x7E57_0041));
    let key = db.create_account_with("acme", true);
    db.ingest("acme", &files);
    let server = Server::start(db, &[]);
    let rows = compare(&server, &key, &truth).await;

    let mut table: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut wrong: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (number, (field, want, got)) in &rows {
        let e = table.entry(field.clone()).or_default();
        e.1 += 1;
        if want == got {
            e.0 += 1;
        } else {
            wrong
                .entry(field.clone())
                .or_default()
                .push(format!("{number}: expected {want}, got {got}"));
        }
    }
    println!("| field | agree | containers | % |\n|---|---|---|---|");
    for (field, (agree, total)) in &table {
        println!(
            "| {field} | {agree} | {total} | {:.1} |",
            100.0 * *agree as f64 / (*total).max(1) as f64
        );
    }
    let report: Vec<String> = wrong
        .iter()
        .map(|(f, v)| {
            format!(
                "{f} ({} wrong): {}",
                v.len(),
                v[..v.len().min(3)].join("; ")
            )
        })
        .collect();
    assert!(report.is_empty(), "disagreements:\n{}", report.join("\n"));
}

on_both_backends!(every_field_agrees_with_the_generators_truth);
