//! The notification outbox's SQL: rows written in the ingest's own transaction
//! ([`enqueue`]), claimed by delivery workers with a lease ([`Store::claim_notifications`]),
//! and settled after each attempt ([`Store::settle_notifications`]). Retry policy and the
//! exchanged types: [`teu_domain::webhooks::outbox`].
//!
//! A claim sets `locked_until` (the lease) and counts the attempt. A worker that dies mid-way
//! leaves the lease to run out, and the next claim after it takes the row again with the same
//! id (the idempotency key), so nothing is lost and a receiver may see a notification twice.
//! On PostgreSQL the claim locks rows with `FOR UPDATE SKIP LOCKED`, so several servers on one
//! database never claim the same row; SQLite serializes writers, so its one `UPDATE … RETURNING`
//! is already exclusive.

use std::sync::atomic::Ordering;
use std::time::Duration;

use uuid::Uuid;

use super::{
    from_json, now, record_id, record_id_or_null, record_time, Backend, Result, Store, StoreError,
};
use crate::db::{Arg, Bind, RecordId, RecordTime};
use teu_domain::webhooks::outbox::{Attempt, NotificationFilter, RetryPolicy, Settlement};
use teu_domain::webhooks::rules::{Detail, Emission};
use teu_domain::webhooks::{DeliveryStatus, Notification};

/// Active webhooks of an account with the events each subscribes to.
pub(crate) async fn subscriptions(
    conn: &mut crate::db::Conn,
    account: Uuid,
) -> Result<Vec<(Uuid, Vec<String>)>> {
    let rows =
        crate::db::query("SELECT id, events FROM webhooks WHERE account_id = $1 AND active = 1")
            .bind(RecordId(account))
            .fetch_all(&mut *conn)
            .await?;
    rows.iter()
        .map(|r| {
            let id = record_id(r, "id", "webhook")?;
            let events: Vec<String> = from_json(
                &r.try_get::<String, _>("events")?,
                "webhook",
                id.to_string(),
            )?;
            Ok((id, events))
        })
        .collect()
}

