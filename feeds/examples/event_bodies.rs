//! Writes the normalized body of every event of the given feed files, as the store wrote
//! `transport_events.body` before the one-frame layout of `teu_store::payloads::EVENTS` (JSON of
//! `teu_domain::model::EventRow`), one file per event (`body-N.json`): the training samples of the
//! body dictionary (`scripts/dictionary.sh bodies N`). Beside each, `event-N.txt`: the body, a
//! newline and the carrier's payload text, the stored event of that layout: the samples of
//! `scripts/dictionary.sh events N`.
//!
//!     cargo run -p teu-feeds --example event_bodies -- OUT_DIR FILE...
//!
//! Files whose format no reader knows are skipped with a line on stderr; prints the number of
//! samples written.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: event_bodies OUT_DIR FILE...");
        return ExitCode::from(2);
    };
    let mut n = 0usize;
    for file in args {
        let batch = match teu_feeds::read_file(Path::new(&file)) {
            Ok(batch) => batch,
            Err(e) => {
                eprintln!("skipped: {e}");
                continue;
            }
        };
        for event in &batch.events {
            let body = match serde_json::to_string(&event.row) {
                Ok(body) => body,
                Err(e) => {
                    eprintln!("{file}, row {}: {e}", event.index);
                    return ExitCode::FAILURE;
                }
            };
            let event = format!("{body}\n{}", event.raw);
            for (name, text) in [
                (format!("body-{n}.json"), body),
                (format!("event-{n}.txt"), event),
            ] {
                if let Err(e) = std::fs::write(Path::new(&out).join(name), text) {
                    eprintln!("{out}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            n += 1;
        }
    }
    println!("{n} samples");
    ExitCode::SUCCESS
}
