//! `TEU_SQLITE_CACHE_MIB` sets SQLite's page cache on every pooled reading connection,
//! `TEU_SQLITE_WRITER_CACHE_MIB` on the writer connection. A test binary of its own: it changes
//! the process environment, which other tests' connections would read.

use teu_store::{Store, StoreError, SQLITE_CACHE_MIB, SQLITE_WRITER_CACHE_MIB};

async fn cache_size(store: &Store) -> i64 {
    sqlx::query_scalar::<_, i64>("PRAGMA cache_size")
        .fetch_one(store.pool())
        .await
        .unwrap()
}

async fn writer_cache_size(store: &Store) -> i64 {
    sqlx::query_scalar::<_, i64>("PRAGMA cache_size")
        .fetch_one(store.writer())
        .await
        .unwrap()
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
