//! Page arithmetic and pagination links (interface.md: "Pagination objects", "GET /containers").
//!
//! Rules (teu's reading of the spec, which shows the link names but not their arithmetic):
//!
//! - pages are numbered from 1; `last` = ceil(total / size), but at least 1 (an empty list has
//!   one, empty, page);
//! - `first` is page 1 and `last` the last page, always present;
//! - `prev` is left out on page 1; on a page beyond the last it points at the last page (so a
//!   client that overshot can step back onto data), otherwise at `number - 1`;
//! - `next` is left out on the last page and beyond, otherwise `number + 1` (Terminal49's
//!   published schema types both as strings, not nullable, and its list examples leave out the
//!   links that do not apply);
//! - `self` and `current` are both the requested page (the spec lists `current` for
//!   `/containers` only; teu emits it on every list for uniformity);
//! - every link is absolute and carries `page[number]` then `page[size]`, then the request's
//!   `include` when one was given, so following `next` keeps the same compound document shape.
//!   Brackets are written literally (`page[number]=2`), as in the JSON:API examples.
//!
//! `meta.size` is the page size in effect (the requested or default `page[size]`, as in
//! Terminal49), not the number of items on this page; `meta.total` is the number of resources
//! across all pages.

use serde::Serialize;

/// A requested page: 1-based `number` and `size` (validated by [`crate::query`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// 1-based page number (`page[number]`).
    pub number: u64,
    /// Resources per page (`page[size]`).
    pub size: u64,
}

impl Page {
    /// Rows to skip: `(number - 1) * size`, saturating at `i64::MAX` for absurd page numbers
    /// (which then simply return no rows).
    pub fn offset(&self) -> i64 {
        let rows = self.number.saturating_sub(1).saturating_mul(self.size);
        i64::try_from(rows).unwrap_or(i64::MAX)
    }

    /// Rows to return: the page size.
    pub fn limit(&self) -> i64 {
        i64::try_from(self.size).unwrap_or(i64::MAX)
    }
}

/// Number of the last page: ceil(total / size), at least 1. `size` must be at least 1.
pub fn last_page(total: u64, size: u64) -> u64 {
    total.div_ceil(size.max(1)).max(1)
}

/// `links` of a list response (interface.md: first, prev, next, last, self; `/containers` adds
/// current). `prev` and `next` are left out of the JSON when there is no such page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageLinks {
    /// Page 1.
    pub first: String,
    /// The previous page; absent on page 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    /// The next page; absent on the last page and beyond.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// The last page (page 1 when the list is empty).
    pub last: String,
    /// The requested page (`self`).
    #[serde(rename = "self")]
    pub self_: String,
    /// The requested page again (`current`, spec: GET /containers).
    pub current: String,
}

/// `meta` of a list response: `size` = page size in effect, `total` = resources in all pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PageMeta {
    /// The page size in effect.
    pub size: u64,
    /// Resources across all pages.
    pub total: u64,
}

