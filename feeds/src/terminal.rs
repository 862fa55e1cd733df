//! Terminal availability files (CSV or JSON lines) and shipping-line deadline files (CSV).
//!
//! Real terminal exports differ in column names and date formats. Column names are compared
//! case-insensitively with everything but letters and digits removed (`"Container #"` →
//! `container`), and each field accepts these names:
//!
//! | field | accepted column names |
//! |---|---|
//! | container | container, container number/no/id, cntr, cntr no, equipment, equipment number, unit, unit number/nbr |
//! | terminal | terminal, terminal code/id, facility, facility code, smdg, smdg code, bic, bic code |
//! | port (optional) | port, locode, unlocode, port code, port locode |
//! | checked at | checked at, last checked, as of, timestamp, updated at, query time, observed at, retrieved at |
//! | availability | available, availability, available for pickup, ready for pickup, status, release status |
//! | location | location, yard location, position, yard position, block |
//! | holds | holds, hold; or one column per hold named `<name> hold` (customs hold, freight hold, usda hold …) |
//! | fees | fees, charges; or one column per fee: demurrage, exam, exam fee, extended dwell, edt, total, total due, storage |
//! | currency (for fee columns) | currency, currency code |
//! | last free day | last free day, lfd, free time expires, storage lfd, port lfd, free until, pickup lfd |
//! | pickup appointment | pickup appointment, appointment, appointment at, appt time |
//! | full-out | full out, full out at, gate out, out gate, out gate time, gate out at, picked up at |
//! | chassis | chassis, chassis number, chassis no |
//!
//! Dates: RFC 3339 with an offset, or a local time in the terminal's IANA zone (daylight saving
//! included): `YYYY-MM-DD HH:MM[:SS]`, `YYYY-MM-DDTHH:MM[:SS]`, `MM/DD/YYYY HH:MM[:SS]` (US),
//! `MM/DD/YYYY hh:mm AM`, `DD.MM.YYYY HH:MM` (European); last free days may be dates alone
//! (`YYYY-MM-DD`, `MM/DD/YYYY`, `DD.MM.YYYY`, `14-Mar-2026`), read as the start of that day in
//! the terminal's zone. A local time that occurs twice (clocks going back) is the earlier
//! instant; one that does not exist (clocks going forward) is read one hour later, as the wall
//! clock would show it.
//!
//! Holds in a `holds` cell: items separated by `;` or `|`, each `NAME`, `NAME:STATUS` or
//! `NAME (STATUS)`, optionally `NAME:STATUS:description`; in JSON lines an array of strings or
//! of `{name, status, description}`. Status `hold`/`h`/`on hold`/`yes`/`y`/`1` is `hold`,
//! `pending`/`p` is `pending`; `released`/`no`/`none`/`n`/`0`/empty means no hold. The hold
//! name is kept as the terminal wrote it.
//!
//! Fees in a `fees` cell: items separated by `;` or `|`, each `TYPE AMOUNT [CURRENCY]` or
//! `TYPE:AMOUNT[:CURRENCY]`; in JSON lines an array of `{type|name, amount, currency|currency_code}`.
//! Fee names map to the spec's types: demurrage (demurrage, dem, storage, port storage),
//! exam (exam, customs exam, x-ray, inspection), extended_dwell_time (extended dwell, edt,
//! dwell), total (total, total due, balance, balance due); anything else is `other`. The
//! original text of every row is kept with the stored check.
//!
//! Line deadline files are CSV with a last-free-day column and a bill of lading or container
//! column but no terminal column: `bill_of_lading`/`bl`/`mbl`, `container`, `pickup_lfd_line`/
//! `line_lfd`/`last_free_day`/`lfd`, optional `port`/`locode` (needed for a date without time)
//! and `issued_at`/`updated_at`.

use std::collections::HashMap;

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::Value;

use super::{FeedError, Quarantined};
use teu_domain::iso6346;
use teu_domain::model::{ContainerNumber, LineDeadline, TerminalCheck, TerminalFee, TerminalHold};
use teu_domain::terminals::{self, Terminal};

/// A terminal availability or line deadline file, read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TerminalBatch {
    pub checks: Vec<(usize, TerminalCheck, String)>,
    pub deadlines: Vec<(usize, LineDeadline, String)>,
    pub quarantined: Vec<Quarantined>,
    pub rows_read: usize,
}

