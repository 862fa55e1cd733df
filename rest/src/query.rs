//! Query-string parsing for `/v2` (interface.md: "GET /containers" query parameters, "Limits").
//!
//! | parameter | rule | error (400, `source.parameter`) |
//! |---|---|---|
//! | `page[number]` | decimal digits only, at least 1; default 1 | not an integer, 0 |
//! | `page[size]` | decimal digits only, 1 to [`MAX_PAGE_SIZE`]; default [`DEFAULT_PAGE_SIZE`] | not an integer, 0, above the maximum |
//! | `include` | comma-separated relationship names from the endpoint's allowed list; empty means none | unknown name |
//! | `filter[...]`, `number` | only the names an endpoint lists ([`parse_list_filtered`]); each once; the endpoint checks the values | a name the endpoint does not serve: 400 (`unsupported_parameter`); a repeat: 400 |
//! | `sort` | not implemented | always 400 (`unsupported_parameter`), as JSON:API requires |
//!
//! Names and values are percent-decoded first (`page%5Bsize%5D=10` is `page[size]=10`). Each of
//! `page[number]`, `page[size]` and `include` may appear once; a repeat is a 400. Any other
//! parameter (a cache buster, `fields[...]`) is ignored. Include names are exact and
//! case-sensitive; blanks around commas are not allowed (`include=shipment` only).
//!
//! The spec leaves the maximum page size open ("not shown"); teu's is [`MAX_PAGE_SIZE`].

use crate::error::ApiError;
use crate::pagination::Page;

/// Default `page[size]` (interface.md: Limits).
pub const DEFAULT_PAGE_SIZE: u64 = 30;
/// Largest accepted `page[size]` (teu's choice; the spec does not show one).
pub const MAX_PAGE_SIZE: u64 = 100;

/// `page[number]` as written in the query string.
pub const PAGE_NUMBER: &str = "page[number]";
/// `page[size]` as written in the query string.
pub const PAGE_SIZE: &str = "page[size]";
/// `include` as written in the query string.
pub const INCLUDE: &str = "include";

/// Parsed parameters of a list endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// The requested (or default) page.
    pub page: Page,
    /// Requested relationships, each once, in the order first given; every entry is one of
    /// the endpoint's allowed names.
    pub include: Vec<&'static str>,
    /// Filters given, each one of the endpoint's names (`filter[status]`, `number`), with its
    /// decoded value, in the order given.
    pub filters: Vec<(&'static str, String)>,
}

impl ListQuery {
    /// Whether `name` was requested in `include`.
    pub fn includes(&self, name: &str) -> bool {
        self.include.contains(&name)
    }

