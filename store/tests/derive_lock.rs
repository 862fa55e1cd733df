//! The derivation lock on PostgreSQL (`teu_store::derive_lock`), when `TEU_TEST_POSTGRES_URL`
//! is set: it is a real advisory lock that other sessions see, a wait for it is not logged as a
//! slow statement, and a lock dropped without release (a failed or cancelled ingest) lets go.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::{Connection, PgConnection};

use teu_store::scratch::ScratchStore;

/// The 64-bit keys of the advisory locks granted in this database (PostgreSQL manual,
/// "pg_locks": a bigint key is split into classid, the high half, and objid, the low half).
async fn advisory_keys(conn: &mut PgConnection) -> Vec<i64> {
    sqlx::query_scalar::<_, i64>(
        "SELECT (classid::bigint << 32) | objid::bigint FROM pg_locks \
         WHERE locktype = 'advisory' AND granted AND objsubid = 1 \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_all(conn)
    .await
    .unwrap()
}

/// The backend process holding the advisory lock `key` in this database, if any.
async fn holder(conn: &mut PgConnection, key: i64) -> Option<i32> {
    sqlx::query_scalar::<_, i32>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 \
         AND (classid::bigint << 32) | objid::bigint = $1 \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .bind(key)
    .fetch_optional(conn)
    .await
    .unwrap()
}

/// Everything written through a `tracing` fmt subscriber.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn postgres_derivation_lock_is_advisory_and_its_wait_is_not_a_slow_statement() {
    let Some(db) = ScratchStore::for_test("teu_lock").await else {
        return;
    };
    let store = db.store.clone();
    let mut other = PgConnection::connect(&db.database.url).await.unwrap();
    let (account, _) = store.create_account("acme", false).await.unwrap();

    let lock = store.lock_derivation(account.id).await.unwrap();
    let keys = advisory_keys(&mut other).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let key = keys[0];
    let first = holder(&mut other, key).await;
    lock.release().await.unwrap();
    assert!(advisory_keys(&mut other).await.is_empty());

    // The next lock reuses the released lock's connection (no new session per ingested file).
    let lock = store.lock_derivation(account.id).await.unwrap();
    assert_eq!(holder(&mut other, key).await, first);
    lock.release().await.unwrap();

    // Another session (another worker) holds the account's lock for 1.5 s, longer than sqlx's
    // slow-statement threshold (1 s); the ingest waiting for it logs nothing.
    sqlx::query("SELECT 1 FROM (SELECT pg_advisory_lock($1)) AS l")
        .bind(key)
        .execute(&mut other)
        .await
        .unwrap();
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let waiting = tokio::spawn({
        let store = store.clone();
        async move {
            let started = std::time::Instant::now();
            let lock = store.lock_derivation(account.id).await.unwrap();
            (started.elapsed(), lock)
        }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sqlx::query("SELECT 1 FROM (SELECT pg_advisory_unlock($1)) AS l")
        .bind(key)
        .execute(&mut other)
        .await
        .unwrap();
    let (waited, lock) = waiting.await.unwrap();
    assert!(waited >= Duration::from_millis(1400), "{waited:?}");
    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).to_string();
    assert!(!log.contains("slow statement"), "{log}");

    // Dropped without release: its session ends and the lock with it.
    drop(lock);
    let mut left = advisory_keys(&mut other).await;
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = advisory_keys(&mut other).await;
    }
    assert!(left.is_empty(), "still held after drop: {left:?}");

    other.close().await.unwrap();
    db.drop().await.unwrap();
}