/// Writes one notification per (subscribed webhook, emission) on `conn` (the caller's
/// transaction), `rows_per_statement` rows per INSERT (`Store::rows_per_statement` of its 12
/// parameters: on SQLite a statement of thousands of parameters costs the square of them in
/// sqlx's parameter-name lookup). Returns how many.
pub(crate) async fn enqueue(
    conn: &mut crate::db::Conn,
    account: Uuid,
    subscriptions: &[(Uuid, Vec<String>)],
    emissions: &[Emission],
    rows_per_statement: usize,
) -> Result<usize> {
    let at = RecordTime(now());
    let mut rows = Vec::new();
    for e in emissions {
        for (hook, events) in subscriptions {
            if events.iter().any(|n| n == e.event) {
                rows.push((hook, e));
            }
        }
    }
    const WIDTH: usize = 12;
    for chunk in rows.chunks(rows_per_statement.max(1)) {
        let sql = format!(
            "INSERT INTO webhook_notifications (id, account_id, webhook_id, event, reference_type, \
             reference_id, container_id, shipment_id, tracking_request_id, detail, created_at, \
             next_attempt_at, delivery_status, attempts) VALUES {}",
            (0..chunk.len())
                .map(|i| {
                    let b = i * WIDTH;
                    format!(
                        "(${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, 'pending', 0)",
                        b + 1,
                        b + 2,
                        b + 3,
                        b + 4,
                        b + 5,
                        b + 6,
                        b + 7,
                        b + 8,
                        b + 9,
                        b + 10,
                        b + 11,
                        b + 12
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut q = crate::db::query(&sql);
        for (hook, e) in chunk {
            // UUID v7 (RFC 9562: time-ordered, random below the millisecond): new rows go at the
            // end of the primary-key and list indexes instead of at random places in them.
            q = q
                .bind(RecordId(Uuid::now_v7()))
                .bind(RecordId(account))
                .bind(RecordId(**hook))
                .bind(e.event)
                .bind(e.reference_type)
                .bind(RecordId(e.reference_id))
                .bind(e.container_id.map(RecordId))
                .bind(e.shipment_id.map(RecordId))
                .bind(e.tracking_request_id.map(RecordId))
                .bind(serde_json::to_string(&e.detail).unwrap_or_else(|_| "{}".into()))
                .bind(at)
                .bind(at);
        }
        q.execute(&mut *conn).await?;
    }
    Ok(rows.len())
}

const COLUMNS: &str = "id, account_id, webhook_id, event, reference_type, reference_id, \
     container_id, shipment_id, tracking_request_id, detail, body, delivery_status, attempts, \
     next_attempt_at, last_status_code, last_error, created_at, delivered_at";

fn from_row(row: &crate::db::DbRow) -> Result<Notification> {
    const WHAT: &str = "webhook notification";
    let id = record_id(row, "id", WHAT)?;
    let status: String = row.try_get("delivery_status")?;
    Ok(Notification {
        id,
        account_id: record_id(row, "account_id", WHAT)?,
        webhook_id: record_id(row, "webhook_id", WHAT)?,
        event: row.try_get("event")?,
        reference_type: row.try_get("reference_type")?,
        reference_id: record_id(row, "reference_id", WHAT)?,
        container_id: record_id_or_null(row, "container_id", WHAT)?,
        shipment_id: record_id_or_null(row, "shipment_id", WHAT)?,
        tracking_request_id: record_id_or_null(row, "tracking_request_id", WHAT)?,
        detail: from_json::<Detail>(&row.try_get::<String, _>("detail")?, WHAT, &id.to_string())?,
        body: row.try_get("body")?,
        delivery_status: DeliveryStatus::parse(&status).ok_or_else(|| StoreError::Corrupt {
            what: WHAT,
            id: id.to_string(),
            detail: format!("unknown delivery_status {status:?}"),
        })?,
        attempts: row.try_get("attempts")?,
        next_attempt_at: record_time(row, "next_attempt_at")?,
        last_status_code: row.try_get("last_status_code")?,
        last_error: row.try_get("last_error")?,
        created_at: record_time(row, "created_at")?,
        delivered_at: row.record_time_or_null("delivered_at")?,
    })
}

impl Store {
    /// Claims up to `limit` due notifications (pending, `next_attempt_at` reached, no live
    /// lease) for `lease`: counts the attempt and returns them, oldest due first. Other
    /// workers skip them until the lease runs out.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails, [`StoreError::Corrupt`] on an unreadable
    /// row.
    pub async fn claim_notifications(
        &self,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<Notification>> {
        self.claim_notifications_except(limit, lease, &[]).await
    }

    /// [`Store::claim_notifications`] without the notifications of the webhooks in `skip`
    /// (those with as many deliveries under way as a worker allows), so that a slow receiver's
    /// backlog is not claimed, handed back and claimed again while other webhooks wait.
    ///
    /// # Errors
    ///
    /// As [`Store::claim_notifications`].
    pub async fn claim_notifications_except(
        &self,
        limit: i64,
        lease: Duration,
        skip: &[Uuid],
    ) -> Result<Vec<Notification>> {
        self.claim_notifications_within(limit, lease, &|w| {
            if skip.contains(&w) {
                0
            } else {
                limit
            }
        })
        .await
    }

    /// [`Store::claim_notifications`] taking at most `room(webhook)` notifications of each
    /// webhook (0 leaves a webhook out), `limit` in all: a delivery worker passes the free
    /// places of each webhook's queue, so it never claims what it would have to hand back.
    ///
    /// # Errors
    ///
    /// As [`Store::claim_notifications`].
    pub async fn claim_notifications_within(
        &self,
        limit: i64,
        lease: Duration,
        room: &(dyn Fn(Uuid) -> i64 + Sync),
    ) -> Result<Vec<Notification>> {
        let at = now();
        // The webhooks with a notification due now, each found by one seek into the index
        // `(delivery_status, webhook_id, next_attempt_at)`: no claim reads another webhook's
        // backlog, so a hanging receiver's queue costs the others nothing.
        // PostgreSQL gets the probe as a LATERAL … LIMIT 1: with EXISTS its planner, whose
        // statistics lag a bulk ingest, hashed every due row of every webhook on each claim
        // (seen at 108 deliveries/s on the bench). SQLite runs EXISTS as that probe already.
        let probe = "SELECT 1 FROM webhook_notifications n \
             WHERE n.delivery_status = 'pending' AND n.webhook_id = w.id \
             AND n.next_attempt_at <= $1 AND (n.locked_until IS NULL OR n.locked_until <= $1)";
        let sql = match self.backend() {
            Backend::Postgres => {
                format!("SELECT w.id FROM webhooks w CROSS JOIN LATERAL ({probe} LIMIT 1) d")
            }
            Backend::Sqlite => format!("SELECT w.id FROM webhooks w WHERE EXISTS ({probe})"),
        };
        let due: Vec<Uuid> = crate::db::query(&sql)
            .bind(RecordTime(at))
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| record_id(r, "id", "webhook"))
            .collect::<Result<_>>()?;
        let mut due: Vec<(Uuid, i64)> = due
            .into_iter()
            .map(|w| (w, room(w)))
            .filter(|(_, room)| *room > 0)
            .collect();
        if due.is_empty() {
            return Ok(Vec::new());
        }
        // Start at another webhook each claim, so that one webhook's backlog cannot take every
        // claim's whole limit while the others wait.
        let turn = self.claim_turn.fetch_add(1, Ordering::Relaxed) as usize % due.len();
        due.rotate_left(turn);
        let until = at + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
        let lock = match self.backend() {
            Backend::Postgres => "FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE webhook_notifications SET locked_until = $1, attempts = attempts + 1 \
             WHERE id IN (SELECT id FROM webhook_notifications WHERE delivery_status = 'pending' \
             AND webhook_id = $4 AND next_attempt_at <= $2 \
             AND (locked_until IS NULL OR locked_until <= $2) \
             ORDER BY next_attempt_at LIMIT $3 {lock}) RETURNING {COLUMNS}"
        );
        let mut out = Vec::new();
        for (hook, hook_room) in &due {
            let left = limit - out.len() as i64;
            if left <= 0 {
                break;
            }
            let room = left.min(*hook_room);
            let rows = crate::db::query(&sql)
                .bind(RecordTime(until))
                .bind(RecordTime(at))
                .bind(room)
                .bind(RecordId(*hook))
                .fetch_all(self.pool())
                .await?;
            for r in &rows {
                out.push(from_row(r)?);
            }
        }
        out.sort_by_key(|n| n.next_attempt_at);
        Ok(out)
    }

    /// Gives back a claimed notification without attempting it (its webhook already has as
    /// many deliveries under way as a worker runs at once): the claim's attempt is not counted
    /// and the notification is due again after `delay`, so other webhooks' notifications are
    /// claimed first.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails.
    pub async fn release_notification(&self, id: Uuid, delay: Duration) -> Result<()> {
        self.release_notifications(&[id], delay).await
    }

    /// [`Store::release_notification`] for many notifications in one statement per 500.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn release_notifications(&self, ids: &[Uuid], delay: Duration) -> Result<()> {
        let at = now() + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX);
        for chunk in ids.chunks(self.rows_per_statement(1)) {
            let params: Vec<String> = (2..chunk.len() + 2).map(|i| format!("${i}")).collect();
            let sql = format!(
                "UPDATE webhook_notifications SET locked_until = NULL, attempts = attempts - 1, \
                 next_attempt_at = $1 WHERE id IN ({}) AND delivery_status = 'pending'",
                params.join(", ")
            );
            let mut q = crate::db::query(&sql).bind(RecordTime(at));
            for id in chunk {
                q = q.bind(RecordId(*id));
            }
            q.execute(self.writer()).await?;
        }
        Ok(())
    }

    /// Records how an attempt ended: `succeeded`; or, after a failure, `pending` again with the
    /// next attempt [`RetryPolicy::delay`] later, or `failed` when `attempts` (already counted
    /// by the claim) reached the policy's limit. Releases the lease. `body` is the payload the
    /// attempt sent: kept unless one is stored already, so every later attempt sends the same
    /// bytes (a worker that dies between sending and settling leaves none, and the next attempt
    /// renders it again). Returns the notification's new status.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails.
    pub async fn settle_notification(
        &self,
        notification: &Notification,
        attempt: &Attempt,
        policy: &RetryPolicy,
        body: Option<&str>,
    ) -> Result<DeliveryStatus> {
        let settled = [Settlement {
            notification: notification.clone(),
            attempt: attempt.clone(),
            body: body.map(str::to_string),
        }];
        Ok(self.settle_notifications(&settled, policy).await?[0])
    }

    /// [`Store::settle_notification`] for many attempts in one transaction (the delivery
    /// workers settle what finished together). Returns each one's new status, in order.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails; then none of them is recorded (their leases
    /// run out and they are attempted again).
    pub async fn settle_notifications(
        &self,
        settled: &[Settlement],
        policy: &RetryPolicy,
    ) -> Result<Vec<DeliveryStatus>> {
        let at = now();
        let mut statuses = Vec::with_capacity(settled.len());
        let mut tx = self.writer().begin().await?;
        for Settlement {
            notification,
            attempt,
            body,
        } in settled
        {
            let (status, code, error, next, delivered) = match attempt {
                Attempt::Delivered { status } => (
                    DeliveryStatus::Succeeded,
                    Some(i64::from(*status)),
                    None,
                    at,
                    Some(RecordTime(at)),
                ),
                Attempt::Failed { status, error } => {
                    let last = notification.attempts >= policy.max_attempts;
                    let delay = chrono::Duration::from_std(policy.delay(notification.attempts))
                        .unwrap_or(chrono::Duration::MAX);
                    (
                        if last {
                            DeliveryStatus::Failed
                        } else {
                            DeliveryStatus::Pending
                        },
                        status.map(i64::from),
                        Some(error.clone()),
                        at + delay,
                        None,
                    )
                }
            };
            crate::db::query(
                "UPDATE webhook_notifications SET delivery_status = $2, last_status_code = $3, \
                 last_error = $4, next_attempt_at = $5, delivered_at = $6, locked_until = NULL, \
                 body = COALESCE(body, $7) WHERE id = $1 AND delivery_status = 'pending'",
            )
            .bind(RecordId(notification.id))
            .bind(status.as_str())
            .bind(code)
            .bind(error)
            .bind(RecordTime(next))
            .bind(delivered)
            .bind(body.as_deref())
            .execute(&mut tx)
            .await?;
            statuses.push(status);
        }
        tx.commit().await?;
        Ok(statuses)
    }

    /// One page of the account's notifications, newest first, and their total.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable row.
    pub async fn list_notifications(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Notification>, i64)> {
        self.list_notifications_filtered(account, &NotificationFilter::default(), offset, limit)
            .await
    }

    /// One page of the account's notifications that match every field `filter` gives, newest
    /// first, and the number of matches.
    ///
    /// # Errors
    ///
    /// As [`Store::list_notifications`].
    pub async fn list_notifications_filtered(
        &self,
        account: Uuid,
        filter: &NotificationFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Notification>, i64)> {
        // The filter's values, each in its column's bound form.
        let mut clause = String::from("account_id = $1");
        let mut binds = vec![RecordId(account).arg()];
        let mut add = |column: &str, value: Arg<'static>| {
            binds.push(value);
            clause.push_str(&format!(" AND {column} = ${}", binds.len()));
        };
        if let Some(w) = filter.webhook_id {
            add("webhook_id", RecordId(w).arg());
        }
        if let Some(e) = &filter.event {
            add("event", e.clone().arg());
        }
        if let Some(d) = filter.delivery_status {
            add("delivery_status", d.as_str().arg());
        }
        if let Some(c) = filter.container_id {
            add("container_id", RecordId(c).arg());
        }
        let count = format!("SELECT COUNT(*) AS n FROM webhook_notifications WHERE {clause}");
        let q = crate::db::query(&count).bind_args(binds.iter().map(Arg::borrowed));
        let total: i64 = q.fetch_one(self.pool()).await?.try_get("n")?;
        let select = format!(
            "SELECT {COLUMNS} FROM webhook_notifications WHERE {clause} \
             ORDER BY created_at DESC, id DESC LIMIT ${} OFFSET ${}",
            binds.len() + 1,
            binds.len() + 2
        );
        let q = crate::db::query(&select).bind_args(binds.iter().map(Arg::borrowed));
        let rows = q.bind(limit).bind(offset).fetch_all(self.pool()).await?;
        Ok((rows.iter().map(from_row).collect::<Result<_>>()?, total))
    }

    /// One of the account's notifications (`None` for an unknown id or another account's).
    ///
    /// # Errors
    ///
    /// As [`Store::list_notifications`].
    pub async fn notification(&self, account: Uuid, id: Uuid) -> Result<Option<Notification>> {
        crate::db::query(&format!(
            "SELECT {COLUMNS} FROM webhook_notifications WHERE account_id = $1 AND id = $2"
        ))
        .bind(RecordId(account))
        .bind(RecordId(id))
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
    }

    /// Pending notifications whose next attempt is due now, over every account (`teu deliver
    /// --drain` stops at 0).
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query.
    pub async fn due_notification_count(&self) -> Result<i64> {
        Ok(crate::db::query(
            "SELECT COUNT(*) AS n FROM webhook_notifications WHERE delivery_status = 'pending' \
             AND next_attempt_at <= $1",
        )
        .bind(RecordTime(now()))
        .fetch_one(self.pool())
        .await?
        .try_get("n")?)
    }

    /// Notifications per delivery status, over every account (`teu deliver` progress and the
    /// delivery benchmark).
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query.
    pub async fn notification_counts(&self) -> Result<Vec<(String, i64)>> {
        let rows = crate::db::query(
            "SELECT delivery_status, COUNT(*) AS n FROM webhook_notifications \
             GROUP BY delivery_status ORDER BY delivery_status",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("delivery_status")?, r.try_get("n")?)))
            .collect()
    }
}
