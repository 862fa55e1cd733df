//! `teu`: the command-line program. See `teu --help` and the README.

mod cli;
mod commands;
mod infer_cmd;
mod map;
mod serve;

use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// glibc malloc arenas for the C code teu links (SQLite's page caches and the values it copies
/// into each row it returns; Rust's own allocations go to mimalloc above). glibc gives each
/// thread that contends for an arena one of its own, up to eight per core, and memory freed on
/// another thread than the one that allocated it stays in the allocating thread's arena: the
/// async workers drop the rows SQLite's connection threads allocated (`mallopt(3)`,
/// `M_ARENA_MAX`). With two, the million's ingest peaked at 899 MiB (README, "Thirty-fourth
/// session"; one run, not separated from run-to-run spread).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const GLIBC_ARENAS: libc::c_int = 2;

fn main() -> std::process::ExitCode {
    limit_glibc_arenas();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Sets glibc's arena limit to [`GLIBC_ARENAS`] unless the environment sets one
/// (`MALLOC_ARENA_MAX`, or `arena_max` in `GLIBC_TUNABLES`), which glibc has then applied.
/// Runs before any thread starts, so every arena glibc makes counts against the limit; it is
/// a tuning, and glibc keeps its default if it refuses (`mallopt` returns 0).
fn limit_glibc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tuned = std::env::var_os("MALLOC_ARENA_MAX").is_some()
            || std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("arena_max"));
        if !tuned {
            // SAFETY: mallopt only sets a tunable of glibc's allocator; no other thread runs
            // yet.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, GLIBC_ARENAS);
            }
        }
    }
}

/// mimalloc's `mi_option_purge_delay`: the 16th option of `mi_option_e` (index 15, the same in
/// mimalloc v2 and v3, `include/mimalloc.h` of the `libmimalloc-sys` pinned in Cargo.toml),
/// which that crate's Rust bindings do not name. How long, in milliseconds, memory freed to
/// mimalloc stays mapped before it is returned to the kernel (`madvise`): -1 never, 0 at
/// once. v3's default is 1,000 ms.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay `teu ingest` into PostgreSQL runs with, in milliseconds. Each feed file's
/// parse, polars frames and history are freed after the file; with mimalloc's default 1 s the
/// next file's allocations faulted the same memory in again: 17.5–18.7 M minor faults and
/// 48–54 s of system time a worker at the million on PostgreSQL. Measured at 100,000 containers
/// (PostgreSQL, two workers): 1 s 1.65–1.74 M faults a worker, 4.0–4.1 s system time, peak
/// RSS 574–593 MiB; 10 s 0.38–0.43 M, 1.5–1.7 s, 647–677 MiB; never (-1) 0.17 M, 1.0–1.1 s,
/// 684–710 MiB. SQLite keeps its page caches in the process and its ingest is one writer:
/// 10 s took it 60.1 → 58.7 s and its peak 806 → 847 MiB at 100,000 (never: 935 MiB), and
/// its million peaked at 853–889 MiB with the default, near the 1 GiB target, so an ingest
/// into SQLite keeps mimalloc's default (README, "Fifty-ninth session").
const INGEST_PURGE_DELAY_MS: std::ffi::c_long = 10_000;

/// Sets mimalloc's purge delay to [`INGEST_PURGE_DELAY_MS`] for a batch ingest into
/// PostgreSQL, unless the environment sets one (`MIMALLOC_PURGE_DELAY`, or its older name
/// `MIMALLOC_RESET_DELAY`), which mimalloc has then applied. `teu serve` keeps mimalloc's
/// default: a long-running server returns what it frees.
pub(crate) fn hold_freed_memory_for_ingest() {
    if !purge_delay_in_environment() {
        // SAFETY: sets one integer option of mimalloc, which reads it when it next considers
        // a purge; any thread may set an option at any time (`mi_option_set`).
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, INGEST_PURGE_DELAY_MS) }
    }
}

/// Whether the environment sets mimalloc's purge delay (`MIMALLOC_PURGE_DELAY`, or its older
/// name `MIMALLOC_RESET_DELAY`), which mimalloc reads when it starts.
fn purge_delay_in_environment() -> bool {
    std::env::var_os("MIMALLOC_PURGE_DELAY").is_some()
        || std::env::var_os("MIMALLOC_RESET_DELAY").is_some()
}

async fn run() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "teu=info,tower_http=info,warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = cli::Cli::parse();
    match commands::run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`MI_OPTION_PURGE_DELAY`] names the purge delay of the linked mimalloc: with nothing
    /// in the environment it reads v3's default (1,000 ms, `src/options.c`) before and
    /// [`INGEST_PURGE_DELAY_MS`] after [`hold_freed_memory_for_ingest`], and setting it
    /// changes no other option.
    #[test]
    fn the_purge_delay_option_is_mimallocs() {
        // SAFETY: reads and sets integer options of mimalloc.
        unsafe {
            if !purge_delay_in_environment() {
                assert_eq!(libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY), 1_000);
            }
            let before: Vec<std::ffi::c_long> = (0..MI_OPTION_PURGE_DELAY + 2)
                .map(|o| libmimalloc_sys::mi_option_get(o))
                .collect();
            hold_freed_memory_for_ingest();
            let after: Vec<std::ffi::c_long> = (0..MI_OPTION_PURGE_DELAY + 2)
                .map(|o| libmimalloc_sys::mi_option_get(o))
                .collect();
            if !purge_delay_in_environment() {
                assert_eq!(after[MI_OPTION_PURGE_DELAY as usize], INGEST_PURGE_DELAY_MS);
            }
            for (o, (b, a)) in before.iter().zip(&after).enumerate() {
                if o as libmimalloc_sys::mi_option_t != MI_OPTION_PURGE_DELAY {
                    assert_eq!(b, a, "option {o} changed");
                }
            }
        }
    }
}
