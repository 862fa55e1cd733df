//! Stored webhooks: create, read, update, delete, always within one account.

use uuid::Uuid;

use super::{from_json, now, record_id, record_time, Result, Store, StoreError};
use crate::db::{RecordId, RecordTime};
use teu_domain::webhooks::{new_secret, InvalidWebhook, Webhook, WebhookAttributes, WebhookHeader};

/// Webhook failures of the store's webhook methods.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// An attribute broke a rule (nothing was stored).
    #[error(transparent)]
    Invalid(#[from] InvalidWebhook),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

const COLUMNS: &str =
    "id, account_id, url, active, events, headers, secret, created_at, updated_at";

fn from_row(row: &crate::db::DbRow) -> Result<Webhook> {
    let id = record_id(row, "id", "webhook")?;
    let events: String = row.try_get("events")?;
    let headers: String = row.try_get("headers")?;
    let name = id.to_string();
    Ok(Webhook {
        id,
        account_id: record_id(row, "account_id", "webhook")?,
        url: row.try_get("url")?,
        active: row.try_get::<i64, _>("active")? != 0,
        events: from_json(&events, "webhook", &name)?,
        headers: from_json::<Vec<WebhookHeader>>(&headers, "webhook", &name)?,
        secret: row.try_get("secret")?,
        created_at: record_time(row, "created_at")?,
        updated_at: record_time(row, "updated_at")?,
    })
}

fn to_json<T: serde::Serialize>(t: &T) -> String {
    // Vec<String> and Vec<WebhookHeader> always serialize.
    serde_json::to_string(t).unwrap_or_else(|_| "[]".into())
}

impl Store {
    /// Creates a webhook from checked attributes ([`WebhookAttributes::check`]): `active`
    /// defaults to true, `events` to every emitted event, `headers` to none; a new random
    /// secret.
    ///
    /// # Errors
    ///
    /// [`WebhookError::Invalid`] for a bad attribute (nothing stored), [`WebhookError::Store`]
    /// when the store fails.
    pub async fn create_webhook(
        &self,
        account: Uuid,
        attributes: WebhookAttributes,
    ) -> std::result::Result<Webhook, WebhookError> {
        attributes.check(true)?;
        let at = now();
        let hook = Webhook {
            id: Uuid::new_v4(),
            account_id: account,
            url: attributes.url.unwrap_or_default(),
            active: attributes.active.unwrap_or(true),
            events: attributes
                .events
                .unwrap_or_else(teu_domain::webhooks::default_events),
            headers: attributes.headers.unwrap_or_default(),
            secret: new_secret(),
            created_at: at,
            updated_at: at,
        };
        crate::db::query(&format!(
            "INSERT INTO webhooks ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)"
        ))
        .bind(RecordId(hook.id))
        .bind(RecordId(account))
        .bind(&hook.url)
        .bind(i64::from(hook.active))
        .bind(to_json(&hook.events))
        .bind(to_json(&hook.headers))
        .bind(&hook.secret)
        .bind(RecordTime(at))
        .execute(self.writer())
        .await
        .map_err(StoreError::from)?;
        Ok(hook)
    }

    /// One page of the account's webhooks, newest first, and their total.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable row.
    pub async fn list_webhooks(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Webhook>, i64)> {
        let total: i64 =
            crate::db::query("SELECT COUNT(*) AS n FROM webhooks WHERE account_id = $1")
                .bind(RecordId(account))
                .fetch_one(self.pool())
                .await?
                .try_get("n")?;
        let rows = crate::db::query(&format!(
            "SELECT {COLUMNS} FROM webhooks WHERE account_id = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        ))
        .bind(RecordId(account))
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await?;
        Ok((rows.iter().map(from_row).collect::<Result<_>>()?, total))
    }

    /// One of the account's webhooks (`None` for an unknown id or another account's).
    ///
    /// # Errors
    ///
    /// As [`Store::list_webhooks`].
    pub async fn webhook(&self, account: Uuid, id: Uuid) -> Result<Option<Webhook>> {
        crate::db::query(&format!(
            "SELECT {COLUMNS} FROM webhooks WHERE account_id = $1 AND id = $2"
        ))
        .bind(RecordId(account))
        .bind(RecordId(id))
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
    }

    /// The account's webhooks among `ids` (unknown and other accounts' ids are left out), in
    /// no particular order.
    ///
    /// # Errors
    ///
    /// As [`Store::list_webhooks`].
    pub async fn webhooks_by_ids(&self, account: Uuid, ids: &[Uuid]) -> Result<Vec<Webhook>> {
        self.select_in(
            &format!("SELECT {COLUMNS} FROM webhooks WHERE account_id = $1 AND id IN"),
            account,
            ids,
            from_row,
        )
        .await
    }

    /// Replaces the present attributes of one of the account's webhooks; `None` when there is
    /// no such webhook. The secret never changes.
    ///
    /// # Errors
    ///
    /// As [`Store::create_webhook`].
    pub async fn update_webhook(
        &self,
        account: Uuid,
        id: Uuid,
        attributes: WebhookAttributes,
    ) -> std::result::Result<Option<Webhook>, WebhookError> {
        attributes.check(false)?;
        let Some(mut hook) = self.webhook(account, id).await? else {
            return Ok(None);
        };
        if let Some(url) = attributes.url {
            hook.url = url;
        }
        if let Some(active) = attributes.active {
            hook.active = active;
        }
        if let Some(events) = attributes.events {
            hook.events = events;
        }
        if let Some(headers) = attributes.headers {
            hook.headers = headers;
        }
        hook.updated_at = now();
        crate::db::query(
            "UPDATE webhooks SET url = $3, active = $4, events = $5, headers = $6, updated_at = $7 \
             WHERE account_id = $1 AND id = $2",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .bind(&hook.url)
        .bind(i64::from(hook.active))
        .bind(to_json(&hook.events))
        .bind(to_json(&hook.headers))
        .bind(RecordTime(hook.updated_at))
        .execute(self.writer())
        .await
        .map_err(StoreError::from)?;
        Ok(Some(hook))
    }

    /// Deletes one of the account's webhooks; its pending notifications become `failed` (with
    /// `last_error` saying why) and are not delivered. Returns whether it existed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn delete_webhook(&self, account: Uuid, id: Uuid) -> Result<bool> {
        let mut tx = self.writer().begin().await?;
        let deleted = crate::db::query("DELETE FROM webhooks WHERE account_id = $1 AND id = $2")
            .bind(RecordId(account))
            .bind(RecordId(id))
            .execute(&mut tx)
            .await?
            .rows_affected();
        if deleted > 0 {
            crate::db::query(
                "UPDATE webhook_notifications SET delivery_status = 'failed', \
                 last_error = 'the webhook was deleted', locked_until = NULL \
                 WHERE account_id = $1 AND webhook_id = $2 AND delivery_status = 'pending'",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
            .execute(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(deleted > 0)
    }

    /// The secret, URL and headers of a webhook by id alone, for the delivery workers (which
    /// serve every account). `None` when it was deleted.
    ///
    /// # Errors
    ///
    /// As [`Store::list_webhooks`].
    pub async fn webhook_for_delivery(&self, id: Uuid) -> Result<Option<Webhook>> {
        crate::db::query(&format!("SELECT {COLUMNS} FROM webhooks WHERE id = $1"))
            .bind(RecordId(id))
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(from_row)
            .transpose()
    }
}