/// The field a column feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Field {
    Container,
    Terminal,
    Port,
    CheckedAt,
    Available,
    Location,
    Holds,
    Fees,
    Currency,
    LastFreeDay,
    Appointment,
    FullOut,
    Chassis,
    BillOfLading,
    IssuedAt,
}

const ALIASES: &[(Field, &[&str])] = &[
    (
        Field::Container,
        &[
            "container",
            "containernumber",
            "containerno",
            "containerid",
            "cntr",
            "cntrno",
            "equipment",
            "equipmentnumber",
            "unit",
            "unitnumber",
            "unitnbr",
        ],
    ),
    (
        Field::Terminal,
        &[
            "terminal",
            "terminalcode",
            "terminalid",
            "facility",
            "facilitycode",
            "smdg",
            "smdgcode",
            "bic",
            "biccode",
        ],
    ),
    (
        Field::Port,
        &["port", "locode", "unlocode", "portcode", "portlocode"],
    ),
    (
        Field::CheckedAt,
        &[
            "checkedat",
            "lastchecked",
            "asof",
            "timestamp",
            "updatedat",
            "querytime",
            "observedat",
            "retrievedat",
        ],
    ),
    (
        Field::Available,
        &[
            "available",
            "availability",
            "availableforpickup",
            "readyforpickup",
            "status",
            "releasestatus",
        ],
    ),
    (
        Field::Location,
        &[
            "location",
            "yardlocation",
            "position",
            "yardposition",
            "block",
        ],
    ),
    (Field::Holds, &["holds", "hold"]),
    (Field::Fees, &["fees", "charges"]),
    (Field::Currency, &["currency", "currencycode"]),
    (
        Field::LastFreeDay,
        &[
            "lastfreeday",
            "lfd",
            "freetimeexpires",
            "storagelfd",
            "portlfd",
            "freeuntil",
            "pickuplfd",
            "pickuplfdline",
            "linelfd",
        ],
    ),
    (
        Field::Appointment,
        &[
            "pickupappointment",
            "appointment",
            "appointmentat",
            "appttime",
            "pickupappointmentat",
        ],
    ),
    (
        Field::FullOut,
        &[
            "fullout",
            "fulloutat",
            "gateout",
            "outgate",
            "outgatetime",
            "gateoutat",
            "pickedupat",
        ],
    ),
    (Field::Chassis, &["chassis", "chassisnumber", "chassisno"]),
    (
        Field::BillOfLading,
        &[
            "billoflading",
            "billofladingnumber",
            "bl",
            "blnumber",
            "mbl",
            "mblnumber",
            "bol",
        ],
    ),
    (Field::IssuedAt, &["issuedat"]),
];

/// Fee columns: normalized column name → fee type.
const FEE_COLUMNS: &[(&str, &str)] = &[
    ("demurrage", "demurrage"),
    ("demurrageamount", "demurrage"),
    ("storage", "demurrage"),
    ("exam", "exam"),
    ("examfee", "exam"),
    ("extendeddwell", "extended_dwell_time"),
    ("edt", "extended_dwell_time"),
    ("total", "total"),
    ("totaldue", "total"),
];

fn field_of(name: &str) -> Option<Field> {
    ALIASES
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(f, _)| *f)
}

/// Whether a CSV header row is a terminal availability or line deadline file.
pub fn looks_like_terminal_csv(header: &str) -> bool {
    let fields: Vec<Option<Field>> = header
        .split([',', ';', '\t'])
        .map(|c| field_of(&super::fold_token(c)))
        .collect();
    let has = |f: Field| fields.contains(&Some(f));
    has(Field::Container) && (has(Field::Terminal) || has(Field::LastFreeDay))
        || has(Field::BillOfLading) && has(Field::LastFreeDay)
}

/// Whether the first line of a JSON lines file is a terminal availability record.
pub fn looks_like_terminal_jsonl(first_line: &str) -> bool {
    match serde_json::from_str::<Value>(first_line) {
        Ok(Value::Object(o)) => {
            let fields: Vec<Option<Field>> =
                o.keys().map(|k| field_of(&super::fold_token(k))).collect();
            fields.contains(&Some(Field::Container)) && fields.contains(&Some(Field::Terminal))
        }
        _ => false,
    }
}

