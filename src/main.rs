//! `teu`: the command-line program. See `teu --help` and the README.

mod cli;
mod commands;
mod infer_cmd;
mod map;
mod serve;

use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
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
