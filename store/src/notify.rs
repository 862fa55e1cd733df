//! Change notifications: what an ingest changed, delivered to every serving process.
//!
//! After an ingest has committed its derived rows, it publishes the ids of the containers whose
//! content actually changed (the `content_hash` upsert reports them; an unchanged re-ingest
//! publishes nothing) and of the tracking requests that went from `pending` to `created`.
//! GraphQL subscriptions ([`Notifier::subscribe`]) receive them in every `teu serve` process
//! on the same database, whichever process ran the ingest:
//!
//! - **PostgreSQL**: `pg_notify('teu_updates', payload)` in the ingesting process, `LISTEN
//!   teu_updates` in each serving process ([`Notifier::listen`]). Payloads are JSON
//!   ([`Update`]) and stay under PostgreSQL's 8000-byte limit by chunking the id lists
//!   ([`Update::chunks`]). Notifications sent while a listener is reconnecting are lost;
//!   subscribers that must not miss a change re-read the data after a reconnect.
//! - **SQLite**: there is no LISTEN/NOTIFY, so the ingesting process appends the same payloads
//!   to the `updates` table and each serving process polls it every [`POLL_INTERVAL`]
//!   (one indexed `id > last` query). This makes `teu ingest` in another process reach a
//!   running `teu serve`, as on PostgreSQL, at the cost of up to one poll interval of latency;
//!   rows older than [`RETENTION`] are deleted by the next publish.
//!
//! Inside a process, updates fan out to subscribers through a `tokio::sync::broadcast` channel
//! of [`CAPACITY`] updates; a subscriber that falls further behind skips the oldest (logged).
//! Publishing never sends to the local channel directly: the listener or poller delivers
//! local and remote updates alike, exactly once each.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::postgres::{PgListener, PgPool};
use sqlx::{Row, SqlitePool};
use tokio::sync::{broadcast, OnceCell};
use uuid::Uuid;

/// The PostgreSQL notification channel.
pub const CHANNEL: &str = "teu_updates";
/// Largest payload sent (PostgreSQL refuses 8000 bytes and more).
pub const MAX_PAYLOAD: usize = 7900;
/// Containers per notification: each takes at most 96 bytes of JSON, so 64 stay under
/// [`MAX_PAYLOAD`] with room for the envelope.
pub const CONTAINERS_PER_UPDATE: usize = 64;
/// Tracking-request ids per notification (39 bytes each in JSON).
pub const REQUESTS_PER_UPDATE: usize = 150;
/// Updates buffered per process for slow subscribers.
pub const CAPACITY: usize = 1024;
/// How often a SQLite serving process polls the `updates` table.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);
/// How long SQLite keeps published updates.
pub const RETENTION: Duration = Duration::from_secs(3600);

/// Notification failures.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// The database refused the notification or the listener.
    #[error("change notification failed: {0}")]
    Sql(#[from] sqlx::Error),
    /// An update could not be encoded.
    #[error("change notification could not be encoded: {0}")]
    Encode(#[from] serde_json::Error),
}

/// A container whose stored content changed, with its shipment (for subscription filters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedContainer {
    /// Container id.
    pub id: Uuid,
    /// The container's shipment id.
    #[serde(rename = "s")]
    pub shipment_id: Uuid,
}

/// What changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// Containers whose content (or whose shipment's content) changed.
    Containers {
        /// The containers.
        containers: Vec<ChangedContainer>,
    },
    /// Tracking requests whose status changed (`pending` → `created`).
    TrackingRequests {
        /// Their ids.
        ids: Vec<Uuid>,
    },
}

/// One notification: an account and what changed in it (the JSON payload on the wire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Update {
    /// The account the changed rows belong to.
    pub account: Uuid,
    /// The change.
    #[serde(flatten)]
    pub change: Change,
}

impl Update {
    /// Splits the update into updates whose JSON stays under [`MAX_PAYLOAD`]; an empty id list
    /// gives none.
    pub fn chunks(&self) -> Vec<Update> {
        let account = self.account;
        match &self.change {
            Change::Containers { containers } => containers
                .chunks(CONTAINERS_PER_UPDATE)
                .map(|c| Update {
                    account,
                    change: Change::Containers {
                        containers: c.to_vec(),
                    },
                })
                .collect(),
            Change::TrackingRequests { ids } => ids
                .chunks(REQUESTS_PER_UPDATE)
                .map(|c| Update {
                    account,
                    change: Change::TrackingRequests { ids: c.to_vec() },
                })
                .collect(),
        }
    }
}

/// Publishes updates and fans them out to this process's subscribers. Cheap to clone; every
/// [`crate::Store`] holds one.
#[derive(Clone)]
pub struct Notifier {
    inner: Arc<Inner>,
}