/// One row, as field → raw text (JSON values keep their structure for holds and fees).
struct Row {
    values: HashMap<Field, Value>,
    /// Extra hold columns (`customs hold` → "customs") and fee columns (type) with their text.
    hold_columns: Vec<(String, String)>,
    fee_columns: Vec<(&'static str, String)>,
}

impl Row {
    fn text(&self, f: Field) -> Option<String> {
        match self.values.get(&f)? {
            Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            Value::Null => None,
            v => Some(v.to_string()),
        }
    }
}

/// Reads a CSV terminal availability or line deadline file.
pub fn read_csv(bytes: &[u8], source_file: &str) -> Result<TerminalBatch, FeedError> {
    let text = std::str::from_utf8(bytes).map_err(|e| FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail: format!("CSV is not UTF-8 text: {e}"),
    })?;
    let first = text.lines().next().unwrap_or_default();
    let delimiter = [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|d| first.bytes().filter(|b| b == d).count())
        .unwrap_or(b',');
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = rdr
        .headers()
        .map_err(|e| csv_error(source_file, e))?
        .clone();
    let columns: Vec<String> = headers.iter().map(super::fold_token).collect();
    let is_deadlines = !columns.iter().any(|c| field_of(c) == Some(Field::Terminal));
    let mut batch = TerminalBatch::default();
    for (index, record) in rdr.records().enumerate() {
        batch.rows_read += 1;
        let raw_line = match &record {
            Ok(r) => r.iter().collect::<Vec<_>>().join(","),
            Err(_) => String::new(),
        };
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                batch.quarantined.push(quarantine(
                    source_file,
                    index,
                    "",
                    format!("unreadable CSV row: {e}"),
                    raw_line,
                ));
                continue;
            }
        };
        let mut row = Row {
            values: HashMap::new(),
            hold_columns: Vec::new(),
            fee_columns: Vec::new(),
        };
        for (col, value) in columns.iter().zip(record.iter()) {
            if let Some(f) = field_of(col) {
                row.values.insert(f, Value::String(value.to_string()));
            } else if let Some((_, fee_type)) = FEE_COLUMNS.iter().find(|(n, _)| n == col) {
                row.fee_columns.push((fee_type, value.to_string()));
            } else if let Some(name) = col.strip_suffix("hold").filter(|n| !n.is_empty()) {
                row.hold_columns
                    .push((name.to_uppercase(), value.to_string()));
            }
        }
        let header_of = |f: Field| {
            columns
                .iter()
                .position(|c| field_of(c) == Some(f))
                .and_then(|i| headers.get(i))
                .unwrap_or("")
                .to_string()
        };
        if is_deadlines {
            match deadline(&row) {
                Ok(d) => batch.deadlines.push((index, d, raw_line)),
                Err((f, reason)) => batch.quarantined.push(quarantine(
                    source_file,
                    index,
                    &header_of(f),
                    reason,
                    raw_line,
                )),
            }
        } else {
            match check(&row, terminals::bundled()) {
                Ok(c) => batch.checks.push((index, c, raw_line)),
                Err((f, reason)) => batch.quarantined.push(quarantine(
                    source_file,
                    index,
                    &header_of(f),
                    reason,
                    raw_line,
                )),
            }
        }
    }
    Ok(batch)
}

/// Reads a JSON lines terminal availability file (one JSON object per line).
pub fn read_jsonl(bytes: &[u8], source_file: &str) -> Result<TerminalBatch, FeedError> {
    let text = String::from_utf8_lossy(bytes);
    let mut batch = TerminalBatch::default();
    for (index, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        batch.rows_read += 1;
        let obj = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                batch.quarantined.push(quarantine(
                    source_file,
                    index,
                    "",
                    "line is not a JSON object".into(),
                    line.into(),
                ));
                continue;
            }
            Err(e) => {
                batch.quarantined.push(quarantine(
                    source_file,
                    index,
                    "",
                    format!("line is not valid JSON: {e}"),
                    line.into(),
                ));
                continue;
            }
        };
        let mut row = Row {
            values: HashMap::new(),
            hold_columns: Vec::new(),
            fee_columns: Vec::new(),
        };
        let mut names = HashMap::new();
        for (k, v) in obj {
            let n = super::fold_token(&k);
            if let Some(f) = field_of(&n) {
                names.insert(f, k);
                row.values.insert(f, v);
            }
        }
        match check(&row, terminals::bundled()) {
            Ok(c) => batch.checks.push((index, c, line.to_string())),
            Err((f, reason)) => {
                let field = names.get(&f).map(|k| format!("/{k}")).unwrap_or_default();
                batch
                    .quarantined
                    .push(quarantine(source_file, index, &field, reason, line.into()))
            }
        }
    }
    Ok(batch)
}

