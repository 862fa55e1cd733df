//! The SQL of tracking requests (table `tracking_requests`): create, read, list, link to the
//! shipments an ingest derived, stop and resume (rules and types: [`teu_domain::tracking_requests`]).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{now, record_id, record_id_or_null, record_time, Result, Store, StoreError};
use crate::db::{Arg, Bind, RecordId, RecordTime};
use crate::json_list;
use teu_domain::ids;
use teu_domain::iso6346;
use teu_domain::shipment_edits::merged_ref_numbers;
use teu_domain::tracking_requests::{
    InvalidTrackingRequest, NewTrackingRequest, RequestExtras, RequestField, RequestPatch,
    TrackingRequest, TrackingRequestFilter, CREATED, PENDING,
};

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
    /// A reference number or tag breaks its rule
    /// ([`teu_domain::shipment_edits::parse_ref_numbers`], [`teu_domain::listing::parse_tags`]).
    #[error("{} {problem}", field.as_str())]
    InvalidList {
        /// `ref_numbers` or `shipment_tags`.
        field: RequestField,
        /// What is wrong, e.g. `reference numbers must not be blank`.
        problem: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<InvalidTrackingRequest> for TrackingRequestError {
    fn from(e: InvalidTrackingRequest) -> Self {
        match e {
            InvalidTrackingRequest::Invalid { field, problem } => Self::Invalid { field, problem },
            InvalidTrackingRequest::InvalidList { field, problem } => {
                Self::InvalidList { field, problem }
            }
        }
    }
}

const COLUMNS: &str = "id, request_number, request_type, scac, status, shipment_id, created_at, \
     updated_at, ref_numbers, shipment_tags, failed_reason";

fn from_row(row: &crate::db::DbRow) -> Result<TrackingRequest> {
    const WHAT: &str = "tracking request";
    let id = record_id(row, "id", WHAT)?;
    let list = |column: &str| -> Result<Vec<String>> {
        serde_json::from_str(&row.try_get::<String, _>(column)?).map_err(|e| StoreError::Corrupt {
            what: WHAT,
            id: id.to_string(),
            detail: format!("{column}: {e}"),
        })
    };
    Ok(TrackingRequest {
        id,
        request_number: row.try_get("request_number")?,
        request_type: row.try_get("request_type")?,
        scac: row.try_get("scac")?,
        status: row.try_get("status")?,
        shipment_id: record_id_or_null(row, "shipment_id", WHAT)?,
        created_at: record_time(row, "created_at")?,
        updated_at: record_time(row, "updated_at")?,
        ref_numbers: list("ref_numbers")?,
        shipment_tags: list("shipment_tags")?,
        failed_reason: row.try_get("failed_reason")?,
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
        self.create_tracking_request_with(
            account,
            request_number,
            request_type,
            scac,
            &RequestExtras::default(),
        )
        .await
    }

    /// [`Store::create_tracking_request`] with the client's reference numbers and shipment
    /// tags. Asking again for the same number keeps the first request and adds the new lists'
    /// entries to it.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn create_tracking_request_with(
        &self,
        account: Uuid,
        request_number: &str,
        request_type: &str,
        scac: &str,
        extras: &RequestExtras,
    ) -> Result<TrackingRequest> {
        let id = ids::scoped(
            account,
            "tracking_request",
            &[request_type, request_number, scac],
        );
        let at = RecordTime(now());
        crate::db::query(
            "INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, \
             status, shipment_id, created_at, updated_at, ref_numbers, shipment_tags) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $7, $8, $9) ON CONFLICT (id) DO NOTHING",
        )
        .bind(RecordId(id))
        .bind(RecordId(account))
        .bind(request_number)
        .bind(request_type)
        .bind(scac)
        .bind(PENDING)
        .bind(at)
        .bind(json_list(&extras.ref_numbers))
        .bind(json_list(&extras.shipment_tags))
        .execute(self.writer())
        .await?;
        if !(extras.ref_numbers.is_empty() && extras.shipment_tags.is_empty()) {
            if let Some(before) = self.tracking_request(account, id).await? {
                let patch = RequestPatch {
                    ref_numbers: Some(merged_ref_numbers(&before.ref_numbers, &extras.ref_numbers)),
                    shipment_tags: Some(merged_ref_numbers(
                        &before.shipment_tags,
                        &extras.shipment_tags,
                    )),
                };
                if patch.ref_numbers.as_ref() != Some(&before.ref_numbers)
                    || patch.shipment_tags.as_ref() != Some(&before.shipment_tags)
                {
                    self.patch_tracking_request(account, id, &patch).await?;
                }
            }
        }
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
        self.submit_tracking_request_with(account, request_number, request_type, scac, &[], &[])
            .await
    }

    /// [`Store::submit_tracking_request`] with the client's `ref_numbers` and `shipment_tags`
    /// (checked by [`RequestExtras::parse`]).
    ///
    /// # Errors
    ///
    /// [`TrackingRequestError::Invalid`] or [`TrackingRequestError::InvalidList`] for a bad
    /// attribute (nothing is stored), [`TrackingRequestError::Store`] when the store fails.
    pub async fn submit_tracking_request_with(
        &self,
        account: Uuid,
        request_number: &str,
        request_type: &str,
        scac: &str,
        ref_numbers: &[String],
        shipment_tags: &[String],
    ) -> std::result::Result<TrackingRequest, TrackingRequestError> {
        let new = NewTrackingRequest::parse(request_number, request_type, scac)?;
        let extras = RequestExtras::parse(ref_numbers, shipment_tags)?;
        Ok(self
            .create_tracking_request_with(
                account,
                &new.request_number,
                new.request_type.as_str(),
                &new.scac,
                &extras,
            )
            .await?)
    }

    /// Replaces the lists `patch` names on the account's request `id` (Terminal49's `PATCH
    /// /v2/tracking_requests/{id}`); `updated_at` moves to now. When the request has found its
    /// shipment, the new entries are given to the shipment too. `None` for an unknown id.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when a statement fails.
    pub async fn patch_tracking_request(
        &self,
        account: Uuid,
        id: Uuid,
        patch: &RequestPatch,
    ) -> Result<Option<TrackingRequest>> {
        let mut tx = self.writer().begin().await?;
        let row = crate::db::query(
            "UPDATE tracking_requests SET updated_at = $3, \
             ref_numbers = COALESCE($4, ref_numbers), shipment_tags = COALESCE($5, shipment_tags) \
             WHERE account_id = $1 AND id = $2 RETURNING shipment_id",
        )
        .bind(RecordId(account))
        .bind(RecordId(id))
        .bind(RecordTime(now()))
        .bind(patch.ref_numbers.as_deref().map(json_list))
        .bind(patch.shipment_tags.as_deref().map(json_list))
        .fetch_optional(self.counted(&mut tx))
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        if let Some(shipment) = record_id_or_null(&row, "shipment_id", "tracking request")? {
            let none = Vec::new();
            self.add_request_fields(
                &mut tx,
                account,
                shipment,
                patch.ref_numbers.as_ref().unwrap_or(&none),
                patch.shipment_tags.as_ref().unwrap_or(&none),
            )
            .await?;
        }
        tx.commit().await?;
        self.tracking_request(account, id).await
    }

    /// Moves the account's pending requests whose number now has stored data to `created`,
    /// with the shipment id (module documentation). Returns the ids of those that changed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sql`] when the statement fails, [`StoreError::Corrupt`] for a malformed id.
    pub async fn link_tracking_requests(&self, account: Uuid) -> Result<Vec<Uuid>> {
        // Ids in the same form as the derived tables' (`RecordId`s, migration 47).
        const SHIPMENT: &str = "COALESCE(\
             (SELECT c.shipment_id FROM containers c WHERE c.account_id = $1 \
              AND tracking_requests.request_type = 'container' \
              AND c.number = tracking_requests.request_number ORDER BY c.id LIMIT 1), \
             (SELECT s.id FROM shipments s WHERE s.account_id = $1 \
              AND tracking_requests.request_type <> 'container' \
              AND s.bill_of_lading_number = tracking_requests.request_number ORDER BY s.id LIMIT 1))";
        let sql = format!(
            "UPDATE tracking_requests SET status = $2, updated_at = $3, shipment_id = {SHIPMENT} \
             WHERE account_id = $1 AND status = $4 AND {SHIPMENT} IS NOT NULL \
             RETURNING id, shipment_id, ref_numbers, shipment_tags"
        );
        let at = now();
        // One transaction: the `tracking_request.succeeded` notifications commit with the link.
        let mut tx = self.writer().begin().await?;
        let rows = crate::db::query(&sql)
            .bind(RecordId(account))
            .bind(CREATED)
            .bind(RecordTime(at))
            .bind(PENDING)
            .fetch_all(self.counted(&mut tx))
            .await?;
        let mut linked = Vec::with_capacity(rows.len());
        let mut emissions = Vec::new();
        for r in &rows {
            let request = record_id(r, "id", "tracking request")?;
            let shipment = record_id_or_null(r, "shipment_id", "tracking request")?;
            if let Some(shipment) = shipment {
                let list = |column: &str| -> Result<Vec<String>> {
                    let text: String = r.try_get(column)?;
                    serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                        what: "tracking request",
                        id: request.to_string(),
                        detail: e.to_string(),
                    })
                };
                let (numbers, tags) = (list("ref_numbers")?, list("shipment_tags")?);
                self.add_request_fields(&mut tx, account, shipment, &numbers, &tags)
                    .await?;
            }
            linked.push(request);
            emissions.push(teu_domain::webhooks::rules::tracking_request_succeeded(
                request, shipment, at,
            ));
        }
        if !emissions.is_empty() {
            let hooks = crate::outbox::subscriptions(self.counting(&mut tx), account).await?;
            super::outbox::enqueue(
                self.counting(&mut tx),
                account,
                &hooks,
                &emissions,
                self.rows_per_statement(12),
            )
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
                crate::in_list(2, chunk.len())
            );
            let mut q = crate::db::query(&sql).bind(RecordId(account));
            for n in chunk {
                q = q.bind(*n);
            }
            for row in q.fetch_all(self.pool()).await? {
                let number: String = row.try_get("request_number")?;
                out.insert(number, record_time(&row, "at")?);
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
        self.list_tracking_requests_filtered(
            account,
            &TrackingRequestFilter::default(),
            offset,
            limit,
        )
        .await
    }

    /// [`Store::list_tracking_requests`] narrowed by `filter`; the total counts the matching
    /// requests.
    ///
    /// # Errors
    ///
    /// As [`Store::list_tracking_requests`].
    pub async fn list_tracking_requests_filtered(
        &self,
        account: Uuid,
        filter: &TrackingRequestFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<TrackingRequest>, i64)> {
        // Conditions and their values, bound from $2 on ($1 is the account), each value in its
        // column's bound form.
        let mut conditions = vec!["account_id = $1".to_string()];
        let mut values: Vec<Arg<'static>> = Vec::new();
        let mut add = |condition: &str, value: Arg<'static>| {
            values.push(value);
            conditions.push(condition.replace('?', &format!("${}", values.len() + 1)));
        };
        if let Some(n) = &filter.request_number {
            add("request_number = ?", iso6346::normalize(n).arg());
        }
        if let Some(status) = &filter.status {
            add("status = ?", status.clone().arg());
        }
        if let Some(scac) = &filter.scac {
            add("scac = ?", scac.trim().to_ascii_uppercase().arg());
        }
        for (condition, at) in [
            ("created_at >= ?", filter.created_from),
            ("created_at <= ?", filter.created_to),
            ("updated_at >= ?", filter.updated_from),
            ("updated_at <= ?", filter.updated_to),
        ] {
            if let Some(at) = at {
                add(condition, RecordTime(at).arg());
            }
        }
        let where_sql = conditions.join(" AND ");
        let count_sql = format!("SELECT COUNT(*) AS n FROM tracking_requests WHERE {where_sql}");
        let count = crate::db::query(&count_sql)
            .bind(RecordId(account))
            .bind_args(values.iter().map(Arg::borrowed));
        let total: i64 = count.fetch_one(self.pool()).await?.try_get("n")?;
        let sql = format!(
            "SELECT {COLUMNS} FROM tracking_requests WHERE {where_sql} \
             ORDER BY created_at DESC, id DESC LIMIT ${} OFFSET ${}",
            values.len() + 2,
            values.len() + 3
        );
        let q = crate::db::query(&sql)
            .bind(RecordId(account))
            .bind_args(values.iter().map(Arg::borrowed));
        let items = q
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
        crate::db::query(&sql)
            .bind(RecordId(account))
            .bind(RecordId(id))
            .fetch_optional(self.pool())
            .await?
            .as_ref()
            .map(from_row)
            .transpose()
    }
}
