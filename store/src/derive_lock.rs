//! The derivation lock: one ingest at a time re-derives an account's shipments and containers.
//!
//! An ingest stores its events, then reads the stored history of the keys it touched, derives
//! and writes the shipments and containers. Two ingest workers whose files touch the same
//! container (a DCSA file and a terminal file of the same box) could otherwise lose an update:
//! each derives from what was committed when it read, and the later write wins even if it read
//! less. Under the lock, whichever worker derives second reads both workers' events (each stores
//! its events before taking the lock), so two workers give the same tables as one.
//!
//! On PostgreSQL it is a session-level advisory lock (`pg_advisory_lock`, PostgreSQL manual,
//! "Advisory Locks") keyed by the account, held on one pooled connection: it covers every
//! process and machine on that database, and a worker that dies releases it with its session.
//! On SQLite, which serves one machine, it is a lock within the process; two processes on one
//! SQLite file are not covered (one ingest process per SQLite database; see docs/NOTES.md).
//! Reading and storing events, the heavy part of an ingest, stays parallel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sqlx::{ConnectOptions, Connection, PgConnection};
use uuid::Uuid;

use crate::{Result, Store};

/// Held while an ingest re-derives one account; release it with [`DerivationLock::release`].
/// Dropped without release (an error or a cancelled task), it still lets go: its PostgreSQL
/// connection is its own, not the pool's, and closing it ends its session and its lock.
pub struct DerivationLock {
    conn: Option<PgConnection>,
    key: i64,
    idle: LockConnections,
    _local: tokio::sync::OwnedMutexGuard<()>,
}

/// Idle PostgreSQL connections of released derivation locks, kept for the next lock of this
/// store (all clones share them): a new connection costs about 5.6 ms on loopback (pgbench
/// `-C`, docs/NOTES.md), and an ingest takes the lock once per data file. Holds at most
/// [`LockConnections::MAX_IDLE`]; a connection whose unlock failed is closed, not kept.
#[derive(Clone, Default)]
pub(crate) struct LockConnections(Arc<Mutex<Vec<PgConnection>>>);

impl LockConnections {
    /// Idle connections kept: one per account being ingested at once is plenty.
    const MAX_IDLE: usize = 2;

    fn take(&self) -> Option<PgConnection> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop()
    }

    /// Keeps `conn` for the next lock, or hands it back when enough are kept (to be closed).
    fn put(&self, conn: PgConnection) -> Option<PgConnection> {
        let mut idle = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if idle.len() < Self::MAX_IDLE {
            idle.push(conn);
            None
        } else {
            Some(conn)
        }
    }
}

/// The advisory-lock key of an account: the first 8 bytes of its UUID, with the namespace of
/// teu's derivation in the high bits changed so other advisory-lock users of the database
/// (keyed by small integers) do not collide.
fn lock_key(account: Uuid) -> i64 {
    let b = account.as_bytes();
    let mut k = [0u8; 8];
    k.copy_from_slice(&b[..8]);
    i64::from_be_bytes(k) ^ 0x7465_755f_6465_7276 // "teu_derv"
}

/// One in-process mutex per account (both backends: also orders concurrent ingests of one
/// process before they reach PostgreSQL).
fn local_mutex(account: Uuid) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut map = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    map.entry(account).or_default().clone()
}

impl Store {
    /// Waits for and takes the derivation lock of `account` (module documentation).
    ///
    /// # Errors
    /// [`crate::StoreError::Sql`] when no connection can be had or PostgreSQL refuses
    /// the lock.
    pub async fn lock_derivation(&self, account: Uuid) -> Result<DerivationLock> {
        let local = local_mutex(account).lock_owned().await;
        let key = lock_key(account);
        let conn = match self.pool() {
            crate::db::Pool::Sqlite(_) => None,
            crate::db::Pool::Postgres(pool) => {
                let mut conn = self.lock_connection(pool).await?;
                sqlx::query("SELECT pg_advisory_lock($1)")
                    .bind(key)
                    .execute(&mut conn)
                    .await?;
                Some(conn)
            }
        };
        Ok(DerivationLock {
            conn,
            key,
            idle: self.lock_connections().clone(),
            _local: local,
        })
    }

    /// A connection for the lock: an idle one of an earlier lock if it still answers, else a
    /// new one. Not from the pool, and with statement logging off: waiting for another worker's
    /// derivation is expected, and sqlx would log every wait of over a second as a slow
    /// statement (hundreds per worker in a million-container run).
    async fn lock_connection(&self, pool: &sqlx::PgPool) -> Result<PgConnection> {
        if let Some(mut idle) = self.lock_connections().take() {
            if idle.ping().await.is_ok() {
                return Ok(idle);
            }
        }
        let options = (*pool.connect_options())
            .clone()
            .disable_statement_logging();
        Ok(PgConnection::connect_with(&options).await?)
    }
}

impl DerivationLock {
    /// Releases the lock and keeps its connection for the next lock of the store.
    ///
    /// # Errors
    /// [`crate::StoreError::Sql`] when PostgreSQL cannot be told; the connection is
    /// then closed, which releases the lock anyway.
    pub async fn release(mut self) -> Result<()> {
        if let Some(mut conn) = self.conn.take() {
            let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(self.key)
                .execute(&mut conn)
                .await;
            if let Err(e) = unlocked {
                // Closing ends the session and its lock; the unlock error is the one to report.
                let _ = conn.close().await;
                return Err(e.into());
            }
            if let Some(extra) = self.idle.put(conn) {
                extra.close().await?;
            }
        }
        Ok(())
    }
}
