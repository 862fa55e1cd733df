//! Reference data of the DCSA generator: ports with their terminals and depots, carriers,
//! lessors, container types, delay reasons, service loops, vessel names and call signs.
//!
//! The tables are CSV files under `synth/data/` (described in `synth/data/README.md`), built
//! into the binary with `include_str!` and parsed once, on first use. A field holding a comma is
//! in double quotes; lists inside a field (owner codes, flags) are separated by spaces.

use std::sync::LazyLock;

use chrono_tz::Tz;

pub(super) struct Port {
    pub(super) code: &'static str,
    pub(super) name: &'static str,
    pub(super) tz: Tz,
    pub(super) lat: f64,
    pub(super) lon: f64,
    /// A transshipment hub.
    pub(super) hub: bool,
    /// (terminal name, SMDG code or "").
    pub(super) terminals: Vec<(&'static str, &'static str)>,
    /// (depot name, BIC facility code); empty → a generic depot in the port city.
    pub(super) depots: Vec<(&'static str, &'static str)>,
}

#[derive(Clone, Copy)]
pub(super) enum VesselStyle {
    Prefix(&'static str),
    Suffix(&'static str),
    Numbered(&'static str),
}

pub(super) struct Carrier {
    pub(super) scac: &'static str,
    /// Relative market weight.
    pub(super) weight: u32,
    /// The line's own BIC owner codes (first is the most common).
    pub(super) boxes: Vec<&'static str>,
    pub(super) flags: Vec<&'static str>,
    pub(super) seal_prefix: &'static str,
    pub(super) vessel: VesselStyle,
}

pub(super) struct LoopDef {
    /// Direction letters of the voyage numbers: forward, reverse.
    pub(super) dirs: [char; 2],
    /// (UN/LOCODE, sea days from the previous call) in forward order.
    pub(super) calls: Vec<(&'static str, f64)>,
    /// (SCAC, carrier service code).
    pub(super) operators: Vec<(&'static str, &'static str)>,
    pub(super) weight: u32,
}

const PORTS_CSV: &str = include_str!("../../data/ports.csv");
const PORT_TERMINALS_CSV: &str = include_str!("../../data/port_terminals.csv");
const PORT_DEPOTS_CSV: &str = include_str!("../../data/port_depots.csv");
const CARRIERS_CSV: &str = include_str!("../../data/carriers.csv");
const LESSORS_CSV: &str = include_str!("../../data/lessors.csv");
const CONTAINER_TYPES_CSV: &str = include_str!("../../data/container_types.csv");
const DELAY_REASONS_CSV: &str = include_str!("../../data/delay_reasons.csv");
const SERVICE_LOOPS_CSV: &str = include_str!("../../data/service_loops.csv");
const LOOP_CALLS_CSV: &str = include_str!("../../data/loop_calls.csv");
const LOOP_OPERATORS_CSV: &str = include_str!("../../data/loop_operators.csv");
const VESSEL_WORDS_CSV: &str = include_str!("../../data/vessel_words.csv");
const CALL_SIGN_PREFIXES_CSV: &str = include_str!("../../data/call_sign_prefixes.csv");

/// Ports of call, with their terminals and depots (`ports.csv`, `port_terminals.csv`,
/// `port_depots.csv`).
pub(super) static PORTS: LazyLock<Vec<Port>> = LazyLock::new(|| {
    let terminals = rows(
        "port_terminals.csv",
        PORT_TERMINALS_CSV,
        "port,terminal,smdg_code",
    );
    let depots = rows(
        "port_depots.csv",
        PORT_DEPOTS_CSV,
        "port,depot,bic_facility_code",
    );
    let ports: Vec<Port> = rows("ports.csv", PORTS_CSV, "code,name,time_zone,lat,lon,hub")
        .into_iter()
        .map(|r| {
            let of_port = |rows: &[Row]| -> Vec<(&'static str, &'static str)> {
                rows.iter()
                    .filter(|t| t.fields[0] == r.fields[0])
                    .map(|t| (t.fields[1], t.fields[2]))
                    .collect()
            };
            Port {
                code: r.fields[0],
                name: r.fields[1],
                tz: r.parse(2),
                lat: r.parse(3),
                lon: r.parse(4),
                hub: r.parse(5),
                terminals: of_port(&terminals),
                depots: of_port(&depots),
            }
        })
        .collect();
    for r in terminals.iter().chain(&depots) {
        if !ports.iter().any(|p| p.code == r.fields[0]) {
            r.fail("unknown port");
        }
    }
    for p in &ports {
        assert!(!p.terminals.is_empty(), "port {} has no terminal", p.code);
    }
    ports
});

/// Carriers (`carriers.csv`).
pub(super) static CARRIERS: LazyLock<Vec<Carrier>> = LazyLock::new(|| {
    let header = "scac,weight,owner_codes,flags,seal_prefix,vessel_naming,vessel_word";
    rows("carriers.csv", CARRIERS_CSV, header)
        .into_iter()
        .map(|r| {
            let word = r.fields[6];
            let vessel = match r.fields[5] {
                "prefix" => VesselStyle::Prefix(word),
                "suffix" => VesselStyle::Suffix(word),
                "numbered" => VesselStyle::Numbered(word),
                _ => r.fail("vessel_naming is not prefix, suffix or numbered"),
            };
            Carrier {
                scac: r.fields[0],
                weight: r.parse(1),
                boxes: r.list(2),
                flags: r.list(3),
                seal_prefix: r.fields[4],
                vessel,
            }
        })
        .collect()
});

/// Lessor owner codes (Triton, Textainer, Florens, CAI, SeaCo, Beacon, SeaCube, Touax;
/// `lessors.csv`).
pub(super) static LESSORS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    rows("lessors.csv", LESSORS_CSV, "owner_code")
        .into_iter()
        .map(|r| r.fields[0])
        .collect()
});

/// ISO 6346 size-type codes and weights (per mille; `container_types.csv`).
pub(super) static ISO_TYPES: LazyLock<Vec<(&'static str, u32)>> = LazyLock::new(|| {
    let header = "iso_size_type,weight_per_mille";
    rows("container_types.csv", CONTAINER_TYPES_CSV, header)
        .into_iter()
        .map(|r| (r.fields[0], r.parse(1)))
        .collect()
});

/// SMDG delay reason codes with a remark (`delay_reasons.csv`).
pub(super) static DELAYS: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(|| {
    rows("delay_reasons.csv", DELAY_REASONS_CSV, "code,remark")
        .into_iter()
        .map(|r| (r.fields[0], r.fields[1]))
        .collect()
});

/// Service loops with their calls and operators (`service_loops.csv`, `loop_calls.csv`,
/// `loop_operators.csv`), in file order.
pub(super) static LOOPS: LazyLock<Vec<LoopDef>> = LazyLock::new(|| {
    let calls = rows("loop_calls.csv", LOOP_CALLS_CSV, "loop,port,sea_days");
    let operators = rows(
        "loop_operators.csv",
        LOOP_OPERATORS_CSV,
        "loop,scac,service",
    );
    let loops: Vec<(&str, LoopDef)> = rows(
        "service_loops.csv",
        SERVICE_LOOPS_CSV,
        "loop,directions,weight",
    )
    .into_iter()
    .map(|r| {
        let name = r.fields[0];
        let dirs: Vec<char> = r.fields[1].chars().collect();
        let [forward, reverse] = dirs[..] else {
            r.fail("directions is not two letters");
        };
        let def = LoopDef {
            dirs: [forward, reverse],
            calls: calls
                .iter()
                .filter(|c| c.fields[0] == name)
                .map(|c| (c.fields[1], c.parse(2)))
                .collect(),
            operators: operators
                .iter()
                .filter(|o| o.fields[0] == name)
                .map(|o| (o.fields[1], o.fields[2]))
                .collect(),
            weight: r.parse(2),
        };
        (name, def)
    })
    .collect();
    for r in calls.iter().chain(&operators) {
        if !loops.iter().any(|(name, _)| *name == r.fields[0]) {
            r.fail("unknown loop");
        }
    }
    loops.into_iter().map(|(_, def)| def).collect()
});

/// Words of vessel names (`vessel_words.csv`).
pub(super) static VESSEL_WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    rows("vessel_words.csv", VESSEL_WORDS_CSV, "word")
        .into_iter()
        .map(|r| r.fields[0])
        .collect()
});

