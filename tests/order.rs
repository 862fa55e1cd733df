//! The same feed files in any order, or one of them delivered twice, give identical tables
//! (issue "Derived data that is right", item 2).
//!
//! The feed is a generated one (real carriers, rotations, transshipments) made awkward the way
//! carriers' feeds are: a quarter of the equipment events lose their bill of lading (only the
//! booking names the shipment), a fifth of the rest lose every document reference (only the
//! container is named), and the events of every shipment are scattered over six files. Each
//! order is ingested into a fresh database and every stored body and row count is compared
//! (`common::snapshot`, ids and wall-clock times left out), also against one file holding
//! everything.

mod common;

use std::path::PathBuf;

use common::{Rng, TestDb};
use serde_json::Value;

/// Every event of the generated feed in `dir`.
fn events_of(dir: &std::path::Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("feed dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(p).expect("read")).expect("JSON");
            v.as_array().expect("a DCSA 2.2 array").clone()
        })
        .collect()
}

/// Removes the `documentReferences` entries of `kind` (all when `None`) from `event`.
fn drop_documents(event: &mut Value, kind: Option<&str>) {
    if let Some(refs) = event
        .get_mut("documentReferences")
        .and_then(Value::as_array_mut)
    {
        refs.retain(|r| kind.is_some_and(|k| r["documentReferenceType"] != k));
    }
}

/// The awkward feed: events made partial, shuffled, split into `files` files under `dir`.
fn awkward_files(dir: &std::path::Path, files: usize, rng: &mut Rng) -> Vec<PathBuf> {
    let feed = common::generated_feed(30, 18);
    let mut events = events_of(feed.path());
    for e in &mut events {
        let equipment = e["eventType"] == "EQUIPMENT";
        let named_box = e.get("equipmentReference").is_some_and(|v| !v.is_null());
        match rng.below(20) {
            0..=4 if equipment => drop_documents(e, Some("TRD")),
            5..=7 if equipment && named_box => drop_documents(e, None),
            _ => {}
        }
    }
    rng.shuffle(&mut events);
    let per_file = events.len().div_ceil(files);
    events
        .chunks(per_file)
        .enumerate()
        .map(|(i, chunk)| {
            let path = dir.join(format!("part-{i}.json"));
            std::fs::write(&path, serde_json::to_vec(chunk).expect("JSON")).expect("write");
            path
        })
        .collect()
}

async fn same_tables_in_any_order(make_db: &dyn Fn() -> TestDb) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = Rng(0x5EED_0018);
    let files = awkward_files(dir.path(), 6, &mut rng);
    let whole = dir.path().join("whole.json");
    let all: Vec<Value> = files.iter().flat_map(|p| events_of_file(p)).collect();
    std::fs::write(&whole, serde_json::to_vec(&all).expect("JSON")).expect("write");

    let mut orders: Vec<(String, Vec<PathBuf>)> = vec![
        ("one file".into(), vec![whole.clone()]),
        ("in order".into(), files.clone()),
        ("reversed".into(), files.iter().rev().cloned().collect()),
    ];
    for n in 0..2 {
        let mut shuffled = files.clone();
        rng.shuffle(&mut shuffled);
        // One file delivered twice, late.
        shuffled.push(shuffled[n].clone());
        orders.push((format!("shuffled {n} with a repeat"), shuffled));
    }
    let mut first: Option<(String, _)> = None;
    for (name, paths) in orders {
        let db = make_db();
        db.create_account("acme");
        db.ingest("acme", &paths);
        let tables = common::snapshot(&db, "acme").await;
        db.cleanup().await;
        assert!(
            tables["containers"].len() > 30,
            "{name}: {} containers",
            tables["containers"].len()
        );
        match &first {
            None => first = Some((name, tables)),
            Some((first_name, expected)) => {
                for (table, rows) in expected {
                    let got = &tables[table];
                    let differing: Vec<_> = rows.iter().filter(|r| !got.contains(r)).collect();
                    assert!(
                        rows == got,
                        "{table}: {first_name} and {name} differ ({} vs {} rows); first of \
                         {first_name} not in {name}: {:?}",
                        rows.len(),
                        got.len(),
                        differing.first()
                    );
                }
            }
        }
    }
}

fn events_of_file(path: &std::path::Path) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    v.as_array().expect("array").clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn any_order_gives_the_same_tables_sqlite() {
    same_tables_in_any_order(&TestDb::sqlite).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn any_order_gives_the_same_tables_postgres() {
    if std::env::var("TEU_TEST_POSTGRES_URL").is_err() {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    }
    same_tables_in_any_order(&common::postgres_blocking).await;
}