    /// The value of filter `name` (as listed by the endpoint), if given.
    pub fn filter(&self, name: &str) -> Option<&str> {
        self.filters
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// What pagination links append to their query: `&include=a,b` and every filter given
    /// (percent-encoded values), or empty when there are none (see
    /// [`crate::pagination::page_links`]), so following `next` keeps the same list.
    pub fn link_suffix(&self) -> String {
        let mut out = String::new();
        if !self.include.is_empty() {
            out.push_str(&format!("&include={}", self.include.join(",")));
        }
        for (name, value) in &self.filters {
            let value: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
            out.push_str(&format!("&{name}={value}"));
        }
        out
    }
}

/// Parses a list endpoint's query string (`None` when the URI has none). `allowed` is the
/// endpoint's include list, e.g. `&["shipment"]`. Any filter is refused (400).
pub fn parse_list(query: Option<&str>, allowed: &[&'static str]) -> Result<ListQuery, ApiError> {
    parse_list_filtered(query, allowed, &[])
}

/// [`parse_list`] for an endpoint that serves the filters `filters` (names as written in the
/// query, e.g. `filter[status]`, `filter[created_at][start]`, `number`). A filter not in the
/// list is a 400 (`unsupported_parameter`), a repeated one a 400; an empty value is kept (the
/// endpoint decides what it means).
pub fn parse_list_filtered(
    query: Option<&str>,
    allowed: &[&'static str],
    filters: &[&'static str],
) -> Result<ListQuery, ApiError> {
    let raw = Raw::parse(query, filters)?;
    let number = match raw.page_number {
        None => 1,
        Some(v) => parse_positive(PAGE_NUMBER, &v, None)?,
    };
    let size = match raw.page_size {
        None => DEFAULT_PAGE_SIZE,
        Some(v) => parse_positive(PAGE_SIZE, &v, Some(MAX_PAGE_SIZE))?,
    };
    Ok(ListQuery {
        page: Page { number, size },
        include: parse_include(raw.include.as_deref(), allowed)?,
        filters: raw.filters,
    })
}

/// Parses a single-resource endpoint's query string: only `include` matters there (page
/// parameters are accepted and ignored; `sort`/`filter[...]` are still refused).
pub fn parse_single(
    query: Option<&str>,
    allowed: &[&'static str],
) -> Result<Vec<&'static str>, ApiError> {
    let raw = Raw::parse(query, &[])?;
    parse_include(raw.include.as_deref(), allowed)
}

/// The recognised parameters, still as text.
#[derive(Default)]
struct Raw {
    page_number: Option<String>,
    page_size: Option<String>,
    include: Option<String>,
    filters: Vec<(&'static str, String)>,
}

impl Raw {
    fn parse(query: Option<&str>, filters: &[&'static str]) -> Result<Raw, ApiError> {
        let mut raw = Raw::default();
        for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            if let Some(&known) = filters.iter().find(|f| **f == name) {
                if raw.filters.iter().any(|(n, _)| *n == known) {
                    return Err(ApiError::invalid(
                        known,
                        format!("{known} must be given at most once."),
                    ));
                }
                raw.filters.push((known, value.into_owned()));
                continue;
            }
            let slot = match name.as_ref() {
                PAGE_NUMBER => &mut raw.page_number,
                PAGE_SIZE => &mut raw.page_size,
                INCLUDE => &mut raw.include,
                "sort" => {
                    return Err(ApiError::UnsupportedParameter {
                        parameter: "sort".into(),
                        detail: "Sorting is not supported; results come in the documented order."
                            .into(),
                    })
                }
                n if n == "filter" || n.starts_with("filter[") => {
                    let served = if filters.is_empty() {
                        "this endpoint serves no filter".to_string()
                    } else {
                        format!("served here: {}", filters.join(", "))
                    };
                    return Err(ApiError::UnsupportedParameter {
                        parameter: n.to_string(),
                        detail: format!("{n} is not a filter of this endpoint ({served})."),
                    });
                }
                _ => continue,
            };
            if slot.is_some() {
                return Err(ApiError::invalid(
                    &name,
                    format!("{name} must be given at most once."),
                ));
            }
            *slot = Some(value.into_owned());
        }
        Ok(raw)
    }
}

/// The value of a time filter (`filter[created_at][start]`, …): an RFC 3339 time, or a date
/// `YYYY-MM-DD` read in UTC as the start of that day, or, when `end` is true, its last
/// millisecond (so an end date includes the whole day).
///
/// # Errors
///
/// 400 with `source.parameter` = `name` for any other text.
pub fn parse_time_filter(
    name: &str,
    value: &str,
    end: bool,
) -> Result<chrono::DateTime<chrono::Utc>, ApiError> {
    use chrono::{DateTime, NaiveDate, Utc};
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Ok(t.with_timezone(&Utc));
    }
    let day = NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| {
        ApiError::invalid(
            name,
            format!("{name} must be an RFC 3339 time or a YYYY-MM-DD date, got {value:?}."),
        )
    })?;
    let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    Ok(if end {
        start + chrono::Duration::days(1) - chrono::Duration::milliseconds(1)
    } else {
        start
    })
}

/// A decimal integer of ASCII digits only (no sign, blank or fraction), at least 1 and at most
/// `max` when given.
fn parse_positive(parameter: &str, value: &str, max: Option<u64>) -> Result<u64, ApiError> {
    let range = match max {
        Some(max) => format!("an integer from 1 to {max}"),
        None => "a positive integer".to_string(),
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::invalid(
            parameter,
            format!("{parameter} must be {range}, got {value:?}."),
        ));
    }
    // All digits: the only possible parse failure is overflow, i.e. far above any maximum.
    let n = value.parse::<u64>().unwrap_or(u64::MAX);
    if n < 1 || max.is_some_and(|m| n > m) {
        return Err(ApiError::invalid(
            parameter,
            format!("{parameter} must be {range}, got {value}."),
        ));
    }
    Ok(n)
}

fn parse_include(
    value: Option<&str>,
    allowed: &[&'static str],
) -> Result<Vec<&'static str>, ApiError> {
    let mut out = Vec::new();
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(out);
    };
    for item in value.split(',') {
        let Some(&name) = allowed.iter().find(|a| **a == item) else {
            let allowed_text = if allowed.is_empty() {
                "nothing can be included here".to_string()
            } else {
                format!("allowed: {}", allowed.join(", "))
            };
            return Err(ApiError::invalid(
                INCLUDE,
                format!("include has an unknown relationship {item:?} ({allowed_text})."),
            ));
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIP: &[&str] = &["shipment"];

    fn param_of(e: ApiError) -> (String, String) {
        match e {
            ApiError::InvalidParameter { parameter, detail } => (parameter, detail),
            ApiError::UnsupportedParameter { parameter, detail } => (parameter, detail),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        for q in [None, Some(""), Some("foo=bar&_=1"), Some("include=")] {
            let p = parse_list(q, SHIP).unwrap();
            assert_eq!(
                p.page,
                Page {
                    number: 1,
                    size: 30
                },
                "{q:?}"
            );
            assert!(p.include.is_empty());
            assert_eq!(p.link_suffix(), "");
        }
    }

    #[test]
    fn valid_values() {
        let p = parse_list(Some("page[number]=3&page[size]=100&include=shipment"), SHIP).unwrap();
        assert_eq!(
            p.page,
            Page {
                number: 3,
                size: 100
            }
        );
        assert!(p.includes("shipment"));
        assert_eq!(p.link_suffix(), "&include=shipment");
        // percent-encoded names, leading zeros, duplicate include entries collapse
        let p = parse_list(
            Some("page%5Bnumber%5D=02&page%5Bsize%5D=1&include=shipment,shipment"),
            SHIP,
        )
        .unwrap();
        assert_eq!(p.page, Page { number: 2, size: 1 });
        assert_eq!(p.include, vec!["shipment"]);
        // huge page numbers are valid (they return an empty page)
        let p = parse_list(Some("page[number]=99999999999999999999999"), SHIP).unwrap();
        assert_eq!(p.page.number, u64::MAX);
    }

    #[test]
    fn invalid_values_name_the_parameter() {
        // (query, parameter, detail fragment)
        for (q, param, frag) in [
            ("page[size]=0", "page[size]", "from 1 to 100"),
            ("page[size]=101", "page[size]", "got 101"),
            ("page[size]=abc", "page[size]", "\"abc\""),
            ("page[size]=", "page[size]", "from 1 to 100"),
            (
                "page[size]=99999999999999999999999",
                "page[size]",
                "from 1 to 100",
            ),
            ("page[number]=abc", "page[number]", "positive integer"),
            ("page[number]=0", "page[number]", "got 0"),
            ("page[number]=-1", "page[number]", "\"-1\""),
            ("page[number]=%2B1", "page[number]", "\"+1\""),
            ("page[number]=1.5", "page[number]", "\"1.5\""),
            ("page[number]=%201", "page[number]", "\" 1\""),
            (
                "page[number]=1&page[number]=2",
                "page[number]",
                "at most once",
            ),
            ("include=containers", "include", "\"containers\""),
            ("include=shipment,", "include", "\"\""),
            ("include=Shipment", "include", "allowed: shipment"),
            (
                "include=shipment&include=shipment",
                "include",
                "at most once",
            ),
            ("sort=-created_at", "sort", "not supported"),
            (
                "filter[status]=new",
                "filter[status]",
                "not a filter of this endpoint",
            ),
        ] {
            let (p, d) = param_of(parse_list(Some(q), SHIP).unwrap_err());
            assert_eq!(p, param, "{q}");
            assert!(d.contains(frag), "{q}: {d}");
        }
    }

    #[test]
    fn single_resource_queries() {
        assert_eq!(parse_single(None, SHIP).unwrap(), Vec::<&str>::new());
        assert_eq!(
            parse_single(Some("include=shipment&page[size]=0"), SHIP).unwrap(),
            vec!["shipment"]
        );
        let (p, d) = param_of(parse_single(Some("include=shipment"), &[]).unwrap_err());
        assert_eq!(p, "include");
        assert!(d.contains("nothing can be included"), "{d}");
    }
}
