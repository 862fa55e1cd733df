//! `teu infer`: carrier inference over a file or stdin, one output row per input row.
//!
//! Input: one number per line, or a CSV whose header row has a `number` column (any other
//! columns are ignored; without such a header the first column of every row is the number).
//! Output (`--format csv`, the default): a header, then per input row `row` (1-based input row,
//! header excluded) and the columns of `teu_pipeline::infer::batch::OUTPUT_COLUMNS`.
//! `--format ndjson`: per input row one JSON object `{"row", "input", "number",
//! "number_type", "validation", "shipping_line"}` as the `/v2` infer operation answers it.
//! A row that cannot be read (not UTF-8, broken quoting) gets an output row with
//! `is_valid` false and the reason; it does not stop the run.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use teu_pipeline::infer::{self, History, Scorer};
use teu_store::{Store, StoreError};

/// Output format of `teu infer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line.
    Ndjson,
}

/// Arguments of `teu infer`.
#[derive(Debug, Args)]
pub struct InferArgs {
    /// Input file, or `-` (the default) for stdin.
    #[arg(default_value = "-")]
    pub input: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    pub format: Format,
    /// Write here instead of stdout.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Use this account's stored shipments as evidence (owner prefix → SCAC history); without
    /// it, no database is opened.
    #[arg(long)]
    pub account: Option<String>,
}

/// Runs `teu infer`.
pub async fn run(database_url: &str, args: InferArgs) -> Result<ExitCode> {
    let history = match &args.account {
        None => History::default(),
        Some(name) => {
            let store = Store::connect(database_url)
                .await
                .with_context(|| format!("opening database {}", teu_store::redact(database_url)))?;
            let account = store
                .account_by_name(name)
                .await?
                .ok_or_else(|| StoreError::UnknownAccount(name.clone()))?;
            store.scac_history(account.id).await?
        }
    };
    let input: Box<dyn Read> = if args.input == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(&args.input).with_context(|| format!("opening {}", args.input))?)
    };
    let output: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(File::create(p).with_context(|| format!("creating {}", p.display()))?),
        None => Box::new(io::stdout().lock()),
    };
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {human_pos} numbers ({per_sec})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let rows = infer_stream(
        Scorer::bundled(),
        &history,
        BufReader::with_capacity(1 << 20, input),
        BufWriter::with_capacity(1 << 20, output),
        args.format,
        &bar,
    )
    .context("writing the results")?;
    bar.finish_and_clear();
    eprintln!("{rows} numbers inferred");
    Ok(ExitCode::SUCCESS)
}

