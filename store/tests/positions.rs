//! AIS positions in the store (migration 34: keyed by transmitter and time): every report of
//! the bundled public AIS files (`data/ais/`, MarineCadastre and the Suez 2021 tracks) is kept
//! once, exactly, whether it was written by this build or by a release before migration 34 and
//! then migrated; and `Store::vessel_positions` answers each vessel's reports by IMO number and
//! by the MMSIs that reported it. The truth is the files as `teu_feeds::ais` reads them, not
//! what the store printed before. On SQLite in a temp dir, and on the PostgreSQL server of
//! `TEU_TEST_POSTGRES_URL` when it is set.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{DateTime, SecondsFormat};
use sqlx::AnyPool;
use teu_domain::model::VesselPosition;
use teu_store::scratch::ScratchDatabase;
use teu_store::Store;

/// The first migration of the keyed table.
const KEYED: i64 = 20261212000034;

/// Every accepted position of the bundled AIS files, by file.
fn files() -> Vec<(String, Vec<(usize, VesselPosition)>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/ais");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/ais")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    names
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let bytes = std::fs::read(path).unwrap();
            let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
            let batch = teu_feeds::ais::read_csv(bytes, &name).unwrap();
            assert!(!batch.positions.is_empty(), "{name}");
            (name, batch.positions)
        })
        .collect()
}

/// A report as the store keeps it: transmitter, millisecond, and every reported value.
type Report = (
    String,
    i64,
    Option<String>,
    Option<String>,
    [Option<f64>; 5],
);

fn report(p: &VesselPosition) -> Report {
    (
        p.vessel_key().to_string(),
        p.observed_at.timestamp_millis(),
        p.imo.as_ref().map(|i| i.as_str().to_string()),
        p.vessel_name.clone(),
        [
            Some(p.latitude),
            Some(p.longitude),
            p.speed_knots,
            p.course_deg,
            p.heading_deg,
        ],
    )
}

/// The files' reports, each (transmitter, millisecond) once: the first read wins, as the
/// store keeps the first it stored.
fn expected_reports(
    files: &[(String, Vec<(usize, VesselPosition)>)],
) -> BTreeMap<(String, i64), Report> {
    let mut out = BTreeMap::new();
    for (_, positions) in files {
        for (_, p) in positions {
            let r = report(p);
            out.entry((r.0.clone(), r.1)).or_insert(r);
        }
    }
    out
}

/// What `vessel_positions(imo)` must answer, from the files alone: the reports carrying the
/// IMO number and those of every MMSI that reported it in some row of the files, oldest first.
fn expected_for(
    imo: &str,
    files: &[(String, Vec<(usize, VesselPosition)>)],
    reports: &BTreeMap<(String, i64), Report>,
) -> Vec<(String, i64)> {
    let mmsis: BTreeSet<&str> = files
        .iter()
        .flat_map(|(_, positions)| positions)
        .filter(|(_, p)| p.imo.as_ref().is_some_and(|i| i.as_str() == imo))
        .filter_map(|(_, p)| p.mmsi.as_ref().map(|m| m.as_str()))
        .collect();
    let mut out: Vec<(String, i64)> = reports
        .values()
        .filter(|r| r.2.as_deref() == Some(imo) || mmsis.contains(r.0.as_str()))
        .map(|r| (r.0.clone(), r.1))
        .collect();
    out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    out
}