/// ITU call sign prefixes by flag (`call_sign_prefixes.csv`).
static CALL_SIGN_PREFIXES: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(|| {
    rows(
        "call_sign_prefixes.csv",
        CALL_SIGN_PREFIXES_CSV,
        "flag,prefix",
    )
    .into_iter()
    .map(|r| (r.fields[0], r.fields[1]))
    .collect()
});

/// The call sign prefix of a flag; `XX` for a flag without one.
pub(super) fn call_sign_prefix(flag: &str) -> &'static str {
    CALL_SIGN_PREFIXES
        .iter()
        .find(|(f, _)| *f == flag)
        .map_or("XX", |(_, prefix)| *prefix)
}

/// One data row of a table: its fields, borrowed from the built-in text.
struct Row {
    file: &'static str,
    line: usize,
    fields: Vec<&'static str>,
}

impl Row {
    fn fail(&self, why: &str) -> ! {
        panic!("synth/data/{}:{}: {why}", self.file, self.line)
    }

    fn parse<T: std::str::FromStr>(&self, i: usize) -> T {
        self.fields[i]
            .parse()
            .unwrap_or_else(|_| self.fail(&format!("cannot parse {:?}", self.fields[i])))
    }

    /// A space-separated list.
    fn list(&self, i: usize) -> Vec<&'static str> {
        self.fields[i].split(' ').collect()
    }
}

