//! DCSA Track & Trace 2.2 / 3.0 JSON through the format-detecting entry point
//! (`feeds::read_bytes`), then the DCSA reader directly on any input that parses as JSON.
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_pipeline::feeds;

fuzz_target!(|data: &[u8]| {
    let _ = feeds::read_bytes(data, "fuzz.json");
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = feeds::dcsa::read_value(value, "fuzz.json");
    }
});
