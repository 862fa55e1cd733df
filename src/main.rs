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
