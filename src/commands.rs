//! What each command does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use teu_pipeline::ingest::{self, FileSummary};
use teu_pipeline::model::Account;
use teu_pipeline::store::{Store, StoreError};

use crate::cli::{AccountsCommand, Cli, Command, GenerateArgs, IngestArgs};

/// How many quarantined rows of one file are printed; the rest are in the `quarantine` table.
const SHOWN_QUARANTINED: usize = 5;

pub async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Generate(args) => generate(args),
        Command::Infer(args) => crate::infer_cmd::run(&cli.database_url, args).await,
        Command::Accounts { command } => {
            let store = connect(&cli.database_url).await?;
            match command {
                AccountsCommand::Create { name, routing_data } => {
                    let (account, key) = store.create_account(&name, routing_data).await?;
                    println!("{key}");
                    // stdout carries the key alone (scripts read it); the address goes to stderr.
                    for address in store.inbound_addresses(account.id).await? {
                        eprintln!("inbound address: {address}");
                    }
                    Ok(ExitCode::SUCCESS)
                }
            }
        }
        Command::Ingest(args) => {
            let store = connect(&cli.database_url).await?;
            ingest_command(&store, args).await
        }
        Command::Serve(args) => {
            let store = connect(&cli.database_url).await?;
            crate::serve::serve(store, args).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn connect(url: &str) -> Result<Store> {
    Store::connect(url)
        .await
        .with_context(|| format!("opening database {}", teu_pipeline::store::redact(url)))
}

async fn ingest_command(store: &Store, args: IngestArgs) -> Result<ExitCode> {
    let account = store
        .account_by_name(&args.account)
        .await?
        .ok_or_else(|| StoreError::UnknownAccount(args.account.clone()))
        .context("create it first with `teu accounts create --name NAME`")?;
    let files = ingest::expand_paths(&args.paths)?;
    let failures = ingest_files(store, &account, &files, true).await;
    if failures == 0 {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: {failures} of {} files could not be read",
            files.len()
        );
        Ok(ExitCode::FAILURE)
    }
}

/// Ingests `files` for `account`, printing a summary line per file (and, when `verbose`, the
/// first quarantined rows). Returns how many files failed; the others are kept.
pub async fn ingest_files(
    store: &Store,
    account: &Account,
    files: &[PathBuf],
    verbose: bool,
) -> usize {
    let bar = ProgressBar::new(files.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} files {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut failures = 0;
    for path in files {
        bar.set_message(short(path));
        match ingest::ingest_file(store, account, path).await {
            Ok(summary) => bar.suspend(|| print_summary(&summary, verbose)),
            Err(e) => {
                failures += 1;
                bar.suspend(|| eprintln!("error: {e}"));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    failures
}

fn short(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One line on stdout per file; with `verbose`, the first quarantined rows on stderr.
pub fn print_summary(s: &FileSummary, verbose: bool) {
    println!(
        "{}: {}: {} rows read, {} accepted, {} quarantined ({} shipments, {} containers derived)",
        s.file,
        s.format.label(),
        s.rows_read,
        s.accepted,
        s.quarantined.len(),
        s.shipments,
        s.containers
    );
    if s.waiting > 0 {
        eprintln!(
            "  {}: {} stored events name no shipment yet; they attach when a feed names their bill of lading or booking",
            s.file, s.waiting
        );
    }
    if !verbose {
        return;
    }
    for q in s.quarantined.iter().take(SHOWN_QUARANTINED) {
        let index = q.index.map(|i| format!("row {i}, ")).unwrap_or_default();
        eprintln!(
            "  quarantined: {}: {index}{}: {}",
            q.source_file, q.pointer, q.reason
        );
    }
    if s.quarantined.len() > SHOWN_QUARANTINED {
        eprintln!(
            "  … and {} more quarantined rows (table `quarantine`)",
            s.quarantined.len() - SHOWN_QUARANTINED
        );
    }
}

fn generate(args: GenerateArgs) -> Result<ExitCode> {
    let opts = teu_pipeline::generate::GenOptions {
        shipments: args.shipments,
        seed: args.seed,
        events_per_file: args.events_per_file,
    };
    let files = teu_pipeline::generate::generate(&opts);
    let mut paths = teu_pipeline::generate::write_to_dir(&files, &args.out_dir)
        .with_context(|| format!("writing to {}", args.out_dir.display()))?;
    for (name, content) in teu_pipeline::generate_terminal::extra_feeds(&files, args.seed).files {
        let path = args.out_dir.join(name);
        std::fs::write(&path, content).with_context(|| format!("writing {}", path.display()))?;
        paths.push(path);
    }
    if args.ais {
        let ais = teu_pipeline::generate_ais::generate_ais(
            &teu_pipeline::generate_ais::events_of(&files),
            args.seed,
        );
        let path = args.out_dir.join(&ais.name);
        std::fs::write(&path, &ais.csv).with_context(|| format!("writing {}", path.display()))?;
        eprintln!(
            "{}: {} AIS positions of {} vessels on {} passages",
            path.display(),
            ais.positions,
            ais.vessels,
            ais.passages
        );
        paths.push(path);
    }
    println!(
        "wrote {} events in {} files to {}",
        teu_pipeline::generate::event_count(&files),
        paths.len(),
        args.out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
