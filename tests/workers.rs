//! Two ingest workers on one PostgreSQL (issue 8): two `teu ingest` processes on disjoint
//! files of one simulated feed, run at the same time, leave the same tables as one worker that
//! reads every file. The files are split so that both workers touch the same containers (one
//! takes the DCSA events and the emails, the other the terminal, line, rail and AIS files of
//! the same boxes): without the derivation lock (`teu_store::derive_lock`) the worker that
//! writes last can overwrite a container derived from more facts with one derived from fewer.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{simulated_feed, snapshot, TestDb, TEU};

/// The files of `subdirs`, in chunk order (`…-00001.*` of every subdir, then `…-00002.*`, …)
/// so that a worker given them walks the same boxes as a worker given the DCSA files.
fn files_under(dir: &Path, subdirs: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = subdirs
        .iter()
        .flat_map(|s| std::fs::read_dir(dir.join(s)).expect("simulated dir"))
        .map(|e| e.expect("entry").path())
        .collect();
    let chunk = |p: &PathBuf| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        name.split(['-', '.'])
            .find_map(|part| part.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    };
    out.sort_by_key(|p| (chunk(p), p.clone()));
    out
}

mod postgres {
    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn two_workers_on_disjoint_files_equal_one_worker() {
        let Some(db) = TestDb::postgres().await else {
            eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
            return;
        };
        let feed = simulated_feed(600, 20, 11);
        let a = files_under(feed.path(), &["dcsa", "email"]);
        let b = files_under(feed.path(), &["rail", "terminal", "ais"]);
        assert!(
            a.len() >= 15 && b.len() >= 30,
            "{} and {} files",
            a.len(),
            b.len()
        );
        db.create_account("one");
        db.create_account("two");

        let spawn = |files: &[PathBuf]| {
            Command::new(TEU)
                .args(["--database-url", &db.url, "ingest", "--account", "two"])
                .args(files)
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn worker")
        };
        let (wa, wb) = (spawn(&a), spawn(&b));
        for w in [wa, wb] {
            let out = w.wait_with_output().expect("worker");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        db.ingest("one", &[feed.path().to_path_buf()]);

        let one = snapshot(&db, "one").await;
        let two = snapshot(&db, "two").await;
        assert!(
            one["containers"].len() >= 600,
            "{}",
            one["containers"].len()
        );
        assert!(one["terminal_checks rows"][0] != "0");
        for (table, rows) in &one {
            assert_eq!(two[table].len(), rows.len(), "{table}: row counts differ");
            let differ = rows.iter().zip(&two[table]).filter(|(x, y)| x != y).count();
            assert_eq!(differ, 0, "{table}: {differ} rows differ from one worker's");
        }
        db.cleanup().await;
    }
}
