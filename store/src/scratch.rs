//! Scratch PostgreSQL databases and stores on them, for tests and benchmarks that need a database of their own on
//! a shared server (CI's `TEU_TEST_POSTGRES_URL`, the benches' `TEU_BENCH_DATABASE_URL`).

use sqlx::{Connection, PgConnection};

use crate::{Result, Store, StoreError};

/// A database made by [`ScratchDatabase::create`] on a PostgreSQL server; [`ScratchDatabase::drop`]
/// removes it.
#[derive(Debug)]
pub struct ScratchDatabase {
    /// The new database's URL (the server URL with the database name replaced).
    pub url: String,
    admin: String,
    name: String,
}

impl ScratchDatabase {
    /// Creates database `name` on the server of `admin_url` (any database of that server the
    /// user may connect to), dropping a leftover of the same name first. `name` must be a plain
    /// lower-case identifier (`[a-z0-9_]`, not starting with a digit): it is spliced into
    /// `CREATE DATABASE`, which takes no parameters.
    ///
    /// # Errors
    /// [`StoreError::ScratchName`] for another name; [`StoreError::Sql`] when the server cannot be
    /// reached or refuses.
    pub async fn create(admin_url: &str, name: &str) -> Result<ScratchDatabase> {
        let plain = name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if name.is_empty() || !plain || name.as_bytes()[0].is_ascii_digit() {
            return Err(StoreError::ScratchName(name.to_string()));
        }
        let admin = admin_url.trim_end_matches('/').to_string();
        let mut conn = PgConnection::connect(&admin).await?;
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut conn)
            .await?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await?;
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        Ok(ScratchDatabase {
            url: format!("{base}/{name}"),
            name: name.to_string(),
            admin,
        })
    }

    /// Drops the database, with any sessions still on it.
    ///
    /// # Errors
    /// [`StoreError::Sql`] when the server cannot be reached or refuses.
    pub async fn drop(self) -> Result<()> {
        let mut conn = PgConnection::connect(&self.admin).await?;
        sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut conn)
        .await?;
        Ok(())
    }
}

/// A migrated [`Store`] on a fresh [`ScratchDatabase`]: what a PostgreSQL-backed test starts
/// from.
pub struct ScratchStore {
    /// The store, connected and migrated.
    pub store: Store,
    /// Its database (`database.url` for more connections).
    pub database: ScratchDatabase,
}

impl ScratchStore {
    /// A store on database `<prefix>_<random>` of the server named by the environment variable
    /// `var` (e.g. `TEU_TEST_POSTGRES_URL`), or `None` when `var` is not set.
    ///
    /// # Errors
    /// As [`ScratchDatabase::create`] and [`Store::connect`].
    pub async fn from_env(var: &str, prefix: &str) -> Result<Option<ScratchStore>> {
        let Ok(admin) = std::env::var(var) else {
            return Ok(None);
        };
        let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
        let database = ScratchDatabase::create(&admin, &name).await?;
        let store = Store::connect(&database.url).await?;
        Ok(Some(ScratchStore { store, database }))
    }

    /// For a PostgreSQL-backed test: [`ScratchStore::from_env`] of `TEU_TEST_POSTGRES_URL` (the
    /// server `.ci/run` names), or `None`, after saying on stderr that the test is skipped, when
    /// that variable is not set.
    ///
    /// # Panics
    /// When the variable is set but the scratch database cannot be made, connected or
    /// migrated (the message names `prefix` and the error): such a test must fail, not skip.
    pub async fn for_test(prefix: &str) -> Option<ScratchStore> {
        const VAR: &str = "TEU_TEST_POSTGRES_URL";
        match ScratchStore::from_env(VAR, prefix).await {
            Ok(Some(db)) => Some(db),
            Ok(None) => {
                eprintln!("skipped: {VAR} is not set");
                None
            }
            Err(e) => panic!("scratch database {prefix}_… on {VAR}: {e}"),
        }
    }

    /// Closes the store's pool and drops the database.
    ///
    /// # Errors
    /// As [`ScratchDatabase::drop`].
    pub async fn drop(self) -> Result<()> {
        self.store.pool().close().await;
        self.database.drop().await
    }
}
