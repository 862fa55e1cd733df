//! Tracking requests: numbers an account asked teu to track (`POST /v2/tracking_requests`).
//!
//! A request is stored `pending`; [`Store::link_tracking_requests`] (run after every ingest)
//! moves it to `created` and sets its shipment once feed data for the number is stored: a
//! container request matches a stored container number, a bill of lading or booking request a
//! shipment's `bill_of_lading_number`. The id is a UUID v5 of (account, request type, number,
//! SCAC), so asking twice for the same number gives the same request.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;
use uuid::Uuid;

use crate::ids;
use crate::store::{now, ts, Result, Store, StoreError};

/// `pending`: no feed data for the number yet.
pub const PENDING: &str = "pending";
/// `created`: feed data arrived; `shipment_id` is set.
pub const CREATED: &str = "created";

/// One stored tracking request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrackingRequest {
    /// UUID v5 of (account, request type, number, SCAC).
    pub id: Uuid,
    /// The number to track, normalized (upper case, no spaces or dashes).
    pub request_number: String,
    /// `container`, `bill_of_lading` or `booking`.
    pub request_type: String,
    /// The shipping line's SCAC.
    pub scac: String,
    /// [`PENDING`] or [`CREATED`].
    pub status: String,
    /// The shipment the number belongs to, once known.
    pub shipment_id: Option<Uuid>,
    /// When the request was first made (UTC).
    pub created_at: DateTime<Utc>,
    /// When it last changed (UTC).
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "id, request_number, request_type, scac, status, shipment_id, created_at, updated_at";

fn from_row(row: &sqlx::any::AnyRow) -> Result<TrackingRequest> {
    let corrupt = |detail: String| StoreError::Corrupt {
        what: "tracking request",
        id: row.try_get::<String, _>("id").unwrap_or_default(),
        detail,
    };
    let uuid = |s: String| Uuid::parse_str(&s).map_err(|e| corrupt(e.to_string()));
    let time = |s: String| {
        DateTime::parse_from_rfc3339(&s)
            .map(|d| d.with_timezone(&Utc))
            .map_err(|e| corrupt(e.to_string()))
    };
    Ok(TrackingRequest {
        id: uuid(row.try_get("id")?)?,
        request_number: row.try_get("request_number")?,
        request_type: row.try_get("request_type")?,
        scac: row.try_get("scac")?,
        status: row.try_get("status")?,
        shipment_id: row
            .try_get::<Option<String>, _>("shipment_id")?
            .map(uuid)
            .transpose()?,
        created_at: time(row.try_get("created_at")?)?,
        updated_at: time(row.try_get("updated_at")?)?,
    })
}

impl Store {
    /// Stores a tracking request (or finds the same one made before), links it when the
    /// number's data is already stored, and returns it.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn create_tracking_request(
        &self,
        account: Uuid,
        request_number: &str,
        request_type: &str,
        scac: &str,
    ) -> Result<TrackingRequest> {
        let id = ids::scoped(
            account,
            "tracking_request",
            &[request_type, request_number, scac],
        );
        let at = ts(now());
        sqlx::query(
            "INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, \
             status, shipment_id, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $7) ON CONFLICT (id) DO NOTHING",
        )
        .bind(id.to_string())
        .bind(account.to_string())
        .bind(request_number)
        .bind(request_type)
        .bind(scac)
        .bind(PENDING)
        .bind(&at)
        .execute(self.pool())
        .await?;
        self.link_tracking_requests(account).await?;
        self.tracking_request(account, id)
            .await?
            .ok_or_else(|| StoreError::Corrupt {
                what: "tracking request",
                id: id.to_string(),
                detail: "not found right after it was stored".into(),
            })
    }

    /// Moves the account's pending requests whose number now has stored data to `created`,
    /// with the shipment id (module documentation). Returns how many changed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails.
    pub async fn link_tracking_requests(&self, account: Uuid) -> Result<u64> {
        let shipment = "COALESCE(\
             (SELECT c.shipment_id FROM containers c WHERE c.account_id = tracking_requests.account_id \
              AND tracking_requests.request_type = 'container' \
              AND c.number = tracking_requests.request_number ORDER BY c.id LIMIT 1), \
             (SELECT s.id FROM shipments s WHERE s.account_id = tracking_requests.account_id \
              AND tracking_requests.request_type <> 'container' \
              AND s.bill_of_lading_number = tracking_requests.request_number ORDER BY s.id LIMIT 1))";
        let sql = format!(
            "UPDATE tracking_requests SET status = $2, updated_at = $3, shipment_id = {shipment} \
             WHERE account_id = $1 AND status = $4 AND {shipment} IS NOT NULL"
        );
        let done = sqlx::query(&sql)
            .bind(account.to_string())
            .bind(CREATED)
            .bind(ts(now()))
            .bind(PENDING)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    /// The account's tracking requests, newest first.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable row.
    pub async fn list_tracking_requests(&self, account: Uuid) -> Result<Vec<TrackingRequest>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tracking_requests WHERE account_id = $1 \
             ORDER BY created_at DESC, id DESC"
        );
        sqlx::query(&sql)
            .bind(account.to_string())
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(from_row)
            .collect()
    }

    /// One of the account's tracking requests (`None` for another account's id).
    ///
    /// # Errors
    ///
    /// As [`Store::list_tracking_requests`].
    pub async fn tracking_request(
        &self,
        account: Uuid,
        id: Uuid,
    ) -> Result<Option<TrackingRequest>> {
        let sql =
            format!("SELECT {COLUMNS} FROM tracking_requests WHERE account_id = $1 AND id = $2");
        sqlx::query(&sql)
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(from_row)
            .transpose()
    }
}
