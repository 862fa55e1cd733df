//! The account's own history as evidence: owner prefix → SCAC frequencies among its stored
//! containers, and bill-of-lading prefix → SCAC frequencies among its shipments.

use std::collections::HashMap;

use sqlx::Row;
use uuid::Uuid;

use crate::store::{Backend, Result, Store};

/// Counts of SCACs per 4-character prefix, from one account's stored shipments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// Container owner prefix (first 4 characters of the number) → (SCAC, containers), most
    /// frequent first.
    pub owner: HashMap<String, Vec<(String, u64)>>,
    /// Bill-of-lading prefix (first 4 characters) → (SCAC, shipments), most frequent first.
    pub bill_of_lading: HashMap<String, Vec<(String, u64)>>,
}

impl History {
    /// An empty history (no evidence).
    pub fn empty() -> &'static History {
        static EMPTY: std::sync::OnceLock<History> = std::sync::OnceLock::new();
        EMPTY.get_or_init(History::default)
    }

    /// Adds `count` observations of `scac` for a container owner prefix.
    pub fn add_owner(&mut self, prefix: &str, scac: &str, count: u64) {
        add(&mut self.owner, prefix, scac, count);
    }

    /// Adds `count` observations of `scac` for a bill-of-lading prefix.
    pub fn add_bill_of_lading(&mut self, prefix: &str, scac: &str, count: u64) {
        add(&mut self.bill_of_lading, prefix, scac, count);
    }
}

fn add(map: &mut HashMap<String, Vec<(String, u64)>>, prefix: &str, scac: &str, count: u64) {
    if prefix.len() != 4 || scac.is_empty() || count == 0 {
        return;
    }
    let entry = map.entry(prefix.to_ascii_uppercase()).or_default();
    match entry.iter_mut().find(|(s, _)| s == scac) {
        Some((_, n)) => *n += count,
        None => entry.push((scac.to_string(), count)),
    }
    entry.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

impl Store {
    /// The account's [`History`]: SCAC counts per container owner prefix (containers joined to
    /// their shipment's `shipping_line_scac`) and per bill-of-lading prefix. Two grouped
    /// queries; the database does the counting.
    ///
    /// # Errors
    ///
    /// [`crate::store::StoreError::Sql`] when a query fails.
    pub async fn scac_history(&self, account: Uuid) -> Result<History> {
        let scac = match self.backend() {
            Backend::Sqlite => "json_extract(s.body, '$.shipping_line_scac')",
            Backend::Postgres => "(s.body::json ->> 'shipping_line_scac')",
        };
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
        let id = account.to_string();
        for row in sqlx::query(&owners)
            .bind(&id)
            .fetch_all(self.pool())
            .await?
        {
            let (prefix, scac, n) = read(&row)?;
            history.add_owner(&prefix, &scac, n);
        }
        for row in sqlx::query(&bills).bind(&id).fetch_all(self.pool()).await? {
            let (prefix, scac, n) = read(&row)?;
            history.add_bill_of_lading(&prefix, &scac, n);
        }
        Ok(history)
    }
}

fn read(row: &sqlx::any::AnyRow) -> Result<(String, String, u64)> {
    let prefix: Option<String> = row.try_get("prefix")?;
    let scac: Option<String> = row.try_get("scac")?;
    let n: i64 = row.try_get("n")?;
    Ok((
        prefix.unwrap_or_default(),
        scac.unwrap_or_default(),
        u64::try_from(n).unwrap_or(0),
    ))
}