/// The links of `page` of a list of `total` resources at `base` (an absolute URI without query,
/// e.g. `http://host/v2/containers`). `extra` is appended to every query as it is (already
/// encoded, starting with `&`, e.g. `&include=shipment`), or empty.
pub fn page_links(base: &str, extra: &str, page: Page, total: u64) -> PageLinks {
    let last = last_page(total, page.size);
    let link = |n: u64| format!("{base}?page[number]={n}&page[size]={}{extra}", page.size);
    let prev = (page.number > 1).then(|| link((page.number - 1).min(last)));
    let next = (page.number < last).then(|| link(page.number + 1));
    PageLinks {
        first: link(1),
        prev,
        next,
        last: link(last),
        self_: link(page.number),
        current: link(page.number),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "http://h/v2/containers";

    fn url(n: u64, s: u64) -> String {
        format!("{B}?page[number]={n}&page[size]={s}")
    }

    #[test]
    fn last_page_table() {
        // (total, size, last)
        for (total, size, last) in [
            (0, 30, 1),
            (1, 30, 1),
            (29, 30, 1),
            (30, 30, 1),
            (31, 30, 2),
            (60, 30, 2),
            (61, 30, 3),
            (5, 1, 5),
            (100, 100, 1),
            (u64::MAX, 1, u64::MAX),
            (u64::MAX, 100, u64::MAX / 100 + 1),
        ] {
            assert_eq!(last_page(total, size), last, "total {total} size {size}");
        }
    }

    #[test]
    fn offsets() {
        assert_eq!(
            Page {
                number: 1,
                size: 30
            }
            .offset(),
            0
        );
        assert_eq!(
            Page {
                number: 3,
                size: 30
            }
            .offset(),
            60
        );
        assert_eq!(
            Page {
                number: 3,
                size: 30
            }
            .limit(),
            30
        );
        assert_eq!(
            Page {
                number: u64::MAX,
                size: 100
            }
            .offset(),
            i64::MAX
        );
    }

    /// (number, size, total, expected prev, expected next, expected last)
    type Case = (u64, u64, u64, Option<u64>, Option<u64>, u64);

    #[test]
    fn links_table() {
        let cases: &[Case] = &[
            // empty list: one empty page
            (1, 30, 0, None, None, 1),
            // single partial page
            (1, 30, 7, None, None, 1),
            // exact multiple: 60 = 2 pages of 30
            (1, 30, 60, None, Some(2), 2),
            (2, 30, 60, Some(1), None, 2),
            // one more than a multiple
            (2, 30, 61, Some(1), Some(3), 3),
            (3, 30, 61, Some(2), None, 3),
            // middle page
            (3, 10, 100, Some(2), Some(4), 10),
            // beyond the last page: prev steps back onto the last page, no next
            (5, 30, 61, Some(3), None, 3),
            (2, 30, 0, Some(1), None, 1),
            // size 1
            (1, 1, 1, None, None, 1),
        ];
        for &(number, size, total, prev, next, last) in cases {
            let l = page_links(B, "", Page { number, size }, total);
            let ctx = format!("number {number} size {size} total {total}");
            assert_eq!(l.first, url(1, size), "{ctx}");
            assert_eq!(l.prev, prev.map(|p| url(p, size)), "{ctx}");
            assert_eq!(l.next, next.map(|n| url(n, size)), "{ctx}");
            assert_eq!(l.last, url(last, size), "{ctx}");
            assert_eq!(l.self_, url(number, size), "{ctx}");
            assert_eq!(l.current, l.self_, "{ctx}");
        }
    }

    #[test]
    fn extra_query_is_kept_and_missing_links_are_left_out() {
        let l = page_links(B, "&include=shipment", Page { number: 1, size: 2 }, 3);
        assert_eq!(
            l.next.as_deref(),
            Some("http://h/v2/containers?page[number]=2&page[size]=2&include=shipment")
        );
        let v = serde_json::to_value(&l).unwrap();
        assert!(v.get("prev").is_none(), "{v}");
        assert_eq!(
            v["self"],
            "http://h/v2/containers?page[number]=1&page[size]=2&include=shipment"
        );
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys.len(), 5, "{keys:?}");
        let only = serde_json::to_value(page_links(B, "", Page { number: 1, size: 2 }, 2)).unwrap();
        assert!(
            only.get("prev").is_none() && only.get("next").is_none(),
            "{only}"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Page number from the link's query (`page[number]=N&...`).
        fn number_of(link: &str) -> u64 {
            let after = link.split("page[number]=").nth(1).expect("page[number]");
            after.split('&').next().unwrap().parse().unwrap()
        }

        proptest! {
            /// The last page holds the last resource: (last - 1) * size < total <= last * size,
            /// and an empty list has one page.
            #[test]
            fn last_page_covers_exactly_the_total(total in 0u64..1_000_000, size in 1u64..500) {
                let last = last_page(total, size);
                prop_assert!(last >= 1);
                if total == 0 {
                    prop_assert_eq!(last, 1);
                } else {
                    prop_assert!((last - 1) * size < total);
                    prop_assert!(total <= last * size);
                }
            }

            /// The pages 1..=last, at their offsets and limits, hold every resource exactly once.
            #[test]
            fn pages_partition_the_rows(total in 0u64..5_000, size in 1u64..200) {
                let last = last_page(total, size);
                let mut seen = 0u64;
                for number in 1..=last {
                    let p = Page { number, size };
                    let offset = u64::try_from(p.offset()).unwrap();
                    prop_assert_eq!(offset, seen);
                    let rows = total.saturating_sub(offset).min(u64::try_from(p.limit()).unwrap());
                    seen += rows;
                }
                prop_assert_eq!(seen, total);
            }

            /// Following `next` from `first` visits every page once and ends on `last`;
            /// `prev` steps back one page, or onto the last page from beyond it.
            #[test]
            fn links_walk_the_pages(total in 0u64..3_000, size in 1u64..100, beyond in 1u64..5) {
                let last = last_page(total, size);
                let mut number = 1;
                let mut steps = 0;
                loop {
                    let links = page_links(B, "", Page { number, size }, total);
                    prop_assert_eq!(number_of(&links.self_), number);
                    prop_assert_eq!(&links.self_, &links.current);
                    prop_assert_eq!(number_of(&links.last), last);
                    prop_assert_eq!(links.prev.is_none(), number == 1);
                    if let Some(prev) = &links.prev {
                        prop_assert_eq!(number_of(prev), number - 1);
                    }
                    match links.next {
                        Some(next) => {
                            prop_assert_eq!(number_of(&next), number + 1);
                            number += 1;
                            steps += 1;
                        }
                        None => break,
                    }
                }
                prop_assert_eq!(number, last);
                prop_assert_eq!(steps, last - 1);
                let overshoot = page_links(B, "", Page { number: last + beyond, size }, total);
                prop_assert!(overshoot.next.is_none());
                prop_assert_eq!(number_of(&overshoot.prev.unwrap()), last);
            }
        }
    }
}