struct Inner {
    local: broadcast::Sender<Arc<Update>>,
    transport: Transport,
    /// Set once the listener (PostgreSQL) or poller (SQLite) runs.
    listening: OnceCell<()>,
}

enum Transport {
    Postgres(PgPool),
    /// The store's readers (the poller) and its writer connection (publishing).
    Sqlite {
        read: SqlitePool,
        write: SqlitePool,
    },
}

impl Notifier {
    /// A notifier over the PostgreSQL store's pool: `NOTIFY` through its connections, and a
    /// listener of its own ([`Notifier::listen`]).
    pub fn postgres(pool: PgPool) -> Notifier {
        Notifier::with(Transport::Postgres(pool))
    }

    /// A notifier over the SQLite store's pools (the `updates` table): `read` for the poller,
    /// `write` (the store's writer connection) for publishing.
    pub fn sqlite(read: SqlitePool, write: SqlitePool) -> Notifier {
        Notifier::with(Transport::Sqlite { read, write })
    }

    fn with(transport: Transport) -> Notifier {
        let (local, _) = broadcast::channel(CAPACITY);
        Notifier {
            inner: Arc::new(Inner {
                local,
                transport,
                listening: OnceCell::new(),
            }),
        }
    }

    /// Publishes `update` (chunked) to every serving process on the database. Nothing is sent
    /// for an empty id list.
    ///
    /// # Errors
    ///
    /// [`NotifyError`] when the database refuses the notification.
    pub async fn publish(&self, update: &Update) -> Result<(), NotifyError> {
        let chunks = update.chunks();
        if chunks.is_empty() {
            return Ok(());
        }
        match &self.inner.transport {
            Transport::Postgres(pool) => {
                for chunk in &chunks {
                    let payload = serde_json::to_string(chunk)?;
                    debug_assert!(payload.len() < MAX_PAYLOAD);
                    sqlx::query("SELECT pg_notify($1, $2)")
                        .bind(CHANNEL)
                        .bind(payload)
                        .execute(pool)
                        .await?;
                }
            }
            Transport::Sqlite { write: pool, .. } => {
                let now = crate::now();
                let cutoff = now - chrono::Duration::from_std(RETENTION).unwrap_or_default();
                // `created_at` is milliseconds since the epoch, UTC (migration 44).
                sqlx::query("DELETE FROM updates WHERE created_at < $1")
                    .bind(cutoff.timestamp_millis())
                    .execute(pool)
                    .await?;
                for chunk in &chunks {
                    sqlx::query("INSERT INTO updates (created_at, payload) VALUES ($1, $2)")
                        .bind(now.timestamp_millis())
                        .bind(serde_json::to_string(chunk)?)
                        .execute(pool)
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// Receives the updates delivered to this process from now on. Only a process that called
    /// [`Notifier::listen`] receives any.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Update>> {
        self.inner.local.subscribe()
    }

    /// Starts delivering the database's updates to [`Notifier::subscribe`]rs: `LISTEN` on
    /// PostgreSQL (returns once listening), a poller of the `updates` table on SQLite (starting
    /// after the newest row). Idempotent. Must run inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// [`NotifyError::Sql`] when the listener cannot connect or the table cannot be read.
    pub async fn listen(&self) -> Result<(), NotifyError> {
        self.inner
            .listening
            .get_or_try_init(|| async {
                match &self.inner.transport {
                    Transport::Postgres(pool) => {
                        let mut listener = PgListener::connect_with(pool).await?;
                        listener.listen(CHANNEL).await?;
                        tokio::spawn(pg_forward(listener, self.inner.local.clone()));
                    }
                    Transport::Sqlite { read: pool, .. } => {
                        let last: Option<i64> = sqlx::query("SELECT MAX(id) AS last FROM updates")
                            .fetch_one(pool)
                            .await?
                            .try_get("last")?;
                        tokio::spawn(sqlite_poll(
                            pool.clone(),
                            last.unwrap_or(0),
                            self.inner.local.clone(),
                        ));
                    }
                }
                Ok::<(), NotifyError>(())
            })
            .await?;
        Ok(())
    }
}

/// Publishes what one ingest changed: the containers whose row changed or whose shipment's
/// row changed (`derived` are the containers the ingest derived, to find a shipment's
/// containers), then the tracking requests `linked` to their shipment. The data is already
/// committed, so a failure to notify is logged and does not fail the ingest.
pub async fn publish_ingest(
    store: &crate::Store,
    account: Uuid,
    derived: &[teu_domain::model::Container],
    changes: &crate::DerivedChanges,
    linked: Vec<Uuid>,
) {
    let changed_containers: std::collections::HashSet<Uuid> =
        changes.containers.iter().copied().collect();
    let changed_shipments: std::collections::HashSet<Uuid> =
        changes.shipments.iter().copied().collect();
    let containers: Vec<ChangedContainer> = derived
        .iter()
        .filter(|c| {
            changed_containers.contains(&c.id) || changed_shipments.contains(&c.shipment_id)
        })
        .map(|c| ChangedContainer {
            id: c.id,
            shipment_id: c.shipment_id,
        })
        .collect();
    let updates = [
        Update {
            account,
            change: Change::Containers { containers },
        },
        Update {
            account,
            change: Change::TrackingRequests { ids: linked },
        },
    ];
    for update in &updates {
        if let Err(e) = store.notifier().publish(update).await {
            tracing::warn!(error = %e, "ingest: change notification not sent");
        }
    }
}

fn deliver(local: &broadcast::Sender<Arc<Update>>, payload: &str) {
    match serde_json::from_str::<Update>(payload) {
        // No subscriber is not an error.
        Ok(update) => {
            let _ = local.send(Arc::new(update));
        }
        Err(e) => tracing::warn!(error = %e, "ignoring a malformed change notification"),
    }
}

/// Forwards notifications until the store's pool closes (`Store::close`). `PgListener::recv`
/// reconnects by itself after a lost connection (notifications sent in the gap are lost).
async fn pg_forward(mut listener: PgListener, local: broadcast::Sender<Arc<Update>>) {
    loop {
        match listener.recv().await {
            Ok(n) => deliver(&local, n.payload()),
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::warn!(error = %e, "change listener: connection lost; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Polls the SQLite `updates` table for rows after `last` until `pool` closes
/// (`Store::close`).
async fn sqlite_poll(pool: SqlitePool, mut last: i64, local: broadcast::Sender<Arc<Update>>) {
    let mut tick = tokio::time::interval(POLL_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let rows = sqlx::query("SELECT id, payload FROM updates WHERE id > $1 ORDER BY id")
            .bind(last)
            .fetch_all(&pool)
            .await;
        let rows = match rows {
            Ok(rows) => rows,
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::warn!(error = %e, "change poller: reading updates failed");
                continue;
            }
        };
        for row in rows {
            let (Ok(id), Ok(payload)) = (
                row.try_get::<i64, _>("id"),
                row.try_get::<String, _>("payload"),
            ) else {
                tracing::warn!("change poller: unreadable updates row");
                continue;
            };
            last = last.max(id);
            deliver(&local, &payload);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_poller_ends_when_its_pool_closes() {
        use std::str::FromStr;
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite:{}", dir.path().join("updates.db").display());
        let options = sqlx::sqlite::SqliteConnectOptions::from_str(&url)
            .expect("url")
            .create_if_missing(true);
        let pool = SqlitePool::connect_with(options).await.expect("open");
        sqlx::query(
            "CREATE TABLE updates (id INTEGER PRIMARY KEY, created_at INTEGER, payload TEXT)",
        )
        .execute(&pool)
        .await
        .expect("table");
        let (local, _) = broadcast::channel(4);
        let poller = tokio::spawn(sqlite_poll(pool.clone(), 0, local));
        tokio::time::sleep(POLL_INTERVAL * 2).await;
        assert!(
            !poller.is_finished(),
            "the poller polls while the pool is open"
        );
        pool.close().await;
        tokio::time::timeout(POLL_INTERVAL * 20, poller)
            .await
            .expect("the poller ends after its pool closed")
            .expect("the poller does not panic");
    }

    #[test]
    fn chunks_stay_under_the_postgres_limit() {
        let account = Uuid::new_v4();
        let containers: Vec<_> = (0..1000)
            .map(|_| ChangedContainer {
                id: Uuid::new_v4(),
                shipment_id: Uuid::new_v4(),
            })
            .collect();
        let update = Update {
            account,
            change: Change::Containers {
                containers: containers.clone(),
            },
        };
        let chunks = update.chunks();
        assert_eq!(chunks.len(), 1000_usize.div_ceil(CONTAINERS_PER_UPDATE));
        let mut back = Vec::new();
        for c in &chunks {
            let json = serde_json::to_string(c).expect("encode");
            assert!(json.len() < MAX_PAYLOAD, "{} bytes", json.len());
            let decoded: Update = serde_json::from_str(&json).expect("decode");
            assert_eq!(decoded.account, account);
            let Change::Containers { containers } = decoded.change else {
                panic!("kind");
            };
            back.extend(containers);
        }
        assert_eq!(back, containers);

        let ids: Vec<_> = (0..1000).map(|_| Uuid::new_v4()).collect();
        let update = Update {
            account,
            change: Change::TrackingRequests { ids },
        };
        for c in update.chunks() {
            assert!(serde_json::to_string(&c).expect("encode").len() < MAX_PAYLOAD);
        }
        let empty = Update {
            account,
            change: Change::TrackingRequests { ids: vec![] },
        };
        assert!(empty.chunks().is_empty());
    }
}