fn csv_error(source_file: &str, e: csv::Error) -> FeedError {
    FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail: format!("unreadable CSV header: {e}"),
    }
}

fn quarantine(
    source_file: &str,
    index: usize,
    field: &str,
    reason: String,
    raw: String,
) -> Quarantined {
    Quarantined::row(source_file, index, field, reason, Some(raw))
}

type FieldResult<T> = Result<T, (Field, String)>;

fn check(row: &Row, terminals: &terminals::TerminalIndex) -> FieldResult<TerminalCheck> {
    let code = row
        .text(Field::Terminal)
        .ok_or((Field::Terminal, "terminal code is missing".to_string()))?;
    let port = row.text(Field::Port);
    let terminal = terminals
        .resolve(port.as_deref(), &code)
        .map_err(|e| (Field::Terminal, e.to_string()))?;
    let tz = zone(terminal).map_err(|e| (Field::Terminal, e))?;
    let number = container_number(row)?;
    let checked_at = row
        .text(Field::CheckedAt)
        .ok_or((Field::CheckedAt, "checked-at time is missing".to_string()))
        .and_then(|s| parse_time(&s, tz).map_err(|e| (Field::CheckedAt, e)))?;
    let available_for_pickup = match row.text(Field::Available) {
        None => None,
        Some(s) => Some(parse_availability(&s).map_err(|e| (Field::Available, e))?),
    };
    let mut holds = match row.values.get(&Field::Holds) {
        Some(v) => parse_holds(v).map_err(|e| (Field::Holds, e))?,
        None => Vec::new(),
    };
    for (name, value) in &row.hold_columns {
        if let Some(status) =
            hold_status(value).map_err(|e| (Field::Holds, format!("{name} hold: {e}")))?
        {
            holds.push(TerminalHold {
                name: name.clone(),
                status: status.into(),
                description: None,
            });
        }
    }
    let currency = row.text(Field::Currency);
    let mut fees = match row.values.get(&Field::Fees) {
        Some(v) => parse_fees(v).map_err(|e| (Field::Fees, e))?,
        None => Vec::new(),
    };
    for (fee_type, value) in &row.fee_columns {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        let amount = parse_amount(value).map_err(|e| (Field::Fees, format!("{fee_type}: {e}")))?;
        fees.push(TerminalFee {
            fee_type: (*fee_type).into(),
            amount,
            currency_code: currency.clone(),
        });
    }
    let opt_time = |f: Field| -> FieldResult<Option<DateTime<Utc>>> {
        row.text(f)
            .map(|s| parse_time(&s, tz).map_err(|e| (f, e)))
            .transpose()
    };
    Ok(TerminalCheck {
        terminal_id: terminal.id,
        terminal_locode: terminal.locode.clone(),
        container_number: number,
        checked_at,
        available_for_pickup,
        location: row.text(Field::Location),
        holds,
        fees,
        last_free_day: opt_time(Field::LastFreeDay)?,
        pickup_appointment_at: opt_time(Field::Appointment)?,
        full_out_at: opt_time(Field::FullOut)?,
        chassis_number: row.text(Field::Chassis),
    })
}

fn deadline(row: &Row) -> FieldResult<LineDeadline> {
    let container_number = match row.text(Field::Container) {
        Some(_) => Some(container_number(row)?),
        None => None,
    };
    let bill_of_lading = row.text(Field::BillOfLading);
    if container_number.is_none() && bill_of_lading.is_none() {
        return Err((
            Field::Container,
            "neither a container number nor a bill of lading is given".into(),
        ));
    }
    let tz = match row.text(Field::Port) {
        Some(p) => Some(port_zone(&p).map_err(|e| (Field::Port, e))?),
        None => None,
    };
    let text = row
        .text(Field::LastFreeDay)
        .ok_or((Field::LastFreeDay, "last free day is missing".to_string()))?;
    let pickup_lfd_line = match tz {
        Some(tz) => parse_time(&text, tz),
        None => DateTime::parse_from_rfc3339(&text)
            .map(|d| d.with_timezone(&Utc))
            .map_err(|_| format!("{text:?} has no UTC offset; add a port column (UN/LOCODE) so its time zone is known")),
    }
    .map_err(|e| (Field::LastFreeDay, e))?;
    let issued_at = match row
        .text(Field::IssuedAt)
        .or_else(|| row.text(Field::CheckedAt))
    {
        Some(s) => DateTime::parse_from_rfc3339(&s)
            .map(|d| d.with_timezone(&Utc))
            .map_err(|e| {
                (
                    Field::IssuedAt,
                    format!("{s:?} is not an RFC 3339 date-time: {e}"),
                )
            })?,
        None => DateTime::UNIX_EPOCH,
    };
    Ok(LineDeadline {
        container_number,
        bill_of_lading,
        pickup_lfd_line,
        issued_at,
    })
}

