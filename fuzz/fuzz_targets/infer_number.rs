//! Number inference (`infer::infer`): one number per input, and each line of the input as a
//! batch through the polars path (`infer::batch::infer_many`) — both must agree.
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_pipeline::infer::{self, batch, History, Scorer};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let history = History::empty();
    let _ = infer::infer(text, history);
    let lines: Vec<&str> = text.lines().take(64).collect();
    let _ = batch::infer_many(Scorer::bundled(), &lines, history);
});
