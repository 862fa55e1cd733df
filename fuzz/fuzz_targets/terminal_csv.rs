//! Terminal availability / line deadline CSV (`feeds::terminal::read_csv`), directly and
//! through format detection.
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_pipeline::feeds;

fuzz_target!(|data: &[u8]| {
    let _ = feeds::terminal::read_csv(data, "fuzz.csv");
    let _ = feeds::read_bytes(data, "fuzz.csv");
});