/// The row's container number: terminals and lines report ISO 6346 numbers only, so one of
/// another shape is refused here although [`ContainerNumber`] would keep it.
fn container_number(row: &Row) -> FieldResult<ContainerNumber> {
    let raw = row
        .text(Field::Container)
        .ok_or((Field::Container, "container number is missing".to_string()))?;
    let number = iso6346::normalize(&raw);
    iso6346::validate(&number).map_err(|e| (Field::Container, e.to_string()))?;
    ContainerNumber::parse(&number).map_err(|e| (Field::Container, e.to_string()))
}

fn zone(t: &Terminal) -> Result<Tz, String> {
    t.time_zone
        .as_deref()
        .ok_or_else(|| format!("terminal {} ({}) has no known time zone", t.name, t.locode))?
        .parse::<Tz>()
        .map_err(|e| format!("terminal {}: {e}", t.name))
}

fn port_zone(locode: &str) -> Result<Tz, String> {
    let (ports, _) = teu_domain::reference::bundled();
    ports
        .get(locode)
        .and_then(|p| p.time_zone.as_deref())
        .ok_or_else(|| format!("unknown port {locode:?} (no UN/LOCODE with a time zone)"))?
        .parse::<Tz>()
        .map_err(|e| e.to_string())
}

const LOCAL_FORMATS: &[&str] = &[
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y %I:%M:%S %p",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
];
const DATE_FORMATS: &[&str] = &["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%d-%b-%Y"];

/// Parses a terminal time: RFC 3339 with an offset as is, a local time or date in `tz`
/// (rules in the module documentation).
pub fn parse_time(s: &str, tz: Tz) -> Result<DateTime<Utc>, String> {
    let s = s.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Ok(d.with_timezone(&Utc));
    }
    let naive = LOCAL_FORMATS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| {
            DATE_FORMATS
                .iter()
                .find_map(|f| NaiveDate::parse_from_str(s, f).ok())
                .map(|d| d.and_time(NaiveTime::MIN))
        })
        .ok_or_else(|| {
            format!("{s:?} is not a date-time teu reads (RFC 3339, YYYY-MM-DD HH:MM, MM/DD/YYYY HH:MM, DD.MM.YYYY HH:MM or a date)")
        })?;
    Ok(local_to_utc(naive, tz))
}

/// A wall-clock time in `tz` as UTC: the earlier instant when it occurs twice, one hour later
/// when it falls in a daylight-saving gap.
pub fn local_to_utc(naive: NaiveDateTime, tz: Tz) -> DateTime<Utc> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(t) => t.with_timezone(&Utc),
        LocalResult::Ambiguous(a, _) => a.with_timezone(&Utc),
        LocalResult::None => {
            let later = naive + chrono::Duration::hours(1);
            match tz.from_local_datetime(&later) {
                LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => t.with_timezone(&Utc),
                LocalResult::None => Utc.from_utc_datetime(&naive),
            }
        }
    }
}

fn parse_availability(s: &str) -> Result<bool, String> {
    match super::fold_token(s).as_str() {
        "yes" | "y" | "true" | "1" | "available" | "released" | "ready" | "availableforpickup" => {
            Ok(true)
        }
        "no" | "n" | "false" | "0" | "notavailable" | "unavailable" | "hold" | "onhold"
        | "notreleased" => Ok(false),
        _ => Err(format!(
            "availability {s:?} is not yes/no, true/false, available/not available"
        )),
    }
}

/// `Some("hold")`, `Some("pending")` or `None` (no hold) for a hold status text.
fn hold_status(s: &str) -> Result<Option<&'static str>, String> {
    match super::fold_token(s).as_str() {
        "hold" | "h" | "onhold" | "yes" | "y" | "1" | "true" | "active" => Ok(Some("hold")),
        "pending" | "p" => Ok(Some("pending")),
        "" | "released" | "release" | "no" | "n" | "none" | "0" | "false" | "cleared" => Ok(None),
        _ => Err(format!(
            "hold status {s:?} is not hold, pending or released"
        )),
    }
}

