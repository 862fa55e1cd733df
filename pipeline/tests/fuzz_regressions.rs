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

/// An equipment reference of 11 bytes with a multi-byte character across byte 4
/// (`AP\u{10FFFF}12090`, found by `mutate_seeds`) was sliced at 4 in
/// `iso6346::looks_like_iso6346`: a panic on a hostile DCSA feed. Both inputs the mutator kept
/// now read, the event quarantined.
#[test]
fn dcsa_equipment_reference_multibyte() {
    assert!(!teu_pipeline::iso6346::looks_like_iso6346(
        "AP\u{10FFFF}12090"
    ));
    for name in ["dcsa-crash-1.json", "dcsa-crash-2.json"] {
        let result = feeds::read_bytes(&input(name), "fuzz.json");
        assert!(
            result.is_ok() || matches!(result, Err(feeds::FeedError::Json { .. })),
            "{name}: {result:?}"
        );
    }
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

/// Stable-toolchain fallback for when the cargo-fuzz build (release, instrumented polars) is
/// too slow for the machine: mutates the committed seeds of `fuzz/seeds/<target>/` for
/// `TEU_FUZZ_SECS` seconds per reader (default 60, readers in parallel) and fails on any panic,
/// writing the input to `target/fuzz-fallback-<target>-<n>`. Not coverage-guided; run with
/// `cargo test --workspace --test fuzz_regressions -- --ignored --nocapture mutate_seeds`.
#[test]
#[ignore]
fn mutate_seeds() {
    type Reader = fn(&[u8]);
    let readers: [(&str, Reader); 5] = [
        ("dcsa_json", |b| {
            let _ = feeds::read_bytes(b, "fuzz.json");
        }),
        ("terminal_csv", |b| {
            let _ = feeds::terminal::read_csv(b, "fuzz.csv");
            let _ = feeds::read_bytes(b, "fuzz.csv");
        }),
        ("terminal_jsonl", |b| {
            let _ = feeds::terminal::read_jsonl(b, "fuzz.jsonl");
            let _ = feeds::read_bytes(b, "fuzz.jsonl");
        }),
        ("email", |b| {
            if teu_pipeline::email::is_mbox(b) {
                for m in teu_pipeline::email::split_mbox(b) {
                    let _ = teu_pipeline::email::parse_message(&m);
                }
            } else {
                let _ = teu_pipeline::email::parse_message(b);
            }
        }),
        ("infer_number", |b| {
            if let Ok(text) = std::str::from_utf8(b) {
                let _ = teu_pipeline::infer::infer(text, teu_pipeline::infer::History::empty());
            }
        }),
    ];
    let secs: u64 = std::env::var("TEU_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    std::panic::set_hook(Box::new(|_| {}));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let handles: Vec<_> = readers
        .into_iter()
        .enumerate()
        .map(|(k, (name, read))| {
            let root = root.clone();
            std::thread::spawn(move || {
                let seeds: Vec<Vec<u8>> = std::fs::read_dir(root.join("fuzz/seeds").join(name))
                    .unwrap()
                    .map(|e| std::fs::read(e.unwrap().path()).unwrap())
                    .collect();
                let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (k as u64 + 1);
                let mut next = move |n: usize| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    (rng % n.max(1) as u64) as usize
                };
                let tokens: [&[u8]; 12] = [
                    "é".as_bytes(),
                    "€".as_bytes(),
                    "\u{10FFFF}".as_bytes(),
                    b"\xff",
                    b"99999999999999999999",
                    b"-1",
                    b"\"",
                    b"{",
                    b"[",
                    b",",
                    b"\n",
                    b"\r\n",
                ];
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
                let (mut execs, mut crashes) = (0u64, 0u32);
                while std::time::Instant::now() < deadline {
                    let mut input = seeds[next(seeds.len())].clone();
                    for _ in 0..1 + next(8) {
                        let at = next(input.len() + 1);
                        match next(6) {
                            0 if at < input.len() => input[at] ^= 1 << next(8),
                            1 => {
                                let t = tokens[next(tokens.len())];
                                input.splice(at..at, t.iter().copied());
                            }
                            2 if at < input.len() => {
                                let end = (at + 1 + next(16)).min(input.len());
                                input.drain(at..end);
                            }
                            3 if at < input.len() => {
                                let end = (at + 1 + next(32)).min(input.len());
                                let chunk = input[at..end].to_vec();
                                input.splice(at..at, chunk);
                            }
                            4 => input.truncate(at),
                            _ if at < input.len() => {
                                let t = tokens[next(tokens.len())];
                                let end = (at + t.len()).min(input.len());
                                input.splice(at..end, t.iter().copied());
                            }
                            _ => {}
                        }
                    }
                    execs += 1;
                    if std::panic::catch_unwind(|| read(&input)).is_err() {
                        crashes += 1;
                        let out = root.join(format!("target/fuzz-fallback-{name}-{crashes}"));
                        std::fs::create_dir_all(root.join("target")).unwrap();
                        std::fs::write(out, &input).unwrap();
                    }
                }
                println!("{name:16} {secs:>4} s {execs:>10} executions {crashes} crashes");
                crashes
            })
        })
        .collect();
    let crashes: u32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(crashes, 0, "inputs written to target/fuzz-fallback-*");
}
