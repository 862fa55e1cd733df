//! Every field of every container over `/v2` against the ground truth the generator wrote
//! (`truth.jsonl`, see `teu_pipeline::truth`), with the feed made awkward the way carriers'
//! feeds are: files out of order, one delivered twice, equipment events that name only the
//! booking or only the container, vessel events that name every container of the shipment.
//! Prints the agreement per field and fails on any disagreement (issue "Derived data that is
//! right", item 6).

#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Rng, Server, TestDb};
use serde_json::Value;

/// The generated feed in `dir` made awkward and split into files (see the module doc), plus
/// the generator's AIS file. For a quarter of the shipments that departed, the vessel's actual
/// departure from the POL is left out (carriers miss events): their truth then has no
/// `pol_atd_at`, and `truth` is changed to say so.
fn awkward_feed(dir: &Path, rng: &mut Rng, truth: &mut [Value]) -> Vec<PathBuf> {
    let mut events: Vec<Value> = Vec::new();
    let mut ais = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("feed")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    for p in names {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("generated-") && name.ends_with(".json") {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("JSON");
            events.extend(v.as_array().cloned().unwrap_or_default());
        } else if name.starts_with("ais") {
            ais.push(p);
        }
    }
    let mut no_departure: BTreeMap<String, String> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for t in truth.iter() {
        let bl = t["bill_of_lading_number"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let pol = t["port_of_lading_locode"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if !t["pol_atd_at"].is_null() && seen.insert(bl.clone()) && rng.below(4) == 0 {
            no_departure.insert(bl, pol);
        }
    }
    for t in truth.iter_mut() {
        if no_departure.contains_key(t["bill_of_lading_number"].as_str().unwrap_or_default()) {
            t["pol_atd_at"] = Value::Null;
        }
    }
    events.retain(|e| {
        let departure = e["eventType"] == "TRANSPORT"
            && e["transportEventTypeCode"] == "DEPA"
            && e["eventClassifierCode"] == "ACT";
        let bl = e["documentReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["documentReferenceType"] == "TRD")
            .and_then(|r| r["documentReferenceValue"].as_str());
        let at = e["transportCall"]["UNLocationCode"].as_str();
        !(departure && bl.is_some_and(|bl| no_departure.get(bl).map(String::as_str) == at))
    });
    assert!(!no_departure.is_empty(), "some departures are left out");
    for e in &mut events {
        let equipment = e["eventType"] == "EQUIPMENT";
        let refs = e
            .get_mut("documentReferences")
            .and_then(Value::as_array_mut);
        match (rng.below(10), refs) {
            // Only the booking names the shipment.
            (0..=2, Some(refs)) if equipment => {
                refs.retain(|r| r["documentReferenceType"] != "TRD")
            }
            // Only the container.
            (3, Some(refs)) if equipment => refs.clear(),
            _ => {}
        }
    }
    rng.shuffle(&mut events);
    let parts = 5;
    let per = events.len().div_ceil(parts);
    let out = dir.join("awkward");
    std::fs::create_dir_all(&out).expect("dir");
    let mut files: Vec<PathBuf> = events
        .chunks(per)
        .enumerate()
        .map(|(i, chunk)| {
            let p = out.join(format!("part-{i}.json"));
            std::fs::write(&p, serde_json::to_vec(chunk).expect("JSON")).expect("write");
            p
        })
        .collect();
    rng.shuffle(&mut files);
    files.push(files[0].clone());
    files.extend(ais);
    files
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
        .args(["generate", "--shipments", "40", "--seed", "41", "--ais"])
        .arg(feed.path())
        .output()
        .expect("teu generate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut truth: Vec<Value> = std::fs::read_to_string(feed.path().join("truth.jsonl"))
        .expect("truth.jsonl beside the feed")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert!(truth.len() > 60, "{} containers", truth.len());
    let files = awkward_feed(feed.path(), &mut Rng(0x7E57_0041), &mut truth);
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