fn parse_holds(v: &Value) -> Result<Vec<TerminalHold>, String> {
    let mut out = Vec::new();
    match v {
        Value::Null => {}
        Value::String(s) => {
            for item in s.split([';', '|']).map(str::trim).filter(|i| !i.is_empty()) {
                let (name, rest) = if let Some((n, r)) = item.split_once('(') {
                    (n.trim(), r.trim_end_matches(')').trim().to_string())
                } else if let Some((n, r)) = item.split_once(':') {
                    (n.trim(), r.trim().to_string())
                } else {
                    (item, "hold".to_string())
                };
                let (status, description) = match rest.split_once(':') {
                    Some((s, d)) => (s.trim().to_string(), Some(d.trim().to_string())),
                    None => (rest, None),
                };
                if let Some(st) = hold_status(&status)? {
                    out.push(TerminalHold {
                        name: name.to_string(),
                        status: st.into(),
                        description,
                    });
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::String(name) => out.push(TerminalHold {
                        name: name.clone(),
                        status: "hold".into(),
                        description: None,
                    }),
                    Value::Object(o) => {
                        let name = o
                            .get("name")
                            .and_then(Value::as_str)
                            .ok_or("a hold object has no \"name\"")?;
                        let status = o.get("status").and_then(Value::as_str).unwrap_or("hold");
                        if let Some(st) = hold_status(status)? {
                            out.push(TerminalHold {
                                name: name.to_string(),
                                status: st.into(),
                                description: o
                                    .get("description")
                                    .and_then(Value::as_str)
                                    .map(str::to_string),
                            });
                        }
                    }
                    other => {
                        return Err(format!(
                            "a hold must be a string or an object, found {other}"
                        ))
                    }
                }
            }
        }
        other => return Err(format!("holds must be text or an array, found {other}")),
    }
    Ok(out)
}

/// The spec's fee type for a fee name as a terminal writes it.
pub fn fee_type(name: &str) -> &'static str {
    match super::fold_token(name).as_str() {
        "demurrage" | "dem" | "storage" | "portstorage" | "demurragefee" => "demurrage",
        "exam" | "customsexam" | "xray" | "inspection" | "examfee" | "cet" => "exam",
        "extendeddwell" | "extendeddwelltime" | "edt" | "dwell" | "dwellfee" => {
            "extended_dwell_time"
        }
        "total" | "totaldue" | "balance" | "balancedue" => "total",
        _ => "other",
    }
}

fn parse_amount(s: &str) -> Result<f64, String> {
    let cleaned: String = s
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
        .collect();
    cleaned
        .parse::<f64>()
        .ok()
        .filter(|a| a.is_finite() && *a >= 0.0)
        .ok_or_else(|| format!("amount {s:?} is not a non-negative number"))
}

fn currency_code(s: &str) -> Result<String, String> {
    let c = s.trim().to_ascii_uppercase();
    if c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(c)
    } else {
        Err(format!("currency {s:?} is not an ISO 4217 code"))
    }
}

