//! Tracking requests: numbers an account asked teu to track (`POST /v2/tracking_requests`).
//!
//! A request is stored `pending`; [`Store::link_tracking_requests`] (run after every ingest)
//! moves it to `created` and sets its shipment once feed data for the number is stored: a
//! container request matches a stored container number, a bill of lading or booking request a
//! shipment's `bill_of_lading_number`. The id is a UUID v5 of (account, request type, number,
//! SCAC), so asking twice for the same number gives the same request.
//!
//! Both APIs create requests through [`Store::submit_tracking_request`], which validates the
//! three attributes with [`NewTrackingRequest::parse`] (the one set of rules, table there) and
//! stores the request; `/v2` maps a [`TrackingRequestError::Invalid`] to a 422 with
//! `source.pointer`, GraphQL to a `BAD_USER_INPUT` error naming the field.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;
use uuid::Uuid;

use crate::ids;
use crate::infer::NumberType;
use crate::iso6346;
use crate::store::{now, ts, Result, Store, StoreError};

/// Longest accepted `request_number` (normalized).
pub const MAX_REQUEST_NUMBER_LEN: usize = 40;

/// An attribute of a tracking request, for error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestField {
    /// `request_number`.
    RequestNumber,
    /// `request_type`.
    RequestType,
    /// `scac`.
    Scac,
}

impl RequestField {
    /// The `/v2` attribute name: `request_number`, `request_type`, `scac`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestField::RequestNumber => "request_number",
            RequestField::RequestType => "request_type",
            RequestField::Scac => "scac",
        }
    }

    /// The GraphQL input field name: `requestNumber`, `requestType`, `scac`.
    pub fn camel_case(self) -> &'static str {
        match self {
            RequestField::RequestNumber => "requestNumber",
            RequestField::RequestType => "requestType",
            RequestField::Scac => "scac",
        }
    }
}