/// Reads lines from `input`, writes one result per line to `out`; returns the row count.
pub fn infer_stream<R: BufRead, W: Write>(
    scorer: &Scorer,
    history: &History,
    mut input: R,
    out: W,
    format: Format,
    bar: &ProgressBar,
) -> io::Result<u64> {
    let mut line = Vec::new();
    let mut first = true;
    // Which CSV column holds the number (0 without a header).
    let mut column = 0usize;
    let mut row = 0u64;
    let mut buf = String::new();
    let mut sink = match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec!["row"];
            header.extend(infer::batch::OUTPUT_COLUMNS);
            w.write_record(&header)?;
            Sink::Csv(w)
        }
        Format::Ndjson => Sink::Ndjson(out),
    };
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        let text = std::str::from_utf8(&line);
        let (raw, unreadable): (String, Option<String>) = match text {
            Ok(t) => match field(t, column) {
                Ok(f) => (f, None),
                Err(e) => (t.to_string(), Some(e)),
            },
            Err(e) => (
                String::from_utf8_lossy(&line).into_owned(),
                Some(format!("the row is not UTF-8 text: {e}")),
            ),
        };
        if first {
            first = false;
            if let Ok(t) = text {
                let headers = csv_fields(t).unwrap_or_default();
                if let Some(i) = headers
                    .iter()
                    .position(|h| h.trim().eq_ignore_ascii_case("number"))
                {
                    column = i;
                    continue;
                }
            }
        }
        row += 1;
        let scored = scorer.score(
            if unreadable.is_some() { "" } else { &raw },
            history,
            &mut buf,
        );
        let mut result = scorer.to_inference(buf.clone(), &scored);
        if let Some(reason) = unreadable {
            result.validation.is_valid = Some(false);
            result.validation.reason = Some(reason);
        }
        match &mut sink {
            Sink::Ndjson(out) => {
                let mut v = serde_json::to_value(&result).map_err(io::Error::other)?;
                if let Some(o) = v.as_object_mut() {
                    o.insert("row".into(), row.into());
                    o.insert("input".into(), raw.clone().into());
                }
                serde_json::to_writer(&mut *out, &v).map_err(io::Error::other)?;
                out.write_all(b"\n")?;
            }
            Sink::Csv(csv_out) => {
                let sl = &result.shipping_line;
                let top = sl.candidates.first();
                let candidates: Vec<String> = sl
                    .candidates
                    .iter()
                    .map(|c| format!("{}:{}", c.scac, c.confidence))
                    .collect();
                let opt_bool = |b: Option<bool>| match b {
                    Some(true) => "true",
                    Some(false) => "false",
                    None => "",
                };
                csv_out.write_record([
                    row.to_string().as_str(),
                    &raw,
                    &result.number,
                    result.number_type.as_str(),
                    opt_bool(result.validation.is_valid),
                    result.validation.kind,
                    opt_bool(Some(result.validation.check_digit_passed)),
                    result.validation.reason.as_deref().unwrap_or(""),
                    sl.decision.as_str(),
                    sl.selected.as_ref().map(|s| s.scac.as_str()).unwrap_or(""),
                    &top.map(|t| t.confidence.to_string()).unwrap_or_default(),
                    &candidates.join(" "),
                ])?;
            }
        }
        if row % 4096 == 0 {
            bar.set_position(row);
        }
    }
    match &mut sink {
        Sink::Csv(w) => w.flush()?,
        Sink::Ndjson(w) => w.flush()?,
    }
    bar.set_position(row);
    Ok(row)
}

/// Where results go: a CSV writer or the raw output for NDJSON.
#[allow(clippy::large_enum_variant)] // one per run
enum Sink<W: Write> {
    Csv(csv::Writer<W>),
    Ndjson(W),
}

/// The fields of one CSV line.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    if !line.contains(['"', ',']) {
        return Ok(vec![line.to_string()]);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    match reader.records().next() {
        Some(Ok(r)) => Ok(r.iter().map(str::to_string).collect()),
        Some(Err(e)) => Err(format!("the row is not valid CSV: {e}")),
        None => Ok(vec![String::new()]),
    }
}

/// Field `column` of a CSV line (empty when the row is shorter).
fn field(line: &str, column: usize) -> Result<String, String> {
    if column == 0 && !line.contains(['"', ',']) {
        return Ok(line.to_string());
    }
    Ok(csv_fields(line)?
        .into_iter()
        .nth(column)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, format: Format) -> String {
        let mut out = Vec::new();
        infer_stream(
            Scorer::bundled(),
            History::empty(),
            input.as_bytes(),
            &mut out,
            format,
            &ProgressBar::hidden(),
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_row_per_input_row_in_order() {
        let out = run("APZU4812090\n\n\"bad\nMEDU1234567\r\n", Format::Csv);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5, "{out}");
        assert!(lines[0].starts_with("row,number,normalized,number_type"));
        assert!(lines[1].starts_with(
            "1,APZU4812090,APZU4812090,container,true,container,true,,auto_select,CMDU,0.97,"
        ));
        assert!(
            lines[2].starts_with("2,,,bill_of_lading,false"),
            "{}",
            lines[2]
        );
        // A stray quote: read leniently, reported invalid in its own row.
        assert!(
            lines[3].starts_with("3,bad,BAD,bill_of_lading,false"),
            "{}",
            lines[3]
        );
        assert!(lines[4].starts_with("4,MEDU1234567,MEDU1234567,bill_of_lading,true"));
    }

    #[test]
    fn header_picks_the_number_column() {
        let out = run(
            "ref,number\na,TGHU1234567\nb,MAEU123456789\n",
            Format::Ndjson,
        );
        let rows: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["row"], 1);
        assert_eq!(rows[0]["input"], "TGHU1234567");
        assert_eq!(rows[0]["shipping_line"]["decision"], "no_prediction");
        assert_eq!(rows[1]["shipping_line"]["selected"]["scac"], "MAEU");
    }
}
