//! RFC 5322 messages and mboxes (`email::parse_message`, `email::split_mbox`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use teu_pipeline::email;

fuzz_target!(|data: &[u8]| {
    let _ = email::looks_like_message(data);
    if email::is_mbox(data) {
        for message in email::split_mbox(data) {
            let _ = email::parse_message(&message);
        }
    } else {
        let _ = email::parse_message(data);
    }
});