/// Why a tracking request was not stored.
#[derive(Debug, thiserror::Error)]
pub enum TrackingRequestError {
    /// An attribute breaks a rule of [`NewTrackingRequest::parse`]; `problem` completes a
    /// sentence that starts with the field's name (`"is required"`).
    #[error("{} {problem}", field.as_str())]
    Invalid {
        /// The attribute at fault.
        field: RequestField,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The validated attributes of a new tracking request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTrackingRequest {
    /// Normalized ([`iso6346::normalize`]): upper case, no spaces, dashes, dots or slashes.
    pub request_number: String,
    /// Container, bill of lading or booking.
    pub request_type: NumberType,
    /// Upper case SCAC.
    pub scac: String,
}

impl NewTrackingRequest {
    /// Checks the attributes as given by a client, in this order (the first failure is
    /// reported):
    ///
    /// | field | rule | problem |
    /// |---|---|---|
    /// | `request_number` | not blank | is required |
    /// | `request_number` | after normalization, 1 to [`MAX_REQUEST_NUMBER_LEN`] ASCII letters and digits | must be letters and digits (at most 40) |
    /// | `request_type` | not blank | is required |
    /// | `request_type` | `container`, `bill_of_lading` or `booking` | must be container, bill_of_lading or booking |
    /// | `scac` | not blank | is required |
    /// | `scac` | 2 to 4 ASCII letters (any case; stored upper case) | must be a SCAC: 2 to 4 letters |
    ///
    /// Surrounding blanks are ignored.
    ///
    /// # Errors
    ///
    /// [`TrackingRequestError::Invalid`] naming the field.
    pub fn parse(
        request_number: &str,
        request_type: &str,
        scac: &str,
    ) -> std::result::Result<NewTrackingRequest, TrackingRequestError> {
        let invalid = |field, problem| TrackingRequestError::Invalid { field, problem };
        let required = |field, value: &str| {
            if value.trim().is_empty() {
                Err(invalid(field, "is required"))
            } else {
                Ok(value.trim().to_string())
            }
        };
        let number = iso6346::normalize(&required(RequestField::RequestNumber, request_number)?);
        if number.is_empty()
            || number.len() > MAX_REQUEST_NUMBER_LEN
            || !number.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(invalid(
                RequestField::RequestNumber,
                "must be letters and digits (at most 40)",
            ));
        }
        let kind = required(RequestField::RequestType, request_type)?;
        let request_type = NumberType::parse(&kind).ok_or_else(|| {
            invalid(
                RequestField::RequestType,
                "must be container, bill_of_lading or booking",
            )
        })?;
        let scac = required(RequestField::Scac, scac)?.to_ascii_uppercase();
        if !(2..=4).contains(&scac.len()) || !scac.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(invalid(
                RequestField::Scac,
                "must be a SCAC: 2 to 4 letters",
            ));
        }
        Ok(NewTrackingRequest {
            request_number: number,
            request_type,
            scac,
        })
    }
}

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

    /// Validates a client's tracking request ([`NewTrackingRequest::parse`]) and stores it with
    /// [`Store::create_tracking_request`]: the one path of `POST /v2/tracking_requests` and the
    /// GraphQL `createTrackingRequest` mutation.
    ///
    /// # Errors
    ///
    /// [`TrackingRequestError::Invalid`] for a bad attribute (nothing is stored),
    /// [`TrackingRequestError::Store`] when the store fails.
    pub async fn submit_tracking_request(
        &self,
        account: Uuid,
        request_number: &str,
        request_type: &str,
        scac: &str,
    ) -> std::result::Result<TrackingRequest, TrackingRequestError> {
        let new = NewTrackingRequest::parse(request_number, request_type, scac)?;
        Ok(self
            .create_tracking_request(
                account,
                &new.request_number,
                new.request_type.as_str(),
                &new.scac,
            )
            .await?)
    }

    /// Moves the account's pending requests whose number now has stored data to `created`,
    /// with the shipment id (module documentation). Returns the ids of those that changed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails, [`StoreError::Corrupt`] for a malformed id.
    pub async fn link_tracking_requests(&self, account: Uuid) -> Result<Vec<Uuid>> {
        let shipment = "COALESCE(\
             (SELECT c.shipment_id FROM containers c WHERE c.account_id = tracking_requests.account_id \
              AND tracking_requests.request_type = 'container' \
              AND c.number = tracking_requests.request_number ORDER BY c.id LIMIT 1), \
             (SELECT s.id FROM shipments s WHERE s.account_id = tracking_requests.account_id \
              AND tracking_requests.request_type <> 'container' \
              AND s.bill_of_lading_number = tracking_requests.request_number ORDER BY s.id LIMIT 1))";
        let sql = format!(
            "UPDATE tracking_requests SET status = $2, updated_at = $3, shipment_id = {shipment} \
             WHERE account_id = $1 AND status = $4 AND {shipment} IS NOT NULL \
             RETURNING id, shipment_id"
        );
        let at = now();
        let account_s = account.to_string();
        // One transaction: the `tracking_request.succeeded` notifications commit with the link.
        let mut tx = self.pool().begin().await?;
        let rows = sqlx::query(&sql)
            .bind(&account_s)
            .bind(CREATED)
            .bind(ts(at))
            .bind(PENDING)
            .fetch_all(self.counted(&mut tx))
            .await?;
        let corrupt = |id: String, e: uuid::Error| StoreError::Corrupt {
            what: "tracking request",
            id,
            detail: e.to_string(),
        };
        let mut linked = Vec::with_capacity(rows.len());
        let mut emissions = Vec::new();
        for r in &rows {
            let id: String = r.try_get("id")?;
            let request = Uuid::parse_str(&id).map_err(|e| corrupt(id.clone(), e))?;
            let shipment = r
                .try_get::<Option<String>, _>("shipment_id")?
                .map(|s| Uuid::parse_str(&s).map_err(|e| corrupt(s.clone(), e)))
                .transpose()?;
            linked.push(request);
            emissions.push(crate::webhooks::rules::tracking_request_succeeded(
                request, shipment, at,
            ));
        }
        if !emissions.is_empty() {
            let hooks =
                crate::webhooks::outbox::subscriptions(self.counted(&mut tx), &account_s).await?;
            crate::webhooks::outbox::enqueue(self.counted(&mut tx), &account_s, &hooks, &emissions)
                .await?;
        }
        tx.commit().await?;
        Ok(linked)
    }

    /// The latest `created_at` (UTC) of the account's tracking requests for each of `numbers`
    /// that has one (numbers compared as stored: upper case, no spaces).
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable time.
    pub async fn last_tracking_requests(
        &self,
        account: Uuid,
        numbers: &[String],
    ) -> Result<std::collections::HashMap<String, DateTime<Utc>>> {
        let mut out = std::collections::HashMap::new();
        let mut numbers: Vec<&String> = numbers.iter().collect();
        numbers.sort();
        numbers.dedup();
        for chunk in numbers.chunks(200) {
            let sql = format!(
                "SELECT request_number, MAX(created_at) AS at FROM tracking_requests \
                 WHERE account_id = $1 AND request_number IN ({}) GROUP BY request_number",
                crate::store::in_list(2, chunk.len())
            );
            let mut q = sqlx::query(&sql).bind(account.to_string());
            for n in chunk {
                q = q.bind(*n);
            }
            for row in q.fetch_all(self.pool()).await? {
                let number: String = row.try_get("request_number")?;
                let at: String = row.try_get("at")?;
                out.insert(number, crate::store::parse_ts(&at, "tracking request")?);
            }
        }
        Ok(out)
    }

    /// One page of the account's tracking requests, newest first (then id), and the total.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] on a failed query, [`StoreError::Corrupt`] on an unreadable row.
    pub async fn list_tracking_requests(
        &self,
        account: Uuid,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<TrackingRequest>, i64)> {
        let total: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = $1")
                .bind(account.to_string())
                .fetch_one(self.pool())
                .await?
                .try_get("n")?;
        let sql = format!(
            "SELECT {COLUMNS} FROM tracking_requests WHERE account_id = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        );
        let items = sqlx::query(&sql)
            .bind(account.to_string())
            .bind(limit)
            .bind(offset)
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(from_row)
            .collect::<Result<Vec<_>>>()?;
        Ok((items, total))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(number: &str, kind: &str, scac: &str) -> (RequestField, &'static str) {
        match NewTrackingRequest::parse(number, kind, scac) {
            Err(TrackingRequestError::Invalid { field, problem }) => (field, problem),
            other => panic!("{number} {kind} {scac}: {other:?}"),
        }
    }

    #[test]
    fn parse_normalizes_and_reports_the_first_bad_field() {
        let ok = NewTrackingRequest::parse(" apzu 481209-0 ", "container", "cmdu").unwrap();
        assert_eq!(ok.request_number, "APZU4812090");
        assert_eq!(ok.request_type, NumberType::Container);
        assert_eq!(ok.scac, "CMDU");
        use RequestField::*;
        for (args, field, fragment) in [
            (("", "container", "CMDU"), RequestNumber, "required"),
            (("  ", "", ""), RequestNumber, "required"),
            (
                ("--", "container", "CMDU"),
                RequestNumber,
                "letters and digits",
            ),
            (
                ("APZU#1", "container", "CMDU"),
                RequestNumber,
                "letters and digits",
            ),
            (
                (&"9".repeat(41)[..], "container", "CMDU"),
                RequestNumber,
                "at most 40",
            ),
            (("APZU4812090", "", "CMDU"), RequestType, "required"),
            (
                ("APZU4812090", "pallet", "CMDU"),
                RequestType,
                "bill_of_lading",
            ),
            (
                ("APZU4812090", "Container", "CMDU"),
                RequestType,
                "bill_of_lading",
            ),
            (("APZU4812090", "booking", " "), Scac, "required"),
            (("APZU4812090", "booking", "C-1"), Scac, "2 to 4 letters"),
            (("APZU4812090", "booking", "CMDUX"), Scac, "2 to 4 letters"),
        ] {
            let (got, text) = problem(args.0, args.1, args.2);
            assert_eq!(got, field, "{args:?}");
            assert!(text.contains(fragment), "{args:?}: {text}");
        }
        let e = NewTrackingRequest::parse("X1", "pallet", "CMDU").unwrap_err();
        assert_eq!(
            e.to_string(),
            "request_type must be container, bill_of_lading or booking"
        );
        assert_eq!(RequestField::RequestNumber.camel_case(), "requestNumber");
    }
}