/// Checks the store holds exactly the files' reports and answers each vessel's by IMO.
async fn check(store: &Store, files: &[(String, Vec<(usize, VesselPosition)>)]) {
    let expected = expected_reports(files);
    let rows = teu_store::db::query(
        "SELECT vessel_key, observed_at, imo, vessel_name, latitude, longitude, speed_knots, \
         course_deg, heading_deg FROM vessel_positions ORDER BY vessel_key, observed_at",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let stored: Vec<Report> = rows
        .iter()
        .map(|r| {
            (
                r.try_get("vessel_key").unwrap(),
                // Milliseconds on SQLite, `timestamptz` on PostgreSQL (migration 50).
                r.record_time("observed_at").unwrap().timestamp_millis(),
                r.try_get("imo").unwrap(),
                r.try_get("vessel_name").unwrap(),
                [
                    r.try_get("latitude").unwrap(),
                    r.try_get("longitude").unwrap(),
                    r.try_get("speed_knots").unwrap(),
                    r.try_get("course_deg").unwrap(),
                    r.try_get("heading_deg").unwrap(),
                ],
            )
        })
        .collect();
    let want: Vec<Report> = expected.values().cloned().collect();
    assert_eq!(stored.len(), want.len());
    for (s, w) in stored.iter().zip(&want) {
        assert_eq!(s, w);
    }
    assert_eq!(
        store.vessel_position_count().await.unwrap(),
        want.len() as i64
    );

    let imos: BTreeSet<String> = want.iter().filter_map(|r| r.2.clone()).collect();
    assert!(!imos.is_empty());
    for imo in &imos {
        let all = expected_for(imo, files, &expected);
        let got: Vec<(String, i64)> = store
            .vessel_positions(imo, None, None)
            .await
            .unwrap()
            .iter()
            .map(|p| {
                // The key is the MMSI exactly when the report had one.
                assert_eq!(p.mmsi.is_some(), p.track.is_none());
                (p.vessel_key().to_string(), p.observed_at.timestamp_millis())
            })
            .collect();
        assert_eq!(got, all, "IMO {imo}");
        // Both bounds inclusive, to the millisecond.
        let (from, to) = (all[0].1, all[all.len() - 1].1);
        let inner = store
            .vessel_positions(
                imo,
                DateTime::from_timestamp_millis(from),
                DateTime::from_timestamp_millis(to - 1),
            )
            .await
            .unwrap();
        assert_eq!(
            inner.len(),
            all.iter().filter(|(_, at)| *at < to).count(),
            "IMO {imo}"
        );
    }
    // The anonymised tracks are kept as tracks.
    assert!(want.iter().any(|r| r.0.contains(':')));
}

/// A fresh store: the files written by this build, each twice (the second time a no-op).
async fn fresh(store: &Store) {
    let files = files();
    for _ in 0..2 {
        for (_, positions) in &files {
            store.upsert_vessel_positions(positions).await.unwrap();
        }
    }
    check(store, &files).await;
}

/// Batches of the files' reports that meet every way `upsert_vessel_positions` writes: per
/// file, the later half of each transmitter's reports with a changed copy of every tenth
/// appended (nothing stored in their span; a report given twice in one batch); then the
/// earlier halves (positions of the same transmitters are stored, but after their span); then
/// the whole file with changed copies of every seventh report (all of it stored already). The
/// first of a (transmitter, millisecond) stored is the one kept.
fn in_parts() -> Vec<(String, Vec<(usize, VesselPosition)>)> {
    fn changed(p: &VesselPosition) -> VesselPosition {
        let mut q = p.clone();
        q.latitude = -q.latitude / 2.0;
        q.vessel_name = Some("CHANGED".into());
        q
    }
    let mut batches = Vec::new();
    for (name, positions) in files() {
        let mut by_key: BTreeMap<String, Vec<(usize, VesselPosition)>> = BTreeMap::new();
        for (i, p) in &positions {
            by_key
                .entry(p.vessel_key().to_string())
                .or_default()
                .push((*i, p.clone()));
        }
        let (mut earlier, mut later) = (Vec::new(), Vec::new());
        for track in by_key.values_mut() {
            track.sort_by_key(|(_, p)| p.observed_at);
            // Cut at a time, so that no report of the earlier half shares the later's first
            // millisecond (the suez tracks repeat times).
            let cut = track[track.len() / 2].1.observed_at.timestamp_millis();
            let (before, after): (Vec<_>, Vec<_>) = track
                .iter()
                .cloned()
                .partition(|(_, p)| p.observed_at.timestamp_millis() < cut);
            earlier.extend(before);
            later.extend(after);
        }
        let copies: Vec<(usize, VesselPosition)> = later
            .iter()
            .step_by(10)
            .map(|(i, p)| (*i, changed(p)))
            .collect();
        later.extend(copies);
        let mut whole = positions.clone();
        whole.extend(positions.iter().step_by(7).map(|(i, p)| (*i, changed(p))));
        batches.push((format!("{name} later halves"), later));
        batches.push((format!("{name} earlier halves"), earlier));
        batches.push((format!("{name} whole"), whole));
    }
    batches
}

/// A fresh store given [`in_parts`]'s batches in order holds each report once, the first given.
async fn parts(store: &Store) {
    let batches = in_parts();
    for (name, positions) in &batches {
        let before = store.statement_count();
        store.upsert_vessel_positions(positions).await.unwrap();
        // On PostgreSQL a batch with nothing stored in its transmitters' spans goes in by one
        // `COPY`, between the check of the spans and the two bookkeeping statements, and is
        // not run again (a repeat in the batch is not sent twice).
        if store.backend() == teu_store::Backend::Postgres
            && !name.ends_with("whole")
            && !positions.is_empty()
        {
            assert_eq!(store.statement_count() - before, 4, "{name}");
        }
    }
    check(store, &batches).await;
}

/// A database of the release before migration 34, holding the files' positions as it wrote
/// them (random ids, RFC 3339 text times, the MMSI twice, source file and row), migrated by
/// `Store::connect`.
async fn upgraded(url: &str, backend: &str) -> Store {
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(url).await.unwrap();
    let mut migrator = match backend {
        "sqlite" => sqlx::migrate!("./migrations/sqlite"),
        _ => sqlx::migrate!("./migrations/postgres"),
    };
    migrator.migrations = migrator
        .migrations
        .iter()
        .filter(|m| m.version < KEYED)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    migrator.run(&pool).await.unwrap();
    let files = files();
    let mut tx = pool.begin().await.unwrap();
    for (name, positions) in &files {
        for (index, p) in positions {
            sqlx::query(
                "INSERT INTO vessel_positions (id, vessel_key, mmsi, imo, vessel_name, observed_at, \
                 latitude, longitude, speed_knots, course_deg, heading_deg, source_file, source_index) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING",
            )
            // Not prepared once: the Any driver declares a NULL f64 as float4 on PostgreSQL.
            .persistent(false)
            .bind(format!("{}|{}", p.vessel_key(), p.observed_at.timestamp_millis()))
            .bind(p.vessel_key())
            .bind(p.mmsi.as_ref().map(|m| m.as_str()))
            .bind(p.imo.as_ref().map(|i| i.as_str()))
            .bind(p.vessel_name.as_deref())
            .bind(p.observed_at.to_rfc3339_opts(SecondsFormat::Millis, true))
            .bind(p.latitude)
            .bind(p.longitude)
            .bind(p.speed_knots)
            .bind(p.course_deg)
            .bind(p.heading_deg)
            .bind(name.as_str())
            .bind(*index as i64)
            .execute(&mut *tx)
            .await
            .unwrap();
            if let (Some(mmsi), Some(imo)) = (&p.mmsi, &p.imo) {
                sqlx::query(
                    "INSERT INTO vessel_identities (mmsi, imo) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                )
                .bind(mmsi.as_str())
                .bind(imo.as_str())
                .execute(&mut *tx)
                .await
                .unwrap();
            }
        }
    }
    tx.commit().await.unwrap();
    pool.close().await;
    let store = Store::connect(url).await.unwrap();
    check(&store, &files).await;
    store
}

/// A store on a new SQLite database in `dir`.
async fn sqlite_store(dir: &tempfile::TempDir) -> Store {
    Store::connect(&format!("sqlite:{}", dir.path().join("t.db").display()))
        .await
        .unwrap()
}

#[tokio::test]
async fn sqlite_keeps_every_report_once() {
    let dir = tempfile::tempdir().unwrap();
    fresh(&sqlite_store(&dir).await).await;
}

#[tokio::test]
async fn sqlite_keeps_the_first_of_batches_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    parts(&sqlite_store(&dir).await).await;
}

#[tokio::test]
async fn sqlite_release_positions_migrate() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}?mode=rwc", dir.path().join("t.db").display());
    let store = upgraded(&url, "sqlite").await;
    // Written again by this build: nothing changes.
    fresh(&store).await;
}

