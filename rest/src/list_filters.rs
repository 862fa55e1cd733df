//! Filters of `GET /containers` and `GET /shipments`: Terminal49's names (API reference "List
//! shipments" — `number`, `filter[tracking_stopped]` — and its list-filters guide) turned into
//! the store's [`ListFilter`], the same filter GraphQL's `containers(filter:)` and
//! `shipments(filter:)` use. Every filter given must match; on `/shipments` the container
//! filters match a shipment when one of its containers matches them all.
//!
//! | filter | matches | value |
//! |---|---|---|
//! | `filter[number]` | the container number (spaces, dashes and case ignored) | text |
//! | `filter[status]` | container `current_status` is one of them | comma-separated statuses (interface.md: States) |
//! | `filter[bill_of_lading_number]`, `number` (shipments) | the shipment's bill of lading (or booking) number | text |
//! | `filter[pol]`, `filter[pod]` | UN/LOCODE of the shipment's POL / POD | a UN/LOCODE, any case ([`UnLocode::parse`]: ISO 3166 country and 3 of `A–Z`, `2–9`) |
//! | `filter[shipping_line_scac]` (or `filter[line_scac]`) | the shipment's SCAC | a SCAC, any case ([`Scac::parse`]: 2 to 4 letters or digits, at least one letter) |
//! | `filter[has_holds]` | the container has holds at the POD terminal | `true` or `false` |
//! | `filter[pickup_lfd][start]`, `filter[pickup_lfd][end]` | `pickup_lfd` within the bounds (inclusive) | RFC 3339 time or `YYYY-MM-DD` (UTC) |
//! | `filter[updated_at][start]` | changed at or after | RFC 3339 time or `YYYY-MM-DD` (UTC) |
//! | `filter[tags]` | the shipment carries every one of them | comma-separated tags |
//! | `filter[tracking_stopped]` (shipments) | tracking stopped (by the feeds or the user) or not | `true` or `false` |
//!
//! A bad value is a 400 with `source.parameter`; a filter name not in the table is a 400
//! (`unsupported_parameter`, [`crate::query`]).

use chrono::Duration;
use teu_pipeline::listing::{parse_tags, ListFilter};
use teu_pipeline::model::{CodeError, ContainerStatus, Scac, UnLocode};

use crate::error::ApiError;
use crate::query::{parse_time_filter, ListQuery};

/// Defines the filter lists of the two endpoints from one list of the container filters (both
/// serve them) and the shipment-only ones.
macro_rules! filter_lists {
    ($($common:literal),* ; $($shipment_only:literal),*) => {
        /// Filters served by `GET /containers`.
        pub(crate) const CONTAINER_FILTERS: &[&str] = &[$($common),*];
        /// Filters served by `GET /shipments`: the container ones, then the shipment-only ones.
        pub(crate) const SHIPMENT_FILTERS: &[&str] = &[$($common,)* $($shipment_only),*];
    };
}

filter_lists!(
    "filter[number]",
    "filter[status]",
    "filter[bill_of_lading_number]",
    "filter[pol]",
    "filter[pod]",
    "filter[shipping_line_scac]",
    "filter[line_scac]",
    "filter[has_holds]",
    "filter[pickup_lfd][start]",
    "filter[pickup_lfd][end]",
    "filter[updated_at][start]",
    "filter[tags]";
    "number",
    "filter[tracking_stopped]"
);

/// `true` or `false`, else a 400 naming `name`.
fn boolean(name: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ApiError::invalid(
            name,
            format!("{name} must be true or false, got {value:?}."),
        )),
    }
}

/// `value` as a code type, else a 400 naming `name` and the rule it breaks.
fn code<T>(
    name: &str,
    value: &str,
    parse: fn(&str) -> Result<T, CodeError>,
) -> Result<T, ApiError> {
    parse(value).map_err(|e| ApiError::invalid(name, format!("{name}: {e}.")))
}

