//! Shared by the pipeline's integration tests: a fresh PostgreSQL database per test.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use sqlx::{AnyConnection, Connection};
use teu_pipeline::store::Store;

/// A fresh database on the server named by `TEU_TEST_POSTGRES_URL` (as in CI), or `None` when
/// the variable is not set. Drop it with [`TestPostgres::drop`] when done.
pub struct TestPostgres {
    /// The store, connected to the new database and migrated.
    pub store: Store,
    /// Its URL, for more connections.
    pub url: String,
    admin: String,
    name: String,
}

impl TestPostgres {
    /// Creates database `<prefix>_<uuid>` and connects a store to it.
    ///
    /// # Panics
    /// When `TEU_TEST_POSTGRES_URL` is set but the server cannot be used.
    pub async fn create(prefix: &str) -> Option<TestPostgres> {
        let admin = std::env::var("TEU_TEST_POSTGRES_URL").ok()?;
        let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
        sqlx::any::install_default_drivers();
        let mut conn = AnyConnection::connect(&admin)
            .await
            .expect("TEU_TEST_POSTGRES_URL is set but PostgreSQL cannot be used");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await
            .unwrap();
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        let url = format!("{base}/{name}");
        let store = Store::connect(&url).await.unwrap();
        Some(TestPostgres {
            store,
            url,
            admin,
            name,
        })
    }

    /// Closes the store's pool and drops the database (with any sessions still on it).
    pub async fn drop(self) {
        self.store.pool().close().await;
        let mut conn = AnyConnection::connect(&self.admin).await.unwrap();
        sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    }
}
