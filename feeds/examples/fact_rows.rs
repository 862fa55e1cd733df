//! Writes the stored text of every terminal availability check and shipping-line deadline of
//! the given feed files, as the store writes `terminal_checks` and `line_deadlines`: each row's
//! original text (`raw`) and its reading as JSON (`body`), one file per value. The training
//! samples of the fact dictionaries (`scripts/dictionary.sh checks N`, `deadlines N`).
//!
//!     cargo run -p teu-feeds --example fact_rows -- OUT_DIR FILE...
//!
//! Writes `check-K.txt` and `deadline-K.txt` into OUT_DIR (which must exist). Files whose
//! format no reader knows are skipped with a line on stderr; prints the number of samples.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: fact_rows OUT_DIR FILE...");
        return ExitCode::from(2);
    };
    let out = Path::new(&out);
    let (mut checks, mut deadlines) = (0usize, 0usize);
    for file in args {
        let batch = match teu_feeds::read_file(Path::new(&file)) {
            Ok(batch) => batch,
            Err(e) => {
                eprintln!("skipped: {e}");
                continue;
            }
        };
        let mut samples = Vec::new();
        for (_, check, raw) in &batch.checks {
            samples.push(("check", raw.clone(), serde_json::to_string(check)));
        }
        for (_, deadline, raw) in &batch.deadlines {
            samples.push(("deadline", raw.clone(), serde_json::to_string(deadline)));
        }
        for (kind, raw, body) in samples {
            let body = match body {
                Ok(body) => body,
                Err(e) => {
                    eprintln!("{file}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let n = if kind == "check" {
                &mut checks
            } else {
                &mut deadlines
            };
            for text in [raw, body] {
                let path = out.join(format!("{kind}-{n}.txt"));
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("{}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                *n += 1;
            }
        }
    }
    println!("{checks} check samples, {deadlines} deadline samples");
    ExitCode::SUCCESS
}