/// The store filter of a list query (module table).
///
/// # Errors
///
/// 400 with `source.parameter` for a value that breaks its rule.
pub(crate) fn list_filter(q: &ListQuery) -> Result<ListFilter, ApiError> {
    let mut f = ListFilter::default();
    for (name, value) in &q.filters {
        let name: &str = name;
        let value = value.trim();
        match name {
            "filter[number]" => f.container_number = Some(value.to_string()),
            "filter[status]" => {
                for s in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let status = ContainerStatus::parse(s).ok_or_else(|| {
                        ApiError::invalid(
                            name,
                            format!("{name} has an unknown container status {s:?}."),
                        )
                    })?;
                    f.statuses.push(status);
                }
            }
            "filter[bill_of_lading_number]" | "number" => {
                if f.bill_of_lading_number.is_some() {
                    return Err(ApiError::invalid(
                        name,
                        "give the number once: number or filter[bill_of_lading_number].",
                    ));
                }
                f.bill_of_lading_number = Some(value.to_string());
            }
            "filter[pol]" => f.pol_locode = Some(code(name, value, UnLocode::parse)?),
            "filter[pod]" => f.pod_locode = Some(code(name, value, UnLocode::parse)?),
            "filter[shipping_line_scac]" | "filter[line_scac]" => {
                f.shipping_line_scac = Some(code(name, value, Scac::parse)?)
            }
            "filter[has_holds]" => f.has_holds = Some(boolean(name, value)?),
            "filter[tracking_stopped]" => f.tracking_stopped = Some(boolean(name, value)?),
            // The store's bounds are strict; one millisecond (the stored precision) makes
            // them inclusive.
            "filter[pickup_lfd][start]" => {
                f.lfd_after =
                    Some(parse_time_filter(name, value, false)? - Duration::milliseconds(1))
            }
            "filter[pickup_lfd][end]" => {
                f.lfd_before =
                    Some(parse_time_filter(name, value, true)? + Duration::milliseconds(1))
            }
            "filter[updated_at][start]" => {
                f.updated_after =
                    Some(parse_time_filter(name, value, false)? - Duration::milliseconds(1))
            }
            "filter[tags]" => {
                let tags: Vec<String> = value.split(',').map(str::to_string).collect();
                f.tags = parse_tags(&tags)
                    .map_err(|e| ApiError::invalid(name, format!("{name}: {e}.")))?;
            }
            _ => {}
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse_list_filtered;

    fn filter(query: &str) -> Result<ListFilter, ApiError> {
        list_filter(&parse_list_filtered(Some(query), &[], SHIPMENT_FILTERS)?)
    }

    #[test]
    fn names_map_to_the_store_filter() {
        let f = filter(
            "filter[status]=on_ship,available&filter[pod]=uslax&number=MEDUXY1\
             &filter[tracking_stopped]=false&filter[tags]=urgent,west&filter[line_scac]=msCu",
        )
        .unwrap();
        assert_eq!(
            f.statuses,
            [ContainerStatus::OnShip, ContainerStatus::Available]
        );
        assert_eq!(f.pod_locode.as_deref(), Some("USLAX"));
        assert_eq!(f.bill_of_lading_number.as_deref(), Some("MEDUXY1"));
        assert_eq!(f.tracking_stopped, Some(false));
        assert_eq!(f.tags, ["urgent", "west"]);
        assert_eq!(f.shipping_line_scac.as_deref(), Some("MSCU"));
    }

    #[test]
    fn bad_values_name_their_parameter() {
        for (query, parameter) in [
            ("filter[status]=sailing", "filter[status]"),
            ("filter[has_holds]=yes", "filter[has_holds]"),
            (
                "filter[pickup_lfd][start]=tomorrow",
                "filter[pickup_lfd][start]",
            ),
            (
                "number=A&filter[bill_of_lading_number]=B",
                "filter[bill_of_lading_number]",
            ),
            // XY is no ISO 3166 country; 1 is not allowed in the location part.
            ("filter[pol]=XYABC", "filter[pol]"),
            ("filter[pod]=USLA1", "filter[pod]"),
            ("filter[line_scac]=MSCUX", "filter[line_scac]"),
        ] {
            match filter(query) {
                Err(ApiError::InvalidParameter { parameter: p, .. }) => {
                    assert_eq!(p, parameter, "{query}")
                }
                other => panic!("{query}: {other:?}"),
            }
        }
        let day = filter("filter[pickup_lfd][end]=2026-03-14").unwrap();
        assert_eq!(
            day.lfd_before.unwrap().to_rfc3339(),
            "2026-03-15T00:00:00+00:00"
        );
    }
}
