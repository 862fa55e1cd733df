//! The `/v2` JSON:API query-string parser (`query::parse_list`, `query::parse_single`). Checks
//! the invariants the handlers rely on, not just the absence of panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
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
            let _ = list.link_suffix();
        }
        if let Ok(include) = query::parse_single(query, ALLOWED) {
            assert!(include.iter().all(|i| ALLOWED.contains(i)));
        }
    }
});
