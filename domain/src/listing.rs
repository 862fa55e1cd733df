//! Filtered and sorted pages of containers and shipments (the GraphQL `containers` and
//! `shipments` connections; `/v2` uses the unfiltered default order), shipment tags and the
//! user's stop of tracking: the filter types and the rules for tags. The queries are
//! `teu_store::listing`.
//!
//! Filters run on indexed columns of `migrations/*/20261121000009_graphql_filters.sql`, which
//! the derived upserts fill and `teu_store::Store::backfill_filter_columns` fills for rows
//! written before that migration.
//!
//! | filter | on containers | on shipments |
//! |---|---|---|
//! | statuses, container number, has holds, LFD before/after | the container | some container of the shipment matches all of them |
//! | bill of lading, POL, POD, shipping line, tags | the container's shipment | the shipment |
//! | updated after | the container's `refreshed_at` | the shipment's `refreshed_at` |

use chrono::{DateTime, Utc};

use crate::model::{ContainerStatus, Scac, UnLocode};

/// `line_tracking_stopped_reason` of a shipment whose tracking the user stopped.
pub const STOPPED_BY_USER: &str = "cancelled_by_user";
/// Most tags one shipment may carry.
pub const MAX_TAGS: usize = 50;
/// Longest tag, in characters.
pub const MAX_TAG_LEN: usize = 64;

/// Why a tag list is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// No tag given.
    #[error("give at least one tag")]
    Empty,
    /// A tag is empty or only blanks.
    #[error("a tag must not be blank")]
    Blank,
    /// A tag is longer than [`MAX_TAG_LEN`].
    #[error("tag {0:?} is longer than {MAX_TAG_LEN} characters")]
    TooLong(String),
    /// The shipment would carry more than [`MAX_TAGS`] tags.
    #[error("a shipment may carry at most {MAX_TAGS} tags")]
    TooMany,
}

/// Checks and normalizes tags given by a user: trimmed, each at most [`MAX_TAG_LEN`]
/// characters, duplicates dropped (first occurrence kept).
pub fn parse_tags(tags: &[String]) -> Result<Vec<String>, TagError> {
    if tags.is_empty() {
        return Err(TagError::Empty);
    }
    let out = trimmed_unique(tags, MAX_TAG_LEN).map_err(|bad| match bad {
        BadItem::Blank => TagError::Blank,
        BadItem::TooLong(t) => TagError::TooLong(t),
    })?;
    if out.len() > MAX_TAGS {
        return Err(TagError::TooMany);
    }
    Ok(out)
}

/// What is wrong with one item of a user's list ([`trimmed_unique`]).
pub(crate) enum BadItem {
    /// Empty or only blanks.
    Blank,
    /// Longer than allowed (the trimmed item).
    TooLong(String),
}

/// The items trimmed, each 1 to `max_len` characters, duplicates dropped (first kept): the
/// shared rule of user-given tags and reference numbers.
pub(crate) fn trimmed_unique(items: &[String], max_len: usize) -> Result<Vec<String>, BadItem> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            return Err(BadItem::Blank);
        }
        if item.chars().count() > max_len {
            return Err(BadItem::TooLong(item.to_string()));
        }
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    Ok(out)
}

/// What a list of containers or shipments is narrowed to. Every field left empty matches
/// everything; the fields given must all match.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListFilter {
    /// Container `current_status` is one of these.
    pub statuses: Vec<ContainerStatus>,
    /// Container number (compared without blanks or punctuation, in capitals).
    pub container_number: Option<String>,
    /// The shipment's `bill_of_lading_number`, exactly.
    pub bill_of_lading_number: Option<String>,
    /// UN/LOCODE of the shipment's port of lading.
    pub pol_locode: Option<UnLocode>,
    /// UN/LOCODE of the shipment's port of discharge.
    pub pod_locode: Option<UnLocode>,
    /// The shipment's shipping line SCAC.
    pub shipping_line_scac: Option<Scac>,
    /// Whether the container has holds at the POD terminal.
    pub has_holds: Option<bool>,
    /// Container `pickup_lfd` strictly before this instant.
    pub lfd_before: Option<DateTime<Utc>>,
    /// Container `pickup_lfd` strictly after this instant.
    pub lfd_after: Option<DateTime<Utc>>,
    /// Refreshed (changed) strictly after this instant.
    pub updated_after: Option<DateTime<Utc>>,
    /// The shipment carries every one of these tags.
    pub tags: Vec<String>,
    /// Whether tracking of the shipment has stopped (`line_tracking_stopped_at` set, by the
    /// feeds or by the user): Terminal49's `filter[tracking_stopped]`.
    pub tracking_stopped: Option<bool>,
}

/// Order of a list. Ties are broken by id, so pages never overlap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListOrder {
    /// Most recently refreshed first (then newest created): the `/v2` order.
    #[default]
    UpdatedAtDesc,
    /// Earliest estimated arrival at the POD first (the shipment's `pod_eta_at`); unknown last.
    PodEtaAsc,
    /// Earliest last free day first (`pickup_lfd`; for shipments the earliest of their
    /// containers); unknown last.
    LfdAsc,
    /// By container number (containers) or bill of lading number (shipments).
    NumberAsc,
}

/// A container number as stored and compared: capitals, no blanks or punctuation
/// (`APZU 481209-0` → `APZU4812090`).
pub fn normalize_container_number(n: &str) -> String {
    n.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_trimmed_deduplicated_and_bounded() {
        let s = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_tags(&s(&[" hot ", "hot", "urgent"])).unwrap(),
            s(&["hot", "urgent"])
        );
        assert_eq!(parse_tags(&[]), Err(TagError::Empty));
        assert_eq!(parse_tags(&s(&["ok", "  "])), Err(TagError::Blank));
        assert!(matches!(
            parse_tags(&s(&[&"x".repeat(65)])),
            Err(TagError::TooLong(_))
        ));
        let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
        assert_eq!(parse_tags(&many), Err(TagError::TooMany));
    }

    #[test]
    fn container_numbers_are_compared_normalized() {
        assert_eq!(normalize_container_number("apzu 481209-0"), "APZU4812090");
    }
}
