//! Terminal availability JSON lines (`feeds::terminal::read_jsonl`), directly and through
//! format detection.
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_pipeline::feeds;

fuzz_target!(|data: &[u8]| {
    let _ = feeds::terminal::read_jsonl(data, "fuzz.jsonl");
    let _ = feeds::read_bytes(data, "fuzz.jsonl");
});
