//! The same feed files in any order, or one of them delivered twice, give identical tables
//! (issue "Derived data that is right", item 2).
//!
//! The feed is a generated one (real carriers, rotations, transshipments) made awkward the way
//! carriers' feeds are: a quarter of the equipment events lose their bill of lading (only the
//! booking names the shipment), a fifth of the rest lose every document reference (only the
//! container is named), and the events of every shipment are scattered over six files. Each
//! order is ingested into a fresh database and every stored body and row count is compared
//! (`common::snapshot`, ids and wall-clock times left out), also against one file holding
//! everything. The orders are derived file by file (`--derive-every 1`), the strictest case;
//! one more ingests them derived together (the default of `teu ingest`).
//!
//! `derived_together_equals_file_by_file` checks the same of the grouping alone on a
//! simulated feed with every kind of file (DCSA, terminal checks, line deadlines, rail,
//! emails): derived after every file, in groups of a few files, and all at once.
//!
//! An ingest derives from the events it just stored as it kept them in memory
//! (`teu_pipeline::ingest::KnownEvents`); the first run of each test is derived again by
//! `teu rederive`, from the events read back from the store, and must not change.

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

/// A later version of `event`: `eventCreatedDateTime` a day later, `eventDateTime` five hours
/// earlier; `None` when either is missing.
fn revised(event: &Value) -> Option<Value> {
    let shift = |v: &Value, by: chrono::Duration| {
        let t = chrono::DateTime::parse_from_rfc3339(v.as_str()?).ok()? + by;
        Some(Value::from(
            t.to_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ))
    };
    let mut v = event.clone();
    v["eventCreatedDateTime"] = shift(&event["eventCreatedDateTime"], chrono::Duration::days(1))?;
    v["eventDateTime"] = shift(&event["eventDateTime"], -chrono::Duration::hours(5))?;
    Some(v)
}

/// The awkward feed: events made partial, shuffled, split into `files` files under `dir`, and a
/// last file of later versions of some of them (new times; for some, another box).
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
    // A later version of one event in eight (same eventID, issued a day later, happening five
    // hours earlier), in a file of its own (a file that repeats an eventID has the repeat
    // quarantined): whenever it comes, the stored event and its links take its time.
    let mut revisions: Vec<Value> = events
        .iter()
        .filter(|_| rng.below(8) == 0)
        .filter_map(revised)
        .collect();
    assert!(revisions.len() > 10, "{} revisions", revisions.len());
    // The carrier's correction of a box: one equipment-event revision in three names another
    // container of the feed instead. The event's link moves to that box whenever the revision
    // comes: the old box's link to it is stale once the revision is stored, and in orders
    // where the revision comes first it never exists.
    let numbers: Vec<String> = events
        .iter()
        .filter_map(|e| e["equipmentReference"].as_str())
        .map(str::to_string)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut corrected = 0;
    for (i, r) in revisions.iter_mut().enumerate() {
        let Some(number) = r["equipmentReference"].as_str() else {
            continue;
        };
        let other = &numbers[rng.below(numbers.len())];
        if i % 3 == 0 && r["eventType"] == "EQUIPMENT" && number != other {
            r["equipmentReference"] = Value::from(other.clone());
            corrected += 1;
        }
    }
    assert!(corrected > 3, "{corrected} corrected boxes");
    rng.shuffle(&mut events);
    let per_file = events.len().div_ceil(files);
    let mut paths: Vec<PathBuf> = events
        .chunks(per_file)
        .enumerate()
        .map(|(i, chunk)| {
            let path = dir.join(format!("part-{i}.json"));
            std::fs::write(&path, serde_json::to_vec(chunk).expect("JSON")).expect("write");
            path
        })
        .collect();
    let path = dir.join("revisions.json");
    std::fs::write(&path, serde_json::to_vec(&revisions).expect("JSON")).expect("write");
    paths.push(path);
    paths
}

async fn same_tables_in_any_order(make_db: &dyn Fn() -> TestDb) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = Rng(0x5EED_0018);
    let files = awkward_files(dir.path(), 6, &mut rng);
    let (revisions, parts) = files.split_last().expect("files");
    let whole = dir.path().join("whole.json");
    let all: Vec<Value> = parts.iter().flat_map(|p| events_of_file(p)).collect();
    std::fs::write(&whole, serde_json::to_vec(&all).expect("JSON")).expect("write");

    const EACH_FILE: &[&str] = &["--derive-every", "1"];
    let mut orders: Vec<(String, Vec<PathBuf>, &[&str])> = vec![
        (
            "one file, then the revisions".into(),
            vec![whole.clone(), revisions.clone()],
            EACH_FILE,
        ),
        ("in order".into(), files.clone(), EACH_FILE),
        (
            "reversed".into(),
            files.iter().rev().cloned().collect(),
            EACH_FILE,
        ),
        (
            "reversed, derived together".into(),
            files.iter().rev().cloned().collect(),
            &[],
        ),
    ];
    for n in 0..2 {
        let mut shuffled = files.clone();
        rng.shuffle(&mut shuffled);
        // One file delivered twice, late.
        shuffled.push(shuffled[n].clone());
        orders.push((format!("shuffled {n} with a repeat"), shuffled, EACH_FILE));
    }
    let mut first: Option<(String, _)> = None;
    for (name, paths, options) in orders {
        let db = make_db();
        db.create_account("acme");
        db.ingest_with("acme", options, &paths);
        let tables = common::snapshot(&db, "acme").await;
        if first.is_none() {
            assert_rederived_same(&db, &name, &tables).await;
        }
        db.cleanup().await;
        assert!(
            tables["containers"].len() > 30,
            "{name}: {} containers",
            tables["containers"].len()
        );
        match &first {
            None => first = Some((name, tables)),
            Some((first_name, expected)) => {
                assert_same_tables(first_name, expected, &name, &tables)
            }
        }
    }
}

