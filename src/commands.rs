//! What each command does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use teu_pipeline::ingest::{self, FileSummary, IngestError, StageTimings};
use teu_pipeline::model::Account;
use teu_store::{Backend, Store, StoreError};

use crate::cli::{
    AccountsCommand, Cli, Command, GenerateArgs, IngestArgs, RederiveArgs, SimulateArgs,
};

/// How many quarantined rows of one file are printed; the rest are in the `quarantine` table.
const SHOWN_QUARANTINED: usize = 5;

pub async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Generate(args) => generate(args),
        Command::Simulate(args) => simulate(args),
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
                AccountsCommand::Key { name } => match store.account_by_name(&name).await? {
                    Some(account) => {
                        println!("{}", store.issue_key(account.id).await?);
                        Ok(ExitCode::SUCCESS)
                    }
                    None => {
                        eprintln!("error: no account named {name:?}");
                        Ok(ExitCode::FAILURE)
                    }
                },
            }
        }
        Command::Ingest(args) => {
            let store = connect(&cli.database_url).await?;
            if store.backend() == Backend::Postgres {
                crate::hold_freed_memory_for_ingest();
            }
            ingest_command(&store, args).await
        }
        Command::Rederive(args) => {
            let store = connect(&cli.database_url).await?;
            rederive_command(&store, args).await
        }
        Command::Serve(args) => {
            let store = connect(&cli.database_url).await?;
            crate::serve::serve(store, args).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Deliver(args) => {
            let store = connect(&cli.database_url).await?;
            crate::serve::deliver(store, args.drain).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn connect(url: &str) -> Result<Store> {
    Store::connect(url)
        .await
        .with_context(|| format!("opening database {}", teu_store::redact(url)))
}

async fn rederive_command(store: &Store, args: RederiveArgs) -> Result<ExitCode> {
    let accounts = match &args.account {
        Some(name) => vec![store
            .account_by_name(name)
            .await?
            .ok_or_else(|| StoreError::UnknownAccount(name.clone()))
            .context("no such account")?],
        None => store.accounts().await?,
    };
    for account in &accounts {
        let bar = ProgressBar::hidden();
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} batches")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(account.name.clone());
        let summary = teu_pipeline::rederive::rederive_account(store, account, |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        })
        .await
        .with_context(|| format!("recomputing account {}", account.name))?;
        bar.finish_and_clear();
        println!(
            "{}: {} raw events read again, {} rewritten, {} unreadable; {} shipments and {} containers derived",
            account.name,
            summary.raw_events,
            summary.rewritten,
            summary.unreadable,
            summary.shipments,
            summary.containers
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn ingest_command(store: &Store, args: IngestArgs) -> Result<ExitCode> {
    let account = store
        .account_by_name(&args.account)
        .await?
        .ok_or_else(|| StoreError::UnknownAccount(args.account.clone()))
        .context("create it first with `teu accounts create --name NAME`")?;
    let files = ingest::expand_paths(&args.paths)?;
    let derive_every = usize::try_from(args.derive_every).unwrap_or(usize::MAX);
    let failures = ingest_files(store, &account, &files, derive_every, true).await;
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

/// Feed rows stored before a derivation runs, by default (`teu ingest --derive-every`): about
/// one chunk of a `teu simulate` feed (a chunk is a DCSA file of some 2,000 containers, about
/// 44,000 events, then the terminal, line-deadline and rail files of the same containers,
/// about 4,700 rows more). The keys of the file that reaches the count wait for the next
/// group, so each container of such a feed is derived once. A group's events wait in memory
/// for its derivation ([`ingest::KnownEvents`]), so memory grows with the group: at 100,000
/// simulated containers this took 65–73 s at a peak RSS of 906–920 MiB, against 78 s and
/// 1,065 MiB at 100,000 rows (README, "Thirty-ninth session").
pub const DERIVE_EVERY_ROWS: u64 = 50_000;

/// Files `teu ingest` may hold read ahead of the one it stores (each held parsed in memory),
/// at most; [`READ_AHEAD_ROWS`] bounds them by their rows too. Enough for the small files of
/// a `teu simulate` chunk (three terminal files, a rail file, about 43 emails) between two
/// DCSA files, so that the next DCSA file is read while they are stored.
const READ_AHEAD: usize = 64;

/// Files `teu ingest` holds read ahead on PostgreSQL, where no row bound applies (see
/// [`ingest_files`]).
const READ_AHEAD_POSTGRES: usize = 2;

/// Feed rows `teu ingest` may hold read and not yet stored before it starts reading another
/// file on SQLite ([`ReadAhead`]). A file is started while fewer rows wait, so a large file (a DCSA
/// file of a `teu simulate` chunk: about 44,000 rows) is read while the one before it is
/// stored, and at most two such files are in memory at once besides the derivation's group.
/// With 2 files and no row bound, the next chunk's DCSA file was read only after its chunk's
/// small files had gone through, and the store waited for it.
const READ_AHEAD_ROWS: usize = 50_000;

/// How many feed rows are read and not yet stored ([`READ_AHEAD_ROWS`]), shared by the
/// reading thread of [`ingest_files`] (which waits for room before each file) and its store
/// loop (which frees a file's rows once it is stored).
#[derive(Default)]
struct ReadAhead {
    /// Rows held, and whether the store loop has ended (then nothing waits any more).
    state: std::sync::Mutex<(usize, bool)>,
    freed: std::sync::Condvar,
}

impl ReadAhead {
    /// Blocks the calling (blocking) thread until fewer than `limit` rows are held or the
    /// store loop has ended.
    fn wait_for_room(&self, limit: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while state.0 >= limit && !state.1 {
            state = self.freed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Counts `rows` more held.
    fn hold(&self, rows: usize) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0 += rows;
    }

    /// Counts `rows` fewer held (a file stored or failed) and wakes the reading thread.
    fn free(&self, rows: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 = state.0.saturating_sub(rows);
        self.freed.notify_all();
    }

    /// The store loop has ended: the reading thread no longer waits.
    fn close(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = true;
        self.freed.notify_all();
    }
}

/// Ingests `files` for `account`, printing a summary line per file (and, when `verbose`, the
/// first quarantined rows). Files are stored one by one (a run of email files already read
/// ahead together, in one transaction: [`ingest::store_emails`]) and derived together once
/// `derive_every` feed rows are stored (all but the keys of the file that reached the count,
/// which wait for the next group: [`ingest::PendingDerivation::take_group_but_last`]), and
/// after the last file; each derivation prints a line of its own. Returns how many
/// files failed (unreadable, or stored but their derivation failed); the others are kept.
///
/// Three things go on at once: the next files are read on a blocking thread (on SQLite up to
/// [`READ_AHEAD`] files and [`READ_AHEAD_ROWS`] rows ahead, on PostgreSQL
/// [`READ_AHEAD_POSTGRES`] files), the current one is stored,
/// and the last group of stored files is derived in a task of its own
/// ([`ingest::DerivationGroup`]): its history reads and polars work run beside the store,
/// while on SQLite its writes and the store's take turns ([`ingest::WriteTurns`]; PostgreSQL
/// writes both at once). The planner statistics are refreshed before each group's derivation
/// starts ([`Store::optimize`]). Derivations run one after another, each after its group's
/// files are stored, so every key is last derived from its whole stored history, as when the
/// steps ran one by one (`tests/order.rs`).
pub async fn ingest_files(
    store: &Store,
    account: &Account,
    files: &[PathBuf],
    derive_every: usize,
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
    let started = std::time::Instant::now();
    let mut totals = StageTimings::default();
    let mut totals_rows = Rows::default();
    let mut pending = ingest::PendingDerivation::default();
    let turns = ingest::WriteTurns::of(store);
    let mut deriving: Option<Deriving> = None;
    // Files are read, parsed and prepared in order on one blocking thread, up to
    // `READ_AHEAD` files and `READ_AHEAD_ROWS` rows ahead of the one being stored and
    // derived (the read stage is CPU work that needs no store): on two cores it leaves the
    // wall time, and a large file is read while the files before it are stored.
    // On PostgreSQL the workers wait on the server and on each other's derivations, not on
    // their reading: there two files ahead and no row bound, as before the bound (reading
    // further ahead gained nothing at 100,000 containers and cost 120–190 MiB per worker,
    // README "Fortieth session").
    let (files_ahead, rows_ahead) = match store.backend() {
        Backend::Sqlite => (READ_AHEAD, READ_AHEAD_ROWS),
        Backend::Postgres => (READ_AHEAD_POSTGRES, usize::MAX),
    };
    let (sender, mut reads) = tokio::sync::mpsc::channel(files_ahead);
    let account_id = account.id;
    let paths = files.to_vec();
    let ahead = std::sync::Arc::new(ReadAhead::default());
    let reader_ahead = ahead.clone();
    let reader = tokio::task::spawn_blocking(move || {
        for path in paths {
            reader_ahead.wait_for_room(rows_ahead);
            let read = ingest::read_file(&path, account_id);
            reader_ahead.hold(read.as_ref().map_or(0, ingest::ReadFile::rows));
            if sender.blocking_send(read).is_err() {
                break;
            }
        }
    });
    // A read taken from the channel ahead of its turn (after a run of emails).
    let mut peeked = None;
    let mut i = 0;
    while i < files.len() {
        let path = &files[i];
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "{} · {} rows, {:.0} rows/s",
            short(path),
            totals_rows.read,
            totals_rows.read as f64 / secs
        ));
        let read = match peeked.take() {
            Some(read) => read,
            None => match reads.recv().await {
                Some(read) => read,
                // The reading thread ended early: it panicked.
                None => Err(IngestError::Worker(format!(
                    "the reading thread stopped before {}",
                    path.display()
                ))),
            },
        };
        let results = match read {
            Ok(ingest::ReadFile::Email { bytes }) => {
                let (emails, next) = email_run(&mut reads, files, i, bytes);
                peeked = next;
                let rows = emails.len();
                let _turn = turns.take().await;
                let stored = ingest::store_emails(store, account, emails).await;
                ahead.free(rows);
                stored
            }
            Ok(read) => {
                let rows = read.rows();
                let _turn = turns.take().await;
                let stored = ingest::store_read(store, account, path, read).await;
                ahead.free(rows);
                vec![stored]
            }
            Err(e) => vec![Err(e)],
        };
        for stored in results {
            match stored {
                Ok(stored) => {
                    let summary = &stored.summary;
                    totals_rows.read += summary.rows_read;
                    totals_rows.accepted += summary.accepted;
                    totals_rows.derived += summary.accepted - summary.positions;
                    totals_rows.quarantined += summary.quarantined.len();
                    totals.add(&summary.timings);
                    bar.suspend(|| print_stored(summary, verbose));
                    pending.add(stored);
                }
                Err(e) => {
                    failures += 1;
                    // Every error of `store_file` names its file.
                    bar.suspend(|| eprintln!("error: {e}"));
                }
            }
            bar.inc(1);
            i += 1;
        }
        let last = i == files.len();
        if !pending.is_empty() && (last || pending.rows() >= derive_every) {
            // One derivation at a time: the previous group's ends before this one starts.
            if let Some(previous) = deriving.take() {
                failures += previous.finish(&bar, &mut totals).await;
            }
            // Before the end, the last file's keys wait for the files after it, which are
            // likely to name them again (`PendingDerivation::take_group_but_last`).
            let group = if last {
                pending.take_group()
            } else {
                pending.take_group_but_last()
            };
            if let Some(group) = group {
                // The group's store grew the tables the derivation reads, and the previous
                // group's writes the links it reads back: fresh planner statistics first,
                // here, where nothing else writes (the previous derivation has ended), rather
                // than in the derivation's task, where it would wait for the next file's
                // store (a failure costs only speed).
                let refreshed = std::time::Instant::now();
                if let Err(e) = store.optimize().await {
                    tracing::warn!("planner statistics not refreshed: {e}");
                }
                totals.store += refreshed.elapsed();
                bar.set_message(format!("deriving {} files", group.files().len()));
                deriving = Some(Deriving::start(store, account, group, &turns));
            }
        }
    }
    if let Some(last) = deriving.take() {
        failures += last.finish(&bar, &mut totals).await;
    }
    ahead.close();
    drop(reads);
    if let Err(e) = reader.await {
        tracing::warn!("the reading thread failed: {e}");
    }
    bar.finish_and_clear();
    // Fresh planner statistics for the readers of what was just written (a failure costs
    // only speed).
    if let Err(e) = store.optimize().await {
        tracing::warn!("planner statistics not refreshed: {e}");
    }
    if verbose && files.len() > 1 {
        print_stages(files.len(), &totals_rows, started.elapsed(), &totals);
    }
    failures
}

/// A file's read as the reading thread of [`ingest_files`] sends it.
type Read = Result<ingest::ReadFile, IngestError>;

/// The run of email files that starts with `files[first]` (read: `bytes`), for one
/// transaction ([`ingest::store_emails`]): with it, the email files after it that `reads`
/// holds already, each with its path. The run ends at the end of `files`, at a read that is
/// not an email (returned, to be stored in its turn), or where the reading thread has not
/// got to yet, so that it never waits for a read; the read-ahead ([`READ_AHEAD`]) bounds it.
fn email_run(
    reads: &mut tokio::sync::mpsc::Receiver<Read>,
    files: &[PathBuf],
    first: usize,
    bytes: Vec<u8>,
) -> (Vec<(PathBuf, Vec<u8>)>, Option<Read>) {
    let mut emails = vec![(files[first].clone(), bytes)];
    while let Some(next) = files.get(first + emails.len()) {
        match reads.try_recv() {
            Ok(Ok(ingest::ReadFile::Email { bytes })) => emails.push((next.clone(), bytes)),
            Ok(other) => return (emails, Some(other)),
            Err(_) => break,
        }
    }
    (emails, None)
}

/// A group of stored files being derived in a task of its own ([`ingest_files`]).
struct Deriving {
    files: Vec<String>,
    task: tokio::task::JoinHandle<(Result<ingest::Derived, IngestError>, StageTimings)>,
}

impl Deriving {
    /// Starts deriving `group` beside whatever [`ingest_files`] does next.
    fn start(
        store: &Store,
        account: &Account,
        group: ingest::DerivationGroup,
        turns: &ingest::WriteTurns,
    ) -> Deriving {
        let files = group.files().to_vec();
        let (store, account, turns) = (store.clone(), account.clone(), turns.clone());
        let task = tokio::spawn(async move { group.derive(&store, &account, &turns).await });
        Deriving { files, task }
    }

    /// Waits for the derivation, adds its stage times to `totals` and prints its line (or its
    /// error). Returns how many files failed: none, or every file of the group.
    async fn finish(self, bar: &ProgressBar, totals: &mut StageTimings) -> usize {
        let (derived, timings) = match self.task.await {
            Ok(done) => done,
            Err(e) => (
                Err(IngestError::Worker(format!(
                    "the derivation task failed: {e}"
                ))),
                StageTimings::default(),
            ),
        };
        totals.add(&timings);
        match derived {
            Ok(derived) => {
                bar.suspend(|| print_derived(&self.files, &derived));
                0
            }
            Err(e) => {
                bar.suspend(|| {
                    eprintln!(
                        "error: deriving {}: {e}; their rows are stored and are derived by \
                         the next ingest that names their containers, bills of lading or bookings",
                        files_of(&self.files)
                    )
                });
                self.files.len()
            }
        }
    }
}

/// "FILE" for one file, "N files (FIRST … LAST)" for several.
fn files_of(group: &[String]) -> String {
    match group {
        [one] => one.clone(),
        [first, .., last] => format!("{} files ({first} … {last})", group.len()),
        [] => "no file".to_string(),
    }
}

/// The line of one derivation of [`ingest_files`] on stdout, and its waiting events on stderr.
fn print_derived(group: &[String], d: &ingest::Derived) {
    println!(
        "derived {} shipments, {} containers from {}",
        d.shipments,
        d.containers,
        files_of(group)
    );
    if d.waiting > 0 {
        eprintln!(
            "  {} stored events name no shipment yet; they attach when a feed names their bill of lading or booking",
            d.waiting
        );
    }
}

/// Row counts of an ingest, for its report.
#[derive(Default)]
struct Rows {
    read: usize,
    accepted: usize,
    /// Accepted rows that feed the derivation (everything but AIS positions).
    derived: usize,
    quarantined: usize,
}

/// The end-of-ingest report on stderr: rows, wall time, time and throughput per stage (read
/// and store over every row; history, derive and write over the rows that feed the
/// derivation), peak RSS.
/// The read stage runs on its own thread beside the others (the next file is read while the
/// current one is stored), and a group's derivation beside the store of the next files, so
/// the stage times may add up to more than the wall time. The lock wait includes a
/// derivation's waits for its turns to write ([`ingest::WriteTurns`]).
fn print_stages(files: usize, rows: &Rows, wall: std::time::Duration, t: &StageTimings) {
    let rate = |n: usize, d: std::time::Duration| n as f64 / d.as_secs_f64().max(1e-9);
    eprintln!(
        "ingested {files} files: {} rows read, {} accepted ({} feed rows, {} AIS positions), {} quarantined in {:.1} s ({:.0} rows/s){}",
        rows.read,
        rows.accepted,
        rows.derived,
        rows.accepted - rows.derived,
        rows.quarantined,
        wall.as_secs_f64(),
        rate(rows.read, wall),
        peak_rss_mib()
            .map(|m| format!("; peak RSS {m} MiB"))
            .unwrap_or_default()
    );
    for (stage, d, n) in [
        ("read (beside the rest)", t.read, rows.read),
        ("store (events, rows)", t.store, rows.accepted),
        ("history (linked events)", t.history, rows.derived),
        ("derive (polars, facts)", t.derive, rows.derived),
        ("write (derived rows)", t.write, rows.derived),
    ] {
        eprintln!(
            "  {stage:<26} {:>9.1} s {:>12.0} rows/s",
            d.as_secs_f64(),
            rate(n, d)
        );
    }
    eprintln!("  {:<26} {:>9.1} s", "lock wait", t.lock_wait.as_secs_f64());
}

/// The process's peak resident set size in MiB (`VmHWM` of `/proc/self/status`, Linux).
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn short(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The line of one stored file of [`ingest_files`] on stdout, with the time its store stage
/// took in milliseconds (its derivation is printed with its group's, [`print_derived`]); with
/// `verbose`, the first quarantined rows on stderr.
fn print_stored(s: &FileSummary, verbose: bool) {
    println!(
        "{}: {}: {} rows read, {} accepted, {} quarantined; stored in {:.1} ms",
        s.file,
        s.format.label(),
        s.rows_read,
        s.accepted,
        s.quarantined.len(),
        s.timings.store.as_secs_f64() * 1000.0,
    );
    if verbose {
        print_quarantined(s);
    }
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
    if verbose {
        print_quarantined(s);
    }
}

/// The first quarantined rows of a file on stderr (file, row, JSON pointer, reason).
fn print_quarantined(s: &FileSummary) {
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
    let opts = teu_synth::dcsa::GenOptions {
        shipments: args.shipments,
        seed: args.seed,
        events_per_file: args.events_per_file,
    };
    let (files, mut truth) = teu_synth::dcsa::generate_with_truth(&opts);
    let awkward_files;
    let written: &[teu_synth::dcsa::GeneratedFile] = if args.awkward {
        let parts = files.len().max(5);
        awkward_files = teu_synth::awkward::awkward(files.clone(), &mut truth, args.seed, parts);
        &awkward_files
    } else {
        &files
    };
    let mut paths = teu_synth::dcsa::write_to_dir(written, &args.out_dir)
        .with_context(|| format!("writing to {}", args.out_dir.display()))?;
    // What the written events say about each container (`teu_synth::truth`), one JSON
    // object per line; `teu ingest` skips this file.
    let truth_path = args.out_dir.join(teu_pipeline::ingest::TRUTH_FILE);
    let mut text = String::new();
    for record in &truth {
        text.push_str(&record.to_string());
        text.push('\n');
    }
    std::fs::write(&truth_path, text)
        .with_context(|| format!("writing {}", truth_path.display()))?;
    for (name, content) in teu_synth::terminal::extra_feeds(&files, args.seed).files {
        let path = args.out_dir.join(name);
        std::fs::write(&path, content).with_context(|| format!("writing {}", path.display()))?;
        paths.push(path);
    }
    if args.ais {
        let ais = teu_synth::ais::generate_ais(&teu_synth::ais::events_of(&files), args.seed);
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
        teu_synth::dcsa::event_count(&files),
        paths.len(),
        args.out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn simulate(args: SimulateArgs) -> Result<ExitCode> {
    let opts = teu_synth::simulate::SimOptions {
        containers: args.containers,
        seed: args.seed,
        containers_per_file: args.containers_per_file,
        email_every: args.email_every,
        zstd: args.zstd,
    };
    let bar = ProgressBar::new(args.containers as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} containers ({per_sec}, {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let summary =
        teu_synth::simulate::simulate(&opts, &args.out_dir, |n| bar.set_position(n as u64))
            .with_context(|| format!("writing to {}", args.out_dir.display()))?;
    bar.finish_and_clear();
    println!(
        "wrote {} containers of {} shipments to {}: {} DCSA events in {} chunks, {} terminal and line files, {} rail files, {} emails, {} AIS positions of {} vessels; {} files, {:.1} MiB",
        summary.containers,
        summary.shipments,
        args.out_dir.display(),
        summary.dcsa_events,
        summary.chunks,
        summary.terminal_files,
        summary.rail_files,
        summary.emails,
        summary.ais_positions,
        summary.ais_vessels,
        summary.files.len(),
        summary.bytes as f64 / (1 << 20) as f64
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// A reading thread waiting for room for 20,000 rows; it returns whether `released` was
    /// set when its wait ended.
    fn waiting_reader(
        ahead: &Arc<ReadAhead>,
        released: &Arc<AtomicBool>,
    ) -> std::thread::JoinHandle<bool> {
        let (ahead, released) = (ahead.clone(), released.clone());
        std::thread::spawn(move || {
            ahead.wait_for_room(20_000);
            released.load(Ordering::SeqCst)
        })
    }

    /// The reading thread starts a file only while fewer than the limit's rows wait to be
    /// stored, and goes on once the store loop frees a file's rows or ends.
    #[test]
    fn read_ahead_waits_for_room() {
        let ahead = Arc::new(ReadAhead::default());
        // Room: returns at once.
        ahead.hold(10);
        ahead.wait_for_room(50);
        // A large file held: a reader waits until the store frees it.
        ahead.hold(44_000);
        let freed = Arc::new(AtomicBool::new(false));
        let reader = waiting_reader(&ahead, &freed);
        freed.store(true, Ordering::SeqCst);
        ahead.free(44_000);
        let after_free = reader.join().expect("reader thread");
        assert!(after_free, "returned before the rows were freed");
        // Full again: the end of the store loop releases a waiting reader.
        ahead.hold(60_000);
        let closed = Arc::new(AtomicBool::new(false));
        let reader = waiting_reader(&ahead, &closed);
        closed.store(true, Ordering::SeqCst);
        ahead.close();
        let after_close = reader.join().expect("reader thread");
        assert!(after_close, "returned before the loop ended");
    }
}
