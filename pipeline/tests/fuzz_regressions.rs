//! Inputs that made a fuzz target (`fuzz/`, `scripts/fuzz.sh`) or its review panic, kept as
//! regression tests: each is fed to the same function as the target and must give a clean
//! result or error. Files live under `tests/fuzz-regressions/`.

use std::path::{Path, PathBuf};
use teu_pipeline::feeds::{self, dcsa};

fn input(name: &str) -> Vec<u8> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A UN/LOCODE of 5 bytes whose second character is multi-byte (`GéOU`) was sliced at byte 2
/// (`&code[..2]`), inside the `é`: a panic in `dcsa::validate_locode` for any feed carrying it.
/// Now the event is quarantined with a clear reason and the rest of the file is read.
#[test]
fn dcsa_locode_multibyte() {
    assert!(dcsa::validate_locode("GéOU")
        .unwrap_err()
        .contains("must be ASCII"));
    let batch = feeds::read_bytes(&input("dcsa-locode-multibyte.json"), "fuzz.json")
        .expect("a DCSA 3.0 document with one bad event is still read");
    assert!(
        batch
            .quarantined
            .iter()
            .any(|q| format!("{q:?}").contains("must be ASCII")),
        "{:?}",
        batch.quarantined
    );
    assert!(!batch.events.is_empty());
}

/// Every kept input, through every reader the fuzz targets call: no panic, whatever the result.
#[test]
fn all_inputs_read_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let _ = feeds::read_bytes(&bytes, "fuzz");
        let _ = feeds::terminal::read_csv(&bytes, "fuzz.csv");
        let _ = feeds::terminal::read_jsonl(&bytes, "fuzz.jsonl");
        let _ = teu_pipeline::email::parse_message(&bytes);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = teu_pipeline::infer::infer(text, teu_pipeline::infer::History::empty());
        }
    }
}