/// Derives the account `acme` of `db` again with `teu rederive`, from the events read back
/// from the store (an ingest keeps the events it stored in memory for its derivations,
/// `teu_pipeline::ingest::KnownEvents`; a rederive keeps none), and asserts the tables stay
/// `tables`, the snapshot of run `name`.
async fn assert_rederived_same(
    db: &TestDb,
    name: &str,
    tables: &std::collections::BTreeMap<String, Vec<String>>,
) {
    let out = db.teu(&["rederive", "--account", "acme"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = common::snapshot(db, "acme").await;
    assert_same_tables(name, tables, &format!("{name}, rederived"), &again);
}

/// Asserts that the snapshot `got` of run `name` equals `expected` of run `first_name`, table by
/// table, naming the first row of `expected` missing from `got`.
fn assert_same_tables(
    first_name: &str,
    expected: &std::collections::BTreeMap<String, Vec<String>>,
    name: &str,
    got: &std::collections::BTreeMap<String, Vec<String>>,
) {
    for (table, rows) in expected {
        let got = &got[table];
        let differing: Vec<_> = rows.iter().filter(|r| !got.contains(r)).collect();
        assert!(
            rows == got,
            "{table}: {first_name} and {name} differ ({} vs {} rows); first of {first_name} \
             not in {name}: {:?}",
            rows.len(),
            got.len(),
            differing.first()
        );
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

/// Every file of `dir`, in the order `scripts/scale.sh` ingests a worker's files: chunk by
/// chunk, DCSA first, then terminal, rail and email files of the same chunk.
fn feed_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for kind in ["dcsa", "terminal", "rail", "email"] {
        let Ok(entries) = std::fs::read_dir(dir.join(kind)) else {
            continue;
        };
        files.extend(entries.map(|e| e.expect("entry").path()));
    }
    let chunk = |p: &PathBuf| -> String {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let digits: String = name
            .unwrap_or_default()
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        format!("{digits:0>8}")
    };
    let kind = |p: &PathBuf| {
        ["dcsa", "terminal", "rail", "email"]
            .iter()
            .position(|k| p.parent().is_some_and(|d| d.ends_with(k)))
    };
    files.sort_by_key(|p| (chunk(p), kind(p), p.clone()));
    files
}

async fn derived_together_equals_file_by_file(make_db: &dyn Fn() -> TestDb) {
    let feed = common::simulated_feed(400, 25, 23);
    let files = feed_files(feed.path());
    let kinds = ["dcsa", "terminal", "rail", "email"];
    for kind in kinds {
        assert!(
            files
                .iter()
                .any(|p| p.parent().is_some_and(|d| d.ends_with(kind))),
            "no {kind} file in the simulated feed"
        );
    }
    let mut first: Option<(&str, _)> = None;
    for (name, options, groups) in [
        ("file by file", &["--derive-every", "1"][..], None),
        (
            "groups of 1,500 rows",
            &["--derive-every", "1500"][..],
            Some(2..files.len()),
        ),
        (
            "all at once",
            &["--derive-every", "100000000"][..],
            Some(1..2),
        ),
    ] {
        let db = make_db();
        db.create_account("acme");
        let out = db.ingest_with("acme", options, &files);
        let derivations = out.lines().filter(|l| l.starts_with("derived ")).count();
        if let Some(expected) = groups {
            assert!(
                expected.contains(&derivations),
                "{name}: {derivations} derivations of {} files",
                files.len()
            );
        }
        let tables = common::snapshot(&db, "acme").await;
        if first.is_none() {
            assert_rederived_same(&db, name, &tables).await;
        }
        db.cleanup().await;
        assert!(
            tables["containers"].len() >= 400,
            "{name}: {} containers",
            tables["containers"].len()
        );
        match &first {
            None => first = Some((name, tables)),
            Some((first_name, expected)) => assert_same_tables(first_name, expected, name, &tables),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn derived_together_equals_file_by_file_sqlite() {
    derived_together_equals_file_by_file(&TestDb::sqlite).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn derived_together_equals_file_by_file_postgres() {
    if std::env::var("TEU_TEST_POSTGRES_URL").is_err() {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    }
    derived_together_equals_file_by_file(&common::postgres_blocking).await;
}
