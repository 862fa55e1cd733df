//! What a user changes on a shipment (Terminal49's `PATCH /v2/shipments/{id}`, GraphQL tag
//! mutations): its reference numbers and tags. Both are kept outside the derived `body`, so a
//! re-derivation from the feeds never undoes them. The SQL is `teu_store::shipment_edits`.
//!
//! | attribute | stored in | served as |
//! |---|---|---|
//! | `ref_numbers` | `shipments.user_ref_numbers` (JSON array) | the feeds' reference numbers (DCSA `references`), then the user's that are not among them |
//! | `tags` | `shipment_tags` rows and `shipments.tags` | the user's tags, sorted |
//!
//! A `PATCH` replaces each list it names (Terminal49 API reference, "Edit a shipment": the new
//! tags replace the existing ones) and leaves the other alone; an empty list clears it. The
//! feeds' own reference numbers cannot be removed by a user, only added to.

use serde::Deserialize;

use crate::listing::{parse_tags, trimmed_unique, BadItem, TagError};

/// Most reference numbers a user may give one shipment or tracking request.
pub const MAX_REF_NUMBERS: usize = 50;
/// Longest reference number, in characters.
pub const MAX_REF_NUMBER_LEN: usize = 64;

/// Why a list of reference numbers is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefNumberError {
    /// A reference number is empty or only blanks.
    #[error("reference numbers must not be blank")]
    Blank,
    /// A reference number is longer than [`MAX_REF_NUMBER_LEN`].
    #[error("reference number {0:?} is longer than {MAX_REF_NUMBER_LEN} characters")]
    TooLong(String),
    /// More than [`MAX_REF_NUMBERS`] reference numbers.
    #[error("at most {MAX_REF_NUMBERS} reference numbers")]
    TooMany,
}

/// Checks and normalizes reference numbers given by a user: trimmed, each 1 to
/// [`MAX_REF_NUMBER_LEN`] characters, duplicates dropped (first kept), at most
/// [`MAX_REF_NUMBERS`]. An empty list is accepted (it clears the user's numbers).
///
/// # Errors
///
/// The first [`RefNumberError`] met.
pub fn parse_ref_numbers(numbers: &[String]) -> Result<Vec<String>, RefNumberError> {
    let out = trimmed_unique(numbers, MAX_REF_NUMBER_LEN).map_err(|bad| match bad {
        BadItem::Blank => RefNumberError::Blank,
        BadItem::TooLong(n) => RefNumberError::TooLong(n),
    })?;
    if out.len() > MAX_REF_NUMBERS {
        return Err(RefNumberError::TooMany);
    }
    Ok(out)
}

/// Checks a replacement tag list: like [`parse_tags`], except that an empty list is accepted
/// (it clears the tags).
///
/// # Errors
///
/// [`TagError`] for a blank, too long or too many tags.
pub fn parse_tag_list(tags: &[String]) -> Result<Vec<String>, TagError> {
    if tags.is_empty() {
        Ok(Vec::new())
    } else {
        parse_tags(tags)
    }
}

/// A change to a shipment's user fields; `None` leaves that list as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ShipmentPatch {
    /// The user's reference numbers (already checked by [`parse_ref_numbers`]).
    pub ref_numbers: Option<Vec<String>>,
    /// The tags (already checked by [`parse_tag_list`]).
    pub tags: Option<Vec<String>>,
}

/// The reference numbers served for a shipment: `feed`'s, then `user`'s not among them.
pub fn merged_ref_numbers(feed: &[String], user: &[String]) -> Vec<String> {
    let mut out = feed.to_vec();
    for n in user {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_numbers_are_trimmed_deduplicated_and_bounded() {
        let given = [" PO-1 ", "PO-1", "REF 2"].map(String::from);
        assert_eq!(parse_ref_numbers(&given).unwrap(), ["PO-1", "REF 2"]);
        assert_eq!(parse_ref_numbers(&[]).unwrap(), Vec::<String>::new());
        assert_eq!(parse_ref_numbers(&[" ".into()]), Err(RefNumberError::Blank));
        let long = "x".repeat(MAX_REF_NUMBER_LEN + 1);
        assert_eq!(
            parse_ref_numbers(std::slice::from_ref(&long)),
            Err(RefNumberError::TooLong(long))
        );
        let many: Vec<String> = (0..=MAX_REF_NUMBERS).map(|i| format!("R{i}")).collect();
        assert_eq!(parse_ref_numbers(&many), Err(RefNumberError::TooMany));
    }

    #[test]
    fn users_numbers_follow_the_feeds_without_repeats() {
        let feed = ["BKG1", "PO7"].map(String::from);
        let user = ["PO7", "MINE"].map(String::from);
        assert_eq!(merged_ref_numbers(&feed, &user), ["BKG1", "PO7", "MINE"]);
        assert_eq!(parse_tag_list(&[]).unwrap(), Vec::<String>::new());
    }
}
