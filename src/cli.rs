//! Command-line arguments (clap). This is the contract other tools script against.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// teu: container tracking. DCSA feeds in; `/v2` (Terminal49-compatible) and GraphQL out.
#[derive(Debug, Parser)]
#[command(name = "teu", version, about)]
pub struct Cli {
    /// Database URL: `sqlite:PATH` (created and migrated on first use) or `postgres://...`.
    #[arg(
        long,
        global = true,
        env = "DATABASE_URL",
        default_value = "sqlite:teu.db"
    )]
    pub database_url: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Manage accounts.
    Accounts {
        #[command(subcommand)]
        command: AccountsCommand,
    },
    /// Read feed files or directories into the store, printing a summary per file.
    Ingest(IngestArgs),
    /// Recompute every derived container and shipment of an account (or of all accounts) from
    /// its stored events, reading each stored carrier event again with today's readers: what
    /// an upgrade runs once to get today's answers from yesterday's data.
    Rederive(RederiveArgs),
    /// Serve `/v2` and `/graphql` (GraphiQL on GET /graphql).
    Serve(ServeArgs),
    /// Write a synthetic, realistic DCSA T&T 2.2 feed (real ports, carriers, rotations) with the
    /// terminal availability, line deadline and rail feeds that go with it.
    Generate(GenerateArgs),
    /// Write realistic feeds in every format teu reads (DCSA events, terminal and line files,
    /// rail events, arrival-notice emails, AIS) for N containers, chunk by chunk.
    Simulate(SimulateArgs),
    /// Infer number type, validity and shipping line (SCAC) for every number of a file or
    /// stdin; one output row per input row, in input order.
    Infer(crate::infer_cmd::InferArgs),
    /// Deliver webhook notifications (what `teu serve` also does), without serving HTTP.
    Deliver(DeliverArgs),
}

#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Stop once no notification is due (pending ones waiting for a retry stay pending).
    #[arg(long)]
    pub drain: bool,
}

#[derive(Debug, Subcommand)]
pub enum AccountsCommand {
    /// Create an account and print its new API key, alone on stdout (its inbound email
    /// address goes to stderr).
    Create {
        /// Unique account name.
        #[arg(long)]
        name: String,
        /// Grant the Routing Data feature (map_geojson).
        #[arg(long)]
        routing_data: bool,
    },
    /// Issue one more API key for an existing account and print it, alone on stdout (its
    /// other keys stay valid). Exit status 1 when no account has that name.
    Key {
        /// The account's name.
        #[arg(long)]
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The account that owns the data.
    #[arg(long)]
    pub account: String,
    /// Files or directories (directories are read recursively for *.json, *.eml, *.mbox).
    /// Email goes to the account of the inbound address it was sent to, else to `--account`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Derive shipments and containers once this many feed rows (events, terminal checks, line
    /// deadlines; not AIS positions) are stored, and after the last file, instead of after
    /// every file: a container named by several files of a group is derived once. The keys of
    /// the file that reaches the count wait for the next group, with the files after it that
    /// name them again. 1 derives after every file. Larger groups ingest faster and hold more
    /// history in memory at once.
    #[arg(long, default_value_t = crate::commands::DERIVE_EVERY_ROWS, value_name = "ROWS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub derive_every: u64,
}

#[derive(Debug, Args)]
pub struct RederiveArgs {
    /// The account to recompute; every account when absent.
    #[arg(long)]
    pub account: Option<String>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Load the bundled sample data into a `demo` account and print an API key for it.
    #[arg(long)]
    pub demo: bool,
    /// Answer no GraphQL introspection (`__schema`, `__type`); GraphiQL then has no docs.
    #[arg(long, env = "TEU_GRAPHQL_NO_INTROSPECTION")]
    pub no_introspection: bool,
    /// Longest a GraphQL query may run, in milliseconds; then it is answered 503 `TIMEOUT`.
    #[arg(long, env = "TEU_GRAPHQL_TIMEOUT_MS", default_value_t = 10_000)]
    pub graphql_timeout_ms: u64,
    /// Run no webhook delivery workers in this process (another `teu serve` or `teu deliver`
    /// on the same database delivers).
    #[arg(long, env = "TEU_NO_WEBHOOK_DELIVERY")]
    pub no_webhook_delivery: bool,
}

impl ServeArgs {
    /// The GraphQL options these arguments ask for.
    pub fn graphql_options(&self) -> teu_graphql::Options {
        teu_graphql::Options {
            introspection: !self.no_introspection,
            query_timeout: std::time::Duration::from_millis(self.graphql_timeout_ms.max(1)),
            ..teu_graphql::Options::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Number of shipments (each with 1 to 6 containers).
    #[arg(long, default_value_t = 200)]
    pub shipments: usize,
    /// Random seed: the same seed writes the same files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Split into files of about this many events (0: one file).
    #[arg(long, default_value_t = 5000)]
    pub events_per_file: usize,
    /// Also write `ais-generated.csv`: AIS positions (MarineCadastre layout) of the generated
    /// vessels along the MARNET sea lanes.
    #[arg(long)]
    pub ais: bool,
    /// Make the DCSA feed as awkward as carriers' feeds are (`teu_synth::awkward`): missing
    /// POL departures, booking-only and container-only equipment events, every shipment's
    /// events scattered over `awkward-NNNN.json` files, the first file delivered again.
    /// `truth.jsonl` follows.
    #[arg(long)]
    pub awkward: bool,
    /// Output directory (created if missing).
    pub out_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Number of containers (the last shipment may add a few more).
    #[arg(long)]
    pub containers: usize,
    /// Random seed: the same seed writes the same files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// About this many containers per chunk of files (one DCSA file, its terminal, line and
    /// rail files); bounds the memory of both `simulate` and `ingest`.
    #[arg(long, default_value_t = 2_000)]
    pub containers_per_file: usize,
    /// One arrival-notice email per this many arriving shipments (0: no emails).
    #[arg(long, default_value_t = 20)]
    pub email_every: usize,
    /// Write the DCSA, rail and AIS files zstd-compressed (`.zst`); about 12 times smaller.
    #[arg(long)]
    pub zstd: bool,
    /// Output directory (created if missing).
    pub out_dir: PathBuf,
}