/// The data rows of a CSV table whose first line is `header`; every row has as many fields as
/// the header.
fn rows(file: &'static str, text: &'static str, header: &str) -> Vec<Row> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "synth/data/{file}: header");
    let width = header.split(',').count();
    lines
        .enumerate()
        .map(|(i, line)| {
            let mut row = Row {
                file,
                line: i + 2,
                fields: Vec::with_capacity(width),
            };
            match split_fields(line) {
                Some(fields) if fields.len() == width => row.fields = fields,
                _ => row.fail(&format!("not {width} fields")),
            }
            row
        })
        .collect()
}

/// The fields of one CSV line: separated by commas, a field in double quotes may hold commas
/// (but no double quote).
fn split_fields(mut line: &'static str) -> Option<Vec<&'static str>> {
    let mut fields = Vec::new();
    loop {
        let (field, rest) = if let Some(quoted) = line.strip_prefix('"') {
            let end = quoted.find('"')?;
            let rest = &quoted[end + 1..];
            if !(rest.is_empty() || rest.starts_with(',')) {
                return None;
            }
            (&quoted[..end], rest)
        } else {
            let end = line.find(',').unwrap_or(line.len());
            if line[..end].contains('"') {
                return None;
            }
            (&line[..end], &line[end..])
        };
        fields.push(field);
        match rest.strip_prefix(',') {
            Some(rest) => line = rest,
            None => return Some(fields),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of every table parses (a bad row panics with its file and line).
    #[test]
    fn every_row_parses() {
        assert_eq!(PORTS.len(), PORTS_CSV.lines().count() - 1);
        let terminals: usize = PORTS.iter().map(|p| p.terminals.len()).sum();
        assert_eq!(terminals, PORT_TERMINALS_CSV.lines().count() - 1);
        let depots: usize = PORTS.iter().map(|p| p.depots.len()).sum();
        assert_eq!(depots, PORT_DEPOTS_CSV.lines().count() - 1);
        assert_eq!(CARRIERS.len(), CARRIERS_CSV.lines().count() - 1);
        assert_eq!(LESSORS.len(), LESSORS_CSV.lines().count() - 1);
        assert_eq!(ISO_TYPES.len(), CONTAINER_TYPES_CSV.lines().count() - 1);
        assert_eq!(DELAYS.len(), DELAY_REASONS_CSV.lines().count() - 1);
        assert_eq!(LOOPS.len(), SERVICE_LOOPS_CSV.lines().count() - 1);
        let calls: usize = LOOPS.iter().map(|l| l.calls.len()).sum();
        assert_eq!(calls, LOOP_CALLS_CSV.lines().count() - 1);
        let operators: usize = LOOPS.iter().map(|l| l.operators.len()).sum();
        assert_eq!(operators, LOOP_OPERATORS_CSV.lines().count() - 1);
        assert_eq!(VESSEL_WORDS.len(), VESSEL_WORDS_CSV.lines().count() - 1);
        assert_eq!(
            CALL_SIGN_PREFIXES.len(),
            CALL_SIGN_PREFIXES_CSV.lines().count() - 1
        );
        // Every code a table refers to is defined.
        for l in LOOPS.iter() {
            for (port, _) in &l.calls {
                assert!(PORTS.iter().any(|p| p.code == *port), "{port}");
            }
            for (scac, _) in &l.operators {
                assert!(CARRIERS.iter().any(|c| c.scac == *scac), "{scac}");
            }
        }
        for c in CARRIERS.iter() {
            for flag in &c.flags {
                assert_ne!(call_sign_prefix(flag), "XX", "{flag}");
            }
        }
    }

    #[test]
    fn quoted_fields() {
        assert_eq!(
            split_fields("\"a, b\",c,,\"d\""),
            Some(vec!["a, b", "c", "", "d"])
        );
        assert_eq!(split_fields("a\"b,c"), None);
        assert_eq!(split_fields("\"a\"b,c"), None);
        assert_eq!(split_fields("\"a,c"), None);
    }
}