fn parse_fees(v: &Value) -> Result<Vec<TerminalFee>, String> {
    let mut out = Vec::new();
    match v {
        Value::Null => {}
        Value::String(s) => {
            for item in s.split([';', '|']).map(str::trim).filter(|i| !i.is_empty()) {
                let parts: Vec<&str> = if item.contains(':') {
                    item.split(':').map(str::trim).collect()
                } else {
                    item.split_whitespace().collect()
                };
                // Name may have several words: the amount is the first numeric part.
                let pos = parts
                    .iter()
                    .position(|p| parse_amount(p).is_ok() && p.chars().any(|c| c.is_ascii_digit()))
                    .ok_or_else(|| format!("fee {item:?} has no amount"))?;
                let name = parts[..pos].join(" ");
                let amount = parse_amount(parts[pos])?;
                let currency = parts.get(pos + 1).map(|c| currency_code(c)).transpose()?;
                out.push(TerminalFee {
                    fee_type: fee_type(&name).into(),
                    amount,
                    currency_code: currency,
                });
            }
        }
        Value::Array(items) => {
            for item in items {
                let o = item
                    .as_object()
                    .ok_or_else(|| format!("a fee must be an object, found {item}"))?;
                let name = o
                    .get("type")
                    .or_else(|| o.get("name"))
                    .and_then(Value::as_str)
                    .ok_or("a fee object has no \"type\"")?;
                let amount = match o.get("amount") {
                    Some(Value::Number(n)) => n
                        .as_f64()
                        .filter(|a| *a >= 0.0)
                        .ok_or("fee amount is negative")?,
                    Some(Value::String(s)) => parse_amount(s)?,
                    _ => return Err(format!("fee {name:?} has no amount")),
                };
                let currency = o
                    .get("currency_code")
                    .or_else(|| o.get("currency"))
                    .and_then(Value::as_str)
                    .map(currency_code)
                    .transpose()?;
                out.push(TerminalFee {
                    fee_type: fee_type(name).into(),
                    amount,
                    currency_code: currency,
                });
            }
        }
        other => return Err(format!("fees must be text or an array, found {other}")),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn la() -> Tz {
        "America/Los_Angeles".parse().unwrap()
    }

    #[test]
    fn local_times_follow_daylight_saving() {
        // PST (UTC-8) in winter, PDT (UTC-7) in summer.
        assert_eq!(
            parse_time("2026-01-15 08:00", la()).unwrap().to_rfc3339(),
            "2026-01-15T16:00:00+00:00"
        );
        assert_eq!(
            parse_time("07/15/2026 08:00", la()).unwrap().to_rfc3339(),
            "2026-07-15T15:00:00+00:00"
        );
        assert_eq!(
            parse_time("07/15/2026 08:00 PM", la())
                .unwrap()
                .to_rfc3339(),
            "2026-07-16T03:00:00+00:00"
        );
        // 2026-03-08 02:30 does not exist in Los Angeles: read as 03:30 PDT.
        assert_eq!(
            parse_time("2026-03-08 02:30", la()).unwrap().to_rfc3339(),
            "2026-03-08T10:30:00+00:00"
        );
        // 2026-11-01 01:30 happens twice: the earlier (PDT) instant.
        assert_eq!(
            parse_time("2026-11-01 01:30", la()).unwrap().to_rfc3339(),
            "2026-11-01T08:30:00+00:00"
        );
        // A date alone is the start of that day; an offset is kept as given.
        assert_eq!(
            parse_time("14-Mar-2026", la()).unwrap().to_rfc3339(),
            "2026-03-14T07:00:00+00:00"
        );
        assert_eq!(
            parse_time("2026-03-14T09:00:00+01:00", la())
                .unwrap()
                .to_rfc3339(),
            "2026-03-14T08:00:00+00:00"
        );
        let rotterdam: Tz = "Europe/Amsterdam".parse().unwrap();
        assert_eq!(
            parse_time("14.03.2026 09:00", rotterdam)
                .unwrap()
                .to_rfc3339(),
            "2026-03-14T08:00:00+00:00"
        );
        assert!(parse_time("soon", la())
            .unwrap_err()
            .contains("not a date-time"));
    }

    #[test]
    fn csv_variants_and_bad_rows() {
        let csv = "Container #,Terminal,Port,Last Checked,Available,Yard Location,Customs Hold,Freight Hold,Demurrage,Currency,LFD,Appointment,Chassis No\n\
            MSKU1234565,TRAP,USLAX,03/10/2026 14:05,No,B12-03-2,HOLD,RELEASED,375.50,USD,03/12/2026,,\n\
            MSKU1234565,TRAP,USLAX,03/11/2026 09:00,Yes,B12-03-2,released,released,,USD,03/12/2026,03/11/2026 13:30,ZCSU123\n\
            BADNUMBER,TRAP,USLAX,03/11/2026 09:00,Yes,,,,,,,,\n\
            MSKU1234565,NOPE1,,03/11/2026 09:00,Yes,,,,,,,,\n\
            MSKU1234565,TRAP,USLAX,yesterday,Yes,,,,,,,,\n\
            MSKU1234565,Y258,,03/11/2026 10:00,Yes,,,,,,,,\n";
        let b = read_csv(csv.as_bytes(), "terminal.csv").unwrap();
        assert_eq!(b.rows_read, 6);
        assert_eq!(b.checks.len(), 3);
        // Y258 is TraPac Los Angeles's FIRMS code: the same terminal as SMDG TRAP at USLAX.
        assert_eq!(b.checks[2].1.terminal_id, b.checks[0].1.terminal_id);
        assert_eq!(b.checks[2].1.terminal_locode, "USLAX");
        let first = &b.checks[0].1;
        assert_eq!(first.available_for_pickup, Some(false));
        assert_eq!(
            first.holds,
            vec![TerminalHold {
                name: "CUSTOMS".into(),
                status: "hold".into(),
                description: None
            }]
        );
        assert_eq!(
            first.fees,
            vec![TerminalFee {
                fee_type: "demurrage".into(),
                amount: 375.5,
                currency_code: Some("USD".into())
            }]
        );
        assert_eq!(first.checked_at.to_rfc3339(), "2026-03-10T21:05:00+00:00");
        assert_eq!(
            first.last_free_day.unwrap().to_rfc3339(),
            "2026-03-12T07:00:00+00:00"
        );
        let second = &b.checks[1].1;
        assert!(second.holds.is_empty());
        assert_eq!(
            second.pickup_appointment_at.unwrap().to_rfc3339(),
            "2026-03-11T20:30:00+00:00"
        );
        assert_eq!(second.chassis_number.as_deref(), Some("ZCSU123"));
        let q: Vec<(Option<usize>, &str)> = b
            .quarantined
            .iter()
            .map(|q| (q.index, q.pointer.as_str()))
            .collect();
        assert_eq!(
            q,
            vec![
                (Some(2), "Container #"),
                (Some(3), "Terminal"),
                (Some(4), "Last Checked")
            ]
        );
        assert!(b.quarantined[0].reason.contains("must be 11 characters"));
        assert!(b.quarantined[1].reason.contains("unknown terminal code"));
    }

    #[test]
    fn jsonl_with_structured_holds_and_fees() {
        let line = r#"{"container_number":"MSKU1234565","terminal_code":"TRAP","locode":"USLAX","checked_at":"2026-03-10T14:05:00-07:00","available_for_pickup":false,"holds":[{"name":"USDA","status":"pending","description":"fumigation"}],"fees":[{"type":"Port Storage","amount":120,"currency":"usd"},{"name":"Chassis split","amount":"45.00"}],"last_free_day":"2026-03-12"}"#;
        let b = read_jsonl(format!("{line}\nnot json\n").as_bytes(), "t.jsonl").unwrap();
        assert_eq!(b.checks.len(), 1);
        let c = &b.checks[0].1;
        assert_eq!(c.holds[0].status, "pending");
        assert_eq!(c.holds[0].description.as_deref(), Some("fumigation"));
        assert_eq!(c.fees[0].fee_type, "demurrage");
        assert_eq!(c.fees[0].currency_code.as_deref(), Some("USD"));
        assert_eq!(c.fees[1].fee_type, "other");
        assert_eq!(b.quarantined.len(), 1);
        assert_eq!(b.quarantined[0].index, Some(1));
    }

    #[test]
    fn fee_and_hold_text_forms() {
        let fees = parse_fees(&Value::String(
            "DEMURRAGE 150.00 USD; Customs Exam:300:USD | EDT 75".into(),
        ))
        .unwrap();
        let types: Vec<&str> = fees.iter().map(|f| f.fee_type.as_str()).collect();
        assert_eq!(types, vec!["demurrage", "exam", "extended_dwell_time"]);
        assert_eq!(fees[2].currency_code, None);
        let holds = parse_holds(&Value::String(
            "CUSTOMS (hold); FREIGHT:pending:awaiting payment; TMF:released".into(),
        ))
        .unwrap();
        assert_eq!(holds.len(), 2);
        assert_eq!(holds[1].description.as_deref(), Some("awaiting payment"));
        assert!(parse_holds(&Value::String("CUSTOMS:maybe".into())).is_err());
    }

    #[test]
    fn line_deadlines() {
        let csv = "bill_of_lading,container,port,pickup_lfd_line,issued_at\nMAEU123456789,,USLAX,2026-03-13,2026-03-09T00:00:00Z\n,MSKU1234565,,2026-03-14,\n";
        let b = read_csv(csv.as_bytes(), "line.csv").unwrap();
        assert_eq!(b.deadlines.len(), 1);
        assert_eq!(
            b.deadlines[0].1.pickup_lfd_line.to_rfc3339(),
            "2026-03-13T07:00:00+00:00"
        );
        assert!(b.quarantined[0].reason.contains("no UTC offset"));
        assert!(looks_like_terminal_csv(
            "bill_of_lading,container,port,pickup_lfd_line"
        ));
        assert!(looks_like_terminal_csv("Container #,Terminal,Last Checked"));
        assert!(!looks_like_terminal_csv("scac,name,legal_name"));
    }
}
