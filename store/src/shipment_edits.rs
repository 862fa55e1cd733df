//! The SQL of a user's changes to a shipment (rules: [`teu_domain::shipment_edits`]).

use uuid::Uuid;

use super::{Result, Store, StoreError};
use crate::db::RecordId;
use crate::json_list;
use teu_domain::listing::{TagError, MAX_TAGS};
use teu_domain::model::Shipment;
use teu_domain::shipment_edits::{merged_ref_numbers, ShipmentPatch};

impl Store {
    /// Applies `patch` to the account's shipment `id` in one transaction (module table); the
    /// shipment's `refreshed_at` moves to now. Returns the shipment as served afterwards, or
    /// `None` when the account has no such shipment.
    ///
    /// # Errors
    ///
    /// [`StoreError::Tags`] when more than [`MAX_TAGS`] tags are given, [`StoreError::Sql`]
    /// when a statement fails.
    pub async fn patch_shipment(
        &self,
        account: Uuid,
        id: Uuid,
        patch: &ShipmentPatch,
    ) -> Result<Option<Shipment>> {
        if patch.tags.as_ref().is_some_and(|t| t.len() > MAX_TAGS) {
            return Err(StoreError::Tags(TagError::TooMany));
        }
        let mut tx = self.writer().begin().await?;
        if !self.touch_shipment(&mut tx, account, id).await? {
            return Ok(None);
        }
        if let Some(numbers) = &patch.ref_numbers {
            crate::db::query(
                "UPDATE shipments SET user_ref_numbers = $3 WHERE account_id = $1 AND id = $2",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
            .bind(json_list(numbers))
            .execute(self.counted(&mut tx))
            .await?;
        }
        if let Some(tags) = &patch.tags {
            crate::db::query(
                "DELETE FROM shipment_tags WHERE account_id = $1 AND shipment_id = $2",
            )
            .bind(RecordId(account))
            .bind(RecordId(id))
            .execute(self.counted(&mut tx))
            .await?;
            self.insert_tags(&mut tx, account, id, tags).await?;
            self.sync_tags_column(&mut tx, account, id).await?;
        }
        tx.commit().await?;
        self.shipment(account, id).await
    }

    /// Adds what tracking requests carried (`ref_numbers`, `shipment_tags`) to the shipment
    /// they found, inside the transaction that links them: the tags join the shipment's, the
    /// reference numbers the user's. A no-op when both are empty.
    pub(crate) async fn add_request_fields(
        &self,
        conn: &mut crate::db::Conn,
        account: Uuid,
        shipment: Uuid,
        ref_numbers: &[String],
        tags: &[String],
    ) -> Result<()> {
        if ref_numbers.is_empty() && tags.is_empty() {
            return Ok(());
        }
        let row = crate::db::query(
            "SELECT user_ref_numbers FROM shipments WHERE account_id = $1 AND id = $2",
        )
        .bind(RecordId(account))
        .bind(RecordId(shipment))
        .fetch_optional(self.counted(conn))
        .await?;
        let Some(row) = row else { return Ok(()) };
        if !ref_numbers.is_empty() {
            let stored: Option<String> = row.try_get("user_ref_numbers")?;
            let stored: Vec<String> = stored
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default();
            let merged = merged_ref_numbers(&stored, ref_numbers);
            crate::db::query(
                "UPDATE shipments SET user_ref_numbers = $3 WHERE account_id = $1 AND id = $2",
            )
            .bind(RecordId(account))
            .bind(RecordId(shipment))
            .bind(json_list(&merged))
            .execute(self.counted(conn))
            .await?;
        }
        if !tags.is_empty() {
            self.insert_tags(conn, account, shipment, tags).await?;
            self.sync_tags_column(conn, account, shipment).await?;
        }
        Ok(())
    }
}
