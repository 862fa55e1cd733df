//! The SQL behind carrier inference: the account's own SCAC history
//! ([`History`]).

use uuid::Uuid;

use super::{Result, Store};
use teu_domain::history::History;

impl Store {
    /// The account's [`History`]: SCAC counts per container owner prefix (containers joined to
    /// their shipment's `shipping_line_scac`) and per bill-of-lading prefix. Two grouped
    /// queries; the database does the counting.
    ///
    /// # Errors
    ///
    /// [`crate::StoreError::Sql`] when a query fails.
    pub async fn scac_history(&self, account: Uuid) -> Result<History> {
        // The shipment's filter column (migration 9), filled from the body when the store
        // opens (`Store::backfill_filter_columns`); bodies are compressed (migration 32).
        let scac = "s.shipping_line_scac";
        let owners = format!(
            "SELECT substr(c.number, 1, 4) AS prefix, {scac} AS scac, COUNT(*) AS n \
             FROM containers c JOIN shipments s ON s.id = c.shipment_id AND s.account_id = c.account_id \
             WHERE c.account_id = $1 GROUP BY 1, 2"
        );
        let bills = format!(
            "SELECT substr(s.bill_of_lading_number, 1, 4) AS prefix, {scac} AS scac, COUNT(*) AS n \
             FROM shipments s WHERE s.account_id = $1 GROUP BY 1, 2"
        );
        let mut history = History::default();
        let id = crate::db::RecordId(account);
        for row in crate::db::query(&owners)
            .bind(id)
            .fetch_all(self.pool())
            .await?
        {
            let (prefix, scac, n) = read(&row)?;
            history.add_owner(&prefix, &scac, n);
        }
        for row in crate::db::query(&bills)
            .bind(id)
            .fetch_all(self.pool())
            .await?
        {
            let (prefix, scac, n) = read(&row)?;
            history.add_bill_of_lading(&prefix, &scac, n);
        }
        Ok(history)
    }
}

fn read(row: &crate::db::DbRow) -> Result<(String, String, u64)> {
    let prefix: Option<String> = row.try_get("prefix")?;
    let scac: Option<String> = row.try_get("scac")?;
    let n: i64 = row.try_get("n")?;
    Ok((
        prefix.unwrap_or_default(),
        scac.unwrap_or_default(),
        u64::try_from(n).unwrap_or(0),
    ))
}
