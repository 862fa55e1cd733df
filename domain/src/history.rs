//! The account's own history as evidence: owner prefix → SCAC frequencies among its stored
//! containers, and bill-of-lading prefix → SCAC frequencies among its shipments. The store reads
//! it (`Store::scac_history`, in `teu_store::inference`).

use std::collections::HashMap;

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
