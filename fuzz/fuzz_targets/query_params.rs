//! The `/v2` JSON:API query-string parser (`query::parse_list`, `query::parse_single`). Checks
//! the invariants the handlers rely on, not just the absence of panics, and feeds the parsed page
//! to the pagination arithmetic (`pagination::page_links`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_rest::pagination;
use teu_rest::query::{self, MAX_PAGE_SIZE};

const ALLOWED: &[&str] = &["shipment", "containers", "pod_terminal"];

fuzz_target!(|data: &[u8]| {
    let Ok(q) = std::str::from_utf8(data) else {
        return;
    };
    for query in [Some(q), None] {
        if let Ok(list) = query::parse_list(query, ALLOWED) {
            assert!(list.page.number >= 1);
            assert!((1..=MAX_PAGE_SIZE).contains(&list.page.size));
            assert!(list.include.iter().all(|i| ALLOWED.contains(i)));
            assert!(list.page.offset() >= 0 && list.page.limit() >= 1);
            let suffix = list.link_suffix();
            for total in [0, 1, data.len() as u64, u64::MAX] {
                let links =
                    pagination::page_links("http://h/v2/containers", &suffix, list.page, total);
                assert!(links
                    .self_
                    .starts_with("http://h/v2/containers?page[number]="));
            }
        }
        if let Ok(include) = query::parse_single(query, ALLOWED) {
            assert!(include.iter().all(|i| ALLOWED.contains(i)));
        }
    }
});
