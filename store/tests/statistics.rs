//! The planner statistics on PostgreSQL (`Store::optimize`), when `TEU_TEST_POSTGRES_URL` is
//! set: a table is analyzed once it has changed by more than 50 rows plus its whole analyzed
//! size (it doubled), and not for a smaller growth, which autovacuum's default (10%) would
//! have analyzed again.

use std::time::Duration;

use sqlx::{Connection, PgConnection};

use teu_store::scratch::ScratchStore;

/// `(n_mod_since_analyze, analyze_count)` of table `probe` once the statistics show at least
/// `modified` rows changed since its last analysis and at least `analyses` analyses: another
/// backend's counts reach the shared statistics when it goes idle or exits, shortly after.
async fn counts(conn: &mut PgConnection, modified: i64, analyses: i64) -> (i64, i64) {
    let mut seen = (0, 0);
    for _ in 0..100 {
        seen = sqlx::query_as::<_, (i64, i64)>(
            "SELECT n_mod_since_analyze, analyze_count FROM pg_stat_user_tables \
             WHERE relname = 'probe' AND schemaname = current_schema()",
        )
        .fetch_one(&mut *conn)
        .await
        .unwrap();
        if seen.0 >= modified && seen.1 >= analyses {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        // A new snapshot of the shared statistics (PostgreSQL manual, "pg_stat_clear_snapshot").
        sqlx::query("SELECT pg_stat_clear_snapshot()")
            .execute(&mut *conn)
            .await
            .unwrap();
    }
    seen
}

/// Inserts `rows` rows into `probe` on a session of its own, then ends it, so its counts are
/// flushed to the shared statistics.
async fn insert(url: &str, rows: i32) {
    let mut conn = PgConnection::connect(url).await.unwrap();
    sqlx::query("INSERT INTO probe SELECT g FROM generate_series(1, $1) AS g")
        .bind(rows)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
}

#[tokio::test]
async fn postgres_optimize_analyzes_a_table_once_it_doubled() {
    let Some(db) = ScratchStore::for_test("teu_statistics").await else {
        return;
    };
    let url = db.database.url.clone();
    let mut conn = PgConnection::connect(&url).await.unwrap();
    // Whatever the migrations changed is analyzed first, so only `probe` changes below.
    db.store.optimize().await.unwrap();
    sqlx::query("CREATE TABLE probe (n integer)")
        .execute(&mut conn)
        .await
        .unwrap();

    // Never analyzed, 1,000 rows: analyzed.
    insert(&url, 1000).await;
    assert_eq!(counts(&mut conn, 1000, 0).await, (1000, 0));
    db.store.optimize().await.unwrap();
    assert_eq!(counts(&mut conn, 0, 1).await, (0, 1));

    // 600 rows more, 60% of the analyzed 1,000: the size alone changed, not analyzed.
    insert(&url, 600).await;
    assert_eq!(counts(&mut conn, 600, 1).await, (600, 1));
    db.store.optimize().await.unwrap();
    assert_eq!(counts(&mut conn, 600, 1).await, (600, 1));

    // 500 more: 1,100 changed since, past 50 plus the analyzed 1,000. Analyzed again.
    insert(&url, 500).await;
    assert_eq!(counts(&mut conn, 1100, 1).await, (1100, 1));
    db.store.optimize().await.unwrap();
    assert_eq!(counts(&mut conn, 0, 2).await, (0, 2));

    conn.close().await.unwrap();
    db.drop().await.unwrap();
}