#[tokio::test]
async fn postgres_keeps_every_report_once_and_migrates() {
    let Ok(admin) = std::env::var("TEU_TEST_POSTGRES_URL") else {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    };
    let db = scratch(&admin).await;
    let store = Store::connect(&db.url).await.unwrap();
    fresh(&store).await;
    store.close().await;
    db.drop().await.unwrap();

    let db = scratch(&admin).await;
    let store = Store::connect(&db.url).await.unwrap();
    parts(&store).await;
    store.close().await;
    db.drop().await.unwrap();

    let db = scratch(&admin).await;
    let store = Store::connect(&db.url).await.unwrap();
    concurrent_writer(&store, &db.url).await;
    store.close().await;
    db.drop().await.unwrap();

    let db = scratch(&admin).await;
    let store = upgraded(&db.url, "postgres").await;
    fresh(&store).await;
    store.close().await;
    db.drop().await.unwrap();
}

/// A new database of its own on the server of `admin`.
async fn scratch(admin: &str) -> ScratchDatabase {
    let name = format!("teu_positions_{}", uuid::Uuid::new_v4().simple());
    ScratchDatabase::create(admin, &name).await.unwrap()
}

/// PostgreSQL: another writer stores one of a file's reports (other values) and commits while
/// the store's `COPY` of that file waits on it. The `COPY` fails on the key; the store writes
/// the file again through the conflict rule, and the other writer's report is the one kept.
async fn concurrent_writer(store: &Store, url: &str) {
    use sqlx::{Connection, PgConnection};
    let files = files();
    // The largest file (the Suez tracks, 22,287 reports); the other writer's report is the
    // last by transmitter and time, so the `COPY` waits on it after most of the file.
    let (_, positions) = files
        .iter()
        .max_by_key(|(_, positions)| positions.len())
        .unwrap();
    let mut theirs = positions
        .iter()
        .map(|(_, p)| p)
        .max_by_key(|p| (p.vessel_key().to_string(), p.observed_at))
        .unwrap()
        .clone();
    theirs.latitude = -theirs.latitude / 2.0;
    theirs.vessel_name = Some("THE OTHER WRITER".into());
    let mut other = PgConnection::connect(url).await.unwrap();
    let mut tx = other.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
         longitude, speed_knots, course_deg, heading_deg) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(theirs.vessel_key())
    // `timestamptz` since migration 50, to the millisecond as the store keeps it.
    .bind(DateTime::from_timestamp_millis(theirs.observed_at.timestamp_millis()).unwrap())
    .bind(theirs.imo.as_ref().map(|i| i.as_str()))
    .bind(theirs.vessel_name.as_deref())
    .bind(theirs.latitude)
    .bind(theirs.longitude)
    .bind(theirs.speed_knots)
    .bind(theirs.course_deg)
    .bind(theirs.heading_deg)
    .execute(&mut *tx)
    .await
    .unwrap();

    let write = store.upsert_vessel_positions(positions);
    tokio::pin!(write);
    let mut watch = PgConnection::connect(url).await.unwrap();
    let copy_waits = async {
        loop {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND wait_event_type = 'Lock' AND query LIKE 'COPY vessel_positions%'",
            )
            .fetch_one(&mut watch)
            .await
            .unwrap();
            if waiting > 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        done = &mut write => panic!("the store's write did not wait on the other writer: {done:?}"),
        () = copy_waits => {}
    }
    tx.commit().await.unwrap();
    write.await.unwrap();
    for (_, positions) in &files {
        store.upsert_vessel_positions(positions).await.unwrap();
    }
    let mut given = vec![("the other writer".to_string(), vec![(0, theirs)])];
    given.extend(files.iter().cloned());
    check(store, &given).await;
}
