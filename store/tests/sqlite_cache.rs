//! `TEU_SQLITE_CACHE_MIB` sets SQLite's page cache on every pooled reading connection,
//! `TEU_SQLITE_WRITER_CACHE_MIB` on the writer connection, which alone checkpoints at
//! `SQLITE_WRITER_AUTOCHECKPOINT_PAGES`. A test binary of its own: it changes the process
//! environment, which other tests' connections would read.

use teu_store::db::{query, Pool};
use teu_store::{
    Store, StoreError, SQLITE_CACHE_MIB, SQLITE_WRITER_AUTOCHECKPOINT_PAGES,
    SQLITE_WRITER_CACHE_MIB,
};

/// The integer a `PRAGMA` answers on a connection of `pool`.
async fn pragma(pool: &Pool, name: &str) -> i64 {
    query(&format!("PRAGMA {name}"))
        .fetch_one(pool)
        .await
        .unwrap()
        .try_get(0)
        .unwrap()
}

async fn cache_size(store: &Store) -> i64 {
    pragma(store.pool(), "cache_size").await
}

async fn writer_cache_size(store: &Store) -> i64 {
    pragma(store.writer(), "cache_size").await
}

#[tokio::test]
async fn the_page_cache_follows_teu_sqlite_cache_mib() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("t.db").display());

    std::env::remove_var("TEU_SQLITE_CACHE_MIB");
    std::env::remove_var("TEU_SQLITE_WRITER_CACHE_MIB");
    let store = Store::connect(&url).await.unwrap();
    // Negative: KiB (SQLite manual, "PRAGMA cache_size").
    assert_eq!(
        cache_size(&store).await,
        -i64::from(SQLITE_CACHE_MIB) * 1024
    );
    assert_eq!(
        writer_cache_size(&store).await,
        -i64::from(SQLITE_WRITER_CACHE_MIB) * 1024
    );
    store.close().await;

    std::env::set_var("TEU_SQLITE_CACHE_MIB", "256");
    std::env::set_var("TEU_SQLITE_WRITER_CACHE_MIB", "48");
    let store = Store::connect(&url).await.unwrap();
    assert_eq!(cache_size(&store).await, -256 * 1024);
    assert_eq!(writer_cache_size(&store).await, -48 * 1024);
    store.close().await;

    for var in ["TEU_SQLITE_CACHE_MIB", "TEU_SQLITE_WRITER_CACHE_MIB"] {
        for bad in ["0", "lots", "-5", "70000"] {
            std::env::set_var(var, bad);
            match Store::connect(&url).await {
                Err(e @ StoreError::CacheSize(..)) => {
                    let message = e.to_string();
                    assert!(message.starts_with(&format!("{var}={bad:?}")), "{message}")
                }
                Err(e) => panic!("{var}={bad}: {e}"),
                Ok(_) => panic!("{var}={bad} was accepted"),
            }
        }
        std::env::remove_var(var);
    }
}

/// The writer connection checkpoints the log at [`SQLITE_WRITER_AUTOCHECKPOINT_PAGES`]; the
/// reading connections keep SQLite's default of 1,000 pages (SQLite manual, "PRAGMA
/// wal_autocheckpoint"). A commit through the writer then leaves its pages in the log, where
/// a checkpoint at 1,000 pages would have copied a larger transaction back at once.
#[tokio::test]
async fn the_writer_checkpoints_a_large_log_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::connect(&format!("sqlite:{}", path.display()))
        .await
        .unwrap();
    assert_eq!(
        pragma(store.writer(), "wal_autocheckpoint").await,
        i64::from(SQLITE_WRITER_AUTOCHECKPOINT_PAGES)
    );
    assert_eq!(pragma(store.pool(), "wal_autocheckpoint").await, 1000);

    // 1,500 pages of 16 KiB in one transaction, more than SQLite's default threshold.
    let mut tx = store.writer().begin().await.unwrap();
    query("CREATE TABLE filler (b BLOB)")
        .execute(&mut tx)
        .await
        .unwrap();
    for _ in 0..1500 {
        query("INSERT INTO filler (b) VALUES (zeroblob(16000))")
            .execute(&mut tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    // Left in the log: the database file has not grown by the table's 24 MB. SQLite's
    // default would have copied the transaction back at this commit.
    let filled = 1500 * 16_000;
    let before = std::fs::metadata(&path).unwrap().len();
    assert!(
        before < filled,
        "database file {before} bytes after the commit"
    );
    query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(store.writer())
        .await
        .unwrap();
    let after = std::fs::metadata(&path).unwrap().len();
    assert!(
        after >= filled,
        "database file {after} bytes after the checkpoint"
    );
    store.close().await;
}
