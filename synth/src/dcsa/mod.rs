//! Deterministic generator of realistic DCSA Track & Trace 2.2 event feeds.
//!
//! The output has exactly the JSON shape of a DCSA T&T 2.2 `GET /events` response (see
//! `data/dcsa/tnt-220-response.json` and the resolved OpenAPI `TNT_v2.2.0-resolved.yaml`): a JSON
//! array of `SHIPMENT`, `TRANSPORT` and `EQUIPMENT` events.
//!
//! What is real:
//! - carriers with their SCACs, bill-of-lading prefixes and their own BIC container owner codes
//!   (about 20% of the boxes are lessor boxes: Triton, Textainer, Florens, CAI, SeaCo, …);
//! - container numbers are valid ISO 6346 (owner code + `U` + 6-digit serial + check digit);
//! - port rotations of a dozen service loops with real UN/LOCODEs and real terminals (SMDG codes
//!   from the DCSA facility list), realistic sea days, port stays and schedule slippage;
//! - about 30% of shipments transship at a real hub (SGSIN, LKCMB, AEJEA, MAPTM, ESALG, PAMIT,
//!   KRPUS) onto another vessel and voyage of the same carrier;
//! - voyages are weekly and shared: every shipment on the same carrier, service, direction and
//!   week sails on the same vessel (valid IMO check digit), with the same `transportCallID`s and
//!   the same estimated and actual times.
//!
//! Everything happens relative to a fixed "now" ([`generator_now`], 2026-11-01T00:00:00Z): only
//! events created at or before it are emitted, `ACT` events are never after it, and future
//! milestones are `PLN`/`EST`. Shipments are spread from fully completed (empty returned) to
//! booked only.
//!
//! Layout choices: `LOAD`/`DISC` equipment events are located by their `transportCall` (vessel,
//! voyage, UN/LOCODE, SMDG terminal code), gate events by an `eventLocation` (terminal, or a depot
//! with its BIC facility code where the DCSA facility list has one); seals appear on the laden
//! gate-in at the POL. Transport and equipment events carry `documentReferences` (`BKG`, `TRD`);
//! transport events and `TRD`/`SRM` shipment events list every container as an `EQ` reference.
//!
//! Determinism: all randomness comes from `ChaCha8Rng::seed_from_u64(seed)` (shipment level) and
//! from ChaCha8 streams seeded by a hash of the seed and a voyage key (voyage level); event ids
//! are UUIDs built from those streams. The same [`GenOptions`] always give byte-identical JSON.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::truth::{ShipmentJourney, TruthLeg, Written};
use teu_pipeline::iso6346::check_digit as iso6346_check_digit;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenOptions {
    /// Number of shipments (bills of lading). Each has 1–6 containers (2.3 on average) and
    /// on average about 51 events (about 22 per container), so 20,000 shipments give about a
    /// million events. In memory a `serde_json::Value` event takes about 5.5 KB.
    pub shipments: usize,
    /// Seed of every random choice; the same options always give the same output.
    pub seed: u64,
    /// Split the output into files of about this many events, never splitting one shipment
    /// across files (a file holds more only when a single shipment is larger). `0` = one file.
    pub events_per_file: usize,
}

/// One generated feed file: a DCSA T&T 2.2 event array.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedFile {
    /// File name, `generated-0001.json`, `generated-0002.json`, … (1-based, 4 digits or more).
    pub name: String,
    /// The events, each a DCSA T&T 2.2 event object, grouped by shipment and, within a
    /// shipment, ordered by `eventCreatedDateTime`.
    pub events: Vec<Value>,
}

/// The fixed "now" of every generated feed, RFC 3339.
pub const GENERATOR_NOW: &str = "2026-11-01T00:00:00Z";

/// The fixed "now" of every generated feed (2026-11-01T00:00:00Z, the same for every seed):
/// no event is created after it and no `ACT` event happens after it.
pub fn generator_now() -> DateTime<Utc> {
    DateTime::from_timestamp(NOW, 0).expect("valid timestamp")
}

/// Generates DCSA T&T 2.2 event arrays. Same options => byte-identical output.
///
/// Returns at least one file (an empty one when `opts.shipments` is 0). Shipments keep their
/// generation order across files; see [`GenOptions::events_per_file`] for the split. Never fails.
/// Booking, bill-of-lading and container serials are unique while there are fewer than
/// 10 million shipments and 1 million containers.
pub fn generate(opts: &GenOptions) -> Vec<GeneratedFile> {
    generate_inner(opts, false).0
}

/// [`generate`], and the ground truth of what the written events say about each container
/// ([`crate::truth`]: one JSON object per container, in generation order).
pub fn generate_with_truth(opts: &GenOptions) -> (Vec<GeneratedFile>, Vec<Value>) {
    generate_inner(opts, true)
}

fn generate_inner(opts: &GenOptions, truth: bool) -> (Vec<GeneratedFile>, Vec<Value>) {
    let ctx = Ctx::new();
    let mut g = Gen::new(&ctx, opts.seed);
    if truth {
        g.truth = Some(Vec::new());
    }
    let mut files: Vec<GeneratedFile> = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    for i in 0..opts.shipments {
        let evs = g.shipment(i as u64);
        if opts.events_per_file > 0
            && !cur.is_empty()
            && cur.len() + evs.len() > opts.events_per_file
        {
            let n = files.len() + 1;
            files.push(GeneratedFile {
                name: file_name(n),
                events: std::mem::take(&mut cur),
            });
        }
        cur.extend(evs);
    }
    if !cur.is_empty() || files.is_empty() {
        let n = files.len() + 1;
        files.push(GeneratedFile {
            name: file_name(n),
            events: cur,
        });
    }
    (files, g.truth.unwrap_or_default())
}

/// Generates shipments one at a time, in the order [`generate`] uses with the same `seed`,
/// until at least `containers` containers exist (the last shipment may take the count a few
/// boxes past it). Each shipment's events (DCSA T&T 2.2 objects, ordered by
/// `eventCreatedDateTime`) go to `sink` with the shipment's number of containers and the
/// ground truth of its containers ([`crate::truth`], one JSON object each); only one shipment
/// is held in memory, so any size streams. Stops at the first error of `sink` and returns it.
/// Returns the number of shipments generated.
pub fn stream_shipments<E>(
    seed: u64,
    containers: usize,
    mut sink: impl FnMut(Vec<Value>, usize, Vec<Value>) -> Result<(), E>,
) -> Result<usize, E> {
    let ctx = Ctx::new();
    let mut g = Gen::new(&ctx, seed);
    g.truth = Some(Vec::new());
    let mut k = 0u64;
    while (g.containers as usize) < containers {
        let before = g.containers;
        let events = g.shipment(k);
        k += 1;
        let truth = g.truth.as_mut().map(std::mem::take).unwrap_or_default();
        sink(events, (g.containers - before) as usize, truth)?;
    }
    Ok(k as usize)
}

/// Writes one file's events as a compact JSON array, one event per line (the layout of
/// [`write_to_dir`]) to `w`.
///
/// # Errors
/// Any I/O error of `w`.
pub fn write_events(events: &[Value], w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, ev) in events.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, ev)?;
    }
    w.write_all(b"\n]\n")
}

/// Writes each file as a compact JSON array, one event per line, into `dir` (created if
/// missing, with its parents); returns the paths written, in order. Existing files of the same
/// name are overwritten.
///
/// # Errors
/// Any I/O error creating the directory or writing a file.
pub fn write_to_dir(files: &[GeneratedFile], dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut paths = Vec::with_capacity(files.len());
    for f in files {
        let path = dir.join(&f.name);
        let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(&path)?);
        write_events(&f.events, &mut w)?;
        w.flush()?;
        paths.push(path);
    }
    Ok(paths)
}

/// Total number of events, handy for benchmarks.
pub fn event_count(files: &[GeneratedFile]) -> usize {
    files.iter().map(|f| f.events.len()).sum()
}

fn file_name(n: usize) -> String {
    format!("generated-{n:04}.json")
}

// ---------------------------------------------------------------------------------------------
// Time

const H: i64 = 3600;
const D: i64 = 86_400;
const W: i64 = 7 * D;
/// 2026-11-01T00:00:00Z.
const NOW: i64 = 1_793_491_200;
/// 2026-01-05T00:00:00Z, a Monday: week 0 of the weekly services.
const EPOCH: i64 = 1_767_571_200;

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn push_digits(s: &mut String, n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    let mut n = n;
    while n > 0 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = (buf.len() - width).min(i);
    for &b in &buf[start..] {
        s.push(b as char);
    }
}

/// RFC 3339 with seconds: `Z` for offset 0, else `+hh:mm`.
fn fmt_time(secs: i64, offset: i32) -> String {
    let local = secs + i64::from(offset);
    let (y, m, d) = civil_from_days(local.div_euclid(D));
    let sod = local.rem_euclid(D) as u64;
    let mut s = String::with_capacity(25);
    push_digits(&mut s, y.max(0) as u64, 4);
    s.push('-');
    push_digits(&mut s, u64::from(m), 2);
    s.push('-');
    push_digits(&mut s, u64::from(d), 2);
    s.push('T');
    push_digits(&mut s, sod / 3600, 2);
    s.push(':');
    push_digits(&mut s, sod / 60 % 60, 2);
    s.push(':');
    push_digits(&mut s, sod % 60, 2);
    if offset == 0 {
        s.push('Z');
    } else {
        s.push(if offset < 0 { '-' } else { '+' });
        let a = offset.unsigned_abs() / 60;
        push_digits(&mut s, u64::from(a / 60), 2);
        s.push(':');
        push_digits(&mut s, u64::from(a % 60), 2);
    }
    s
}

fn fmt_utc(secs: i64) -> String {
    fmt_time(secs, 0)
}

/// Local time at a port (with its UTC offset at that instant, DST included).
fn fmt_local(secs: i64, tz: Tz) -> String {
    let naive = DateTime::from_timestamp(secs, 0)
        .unwrap_or_default()
        .naive_utc();
    let off = tz.offset_from_utc_datetime(&naive).fix().local_minus_utc();
    fmt_time(secs, off)
}

// ---------------------------------------------------------------------------------------------
// Randomness helpers

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uni(rng: &mut ChaCha8Rng, a: f64, b: f64) -> f64 {
    a + (b - a) * rng.random::<f64>()
}

/// Uniform seconds in `[a, b)` hours.
fn hours(rng: &mut ChaCha8Rng, a: f64, b: f64) -> i64 {
    (uni(rng, a, b) * H as f64) as i64
}

fn round_to(t: i64, unit: i64) -> i64 {
    (t + unit / 2).div_euclid(unit) * unit
}

fn pick_weighted(rng: &mut ChaCha8Rng, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    let mut x = rng.random_range(0..total.max(1));
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

/// A bijection of `k` onto `[0, modulus)` for `k < modulus` (`modulus` a power of ten).
fn perm(k: u64, offset: u64, modulus: u64) -> u64 {
    const A: u128 = 2_862_933_555_777_941_757; // odd, not a multiple of 5
    ((u128::from(k) * A + u128::from(offset)) % u128::from(modulus)) as u64
}

fn letter(x: u64) -> char {
    (b'A' + (x % 26) as u8) as char
}

fn random_uuid(rng: &mut ChaCha8Rng) -> String {
    let bytes: [u8; 16] = rng.random();
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// ISO 6346 and IMO

fn imo_check_digit(six: u32) -> u32 {
    let mut sum = 0;
    let mut n = six;
    for w in 2..=7 {
        sum += (n % 10) * w;
        n /= 10;
    }
    sum % 10
}

// ---------------------------------------------------------------------------------------------
// Reference data: ports, carriers, service loops
// (the CSV files under `synth/data/`, loaded by `tables`)

mod tables;

use tables::{
    call_sign_prefix, VesselStyle, CARRIERS, DELAYS, ISO_TYPES, LESSORS, LOOPS, PORTS, VESSEL_WORDS,
};

// ---------------------------------------------------------------------------------------------
// Derived tables

/// One direction of a loop, with its proforma (planned) schedule relative to the departure
/// from its first port.
struct Route {
    lp: usize,
    dir: usize,
    ports: Vec<usize>,
    arr_off: Vec<i64>,
    dep_off: Vec<i64>,
    /// Offset of this direction's first departure from the forward one's (the vessel turns).
    base_off: i64,
}

/// A transshipment connection: leg 1 on `a` up to the hub (index `h`), leg 2 on `b` from the
/// hub (index `g`), with the valid (POL index on a, POD index on b) pairs and the carriers that
/// run both loops.
struct Conn {
    a: usize,
    h: usize,
    b: usize,
    g: usize,
    pairs: Vec<(usize, usize)>,
    carriers: Vec<(usize, u32)>,
}

struct Ctx {
    /// routes[2 * loop + dir]
    routes: Vec<Route>,
    /// Vessels needed for a weekly service of each loop (rotation weeks, at most 16).
    rotation_weeks: Vec<i64>,
    /// operators[loop] = (carrier index, service code)
    operators: Vec<Vec<(usize, &'static str)>>,
    conns: Vec<Conn>,
    generic_depots: Vec<[String; 2]>,
}

fn port_index(code: &str) -> usize {
    PORTS
        .iter()
        .position(|p| p.code == code)
        .unwrap_or_else(|| panic!("unknown port {code}"))
}

fn carrier_index(scac: &str) -> usize {
    CARRIERS
        .iter()
        .position(|c| c.scac == scac)
        .unwrap_or_else(|| panic!("unknown carrier {scac}"))
}

fn distance_km(a: usize, b: usize) -> f64 {
    let (pa, pb) = (&PORTS[a], &PORTS[b]);
    let (la, lb) = (pa.lat.to_radians(), pb.lat.to_radians());
    let dl = (pb.lon - pa.lon).to_radians();
    let c = la.sin() * lb.sin() + la.cos() * lb.cos() * dl.cos();
    6371.0 * c.clamp(-1.0, 1.0).acos()
}

fn same_country(a: usize, b: usize) -> bool {
    PORTS[a].code[..2] == PORTS[b].code[..2]
}

impl Ctx {
    fn new() -> Ctx {
        let mut routes = Vec::new();
        let mut rotation_weeks = Vec::new();
        let mut operators = Vec::new();
        for (lp, def) in LOOPS.iter().enumerate() {
            let fwd: Vec<usize> = def.calls.iter().map(|c| port_index(c.0)).collect();
            let n = fwd.len();
            // Planned port stays (hours), fixed per loop and port: hubs and big gateways longer.
            let stay: Vec<i64> = (0..n)
                .map(|k| {
                    let hub = PORTS[fwd[k]].hub;
                    let r = mix(lp as u64, k as u64 + 77) % 13;
                    (if hub { 26 } else { 16 } + r as i64) * H
                })
                .collect();
            let mut spans = [0i64; 2];
            for dir in 0..2 {
                let order: Vec<usize> = if dir == 0 {
                    (0..n).collect()
                } else {
                    (0..n).rev().collect()
                };
                let mut arr_off = Vec::with_capacity(n);
                let mut dep_off = Vec::with_capacity(n);
                for (j, &k) in order.iter().enumerate() {
                    if j == 0 {
                        arr_off.push(-stay[k]);
                        dep_off.push(0);
                    } else {
                        // Sea days between consecutive calls, in either direction.
                        let prev = order[j - 1];
                        let sea = def.calls[k.max(prev)].1;
                        let a = dep_off[j - 1] + (sea * D as f64) as i64;
                        arr_off.push(a);
                        dep_off.push(a + stay[k]);
                    }
                }
                spans[dir] = dep_off[n - 1];
                routes.push(Route {
                    lp,
                    dir,
                    ports: order.iter().map(|&k| fwd[k]).collect(),
                    arr_off,
                    dep_off,
                    base_off: if dir == 0 { 0 } else { spans[0] },
                });
            }
            let rt = spans[0] + spans[1];
            rotation_weeks.push(((rt + W - 1) / W).clamp(1, 16));
            operators.push(
                def.operators
                    .iter()
                    .map(|(s, code)| (carrier_index(s), *code))
                    .collect::<Vec<_>>(),
            );
        }

        let mut conns = Vec::new();
        for (ai, ra) in routes.iter().enumerate() {
            for (h, &hub) in ra.ports.iter().enumerate() {
                if h == 0 || !PORTS[hub].hub {
                    continue;
                }
                for (bi, rb) in routes.iter().enumerate() {
                    if rb.lp == ra.lp {
                        continue;
                    }
                    let Some(g) = rb.ports.iter().position(|&p| p == hub) else {
                        continue;
                    };
                    if g + 1 >= rb.ports.len() {
                        continue;
                    }
                    let mut pairs = Vec::new();
                    for pi in 0..h {
                        for di in g + 1..rb.ports.len() {
                            let (pol, pod) = (ra.ports[pi], rb.ports[di]);
                            if same_country(pol, pod) || ra.ports.contains(&pod) {
                                continue;
                            }
                            let direct = distance_km(pol, pod);
                            let via = distance_km(pol, hub) + distance_km(hub, pod);
                            if via <= 1.5 * direct {
                                pairs.push((pi, di));
                            }
                        }
                    }
                    let carriers: Vec<(usize, u32)> = operators[ra.lp]
                        .iter()
                        .filter(|(c, _)| operators[rb.lp].iter().any(|(c2, _)| c2 == c))
                        .map(|(c, _)| (*c, CARRIERS[*c].weight))
                        .collect();
                    if !pairs.is_empty() && !carriers.is_empty() {
                        conns.push(Conn {
                            a: ai,
                            h,
                            b: bi,
                            g,
                            pairs,
                            carriers,
                        });
                    }
                }
            }
        }

        let generic_depots = PORTS
            .iter()
            .map(|p| {
                let city = p.name.to_uppercase();
                [
                    format!("{city} EMPTY CONTAINER DEPOT"),
                    format!("{city} INLAND CONTAINER DEPOT"),
                ]
            })
            .collect();

        Ctx {
            routes,
            rotation_weeks,
            operators,
            conns,
            generic_depots,
        }
    }

    fn service_code(&self, lp: usize, carrier: usize) -> &'static str {
        self.operators[lp]
            .iter()
            .find(|(c, _)| *c == carrier)
            .map(|(_, s)| *s)
            .unwrap_or("XXX")
    }

    /// Weekday and hour of a carrier's departure from the first port of a loop.
    fn service_offset(&self, lp: usize, carrier: usize) -> i64 {
        let h = mix(lp as u64 * 131 + 7, carrier as u64 + 1);
        (h % 7) as i64 * D + ((h >> 8) % 4) as i64 * 6 * H
    }

    /// Planned departure of the first port of route `ri` in week `w`.
    fn d0(&self, ri: usize, carrier: usize, w: i64) -> i64 {
        let r = &self.routes[ri];
        EPOCH + w * W + self.service_offset(r.lp, carrier) + r.base_off
    }

    fn terminal(&self, port: usize, carrier: usize) -> (&'static str, &'static str) {
        let t = &PORTS[port].terminals;
        t[(mix(port as u64 + 1000, carrier as u64) % t.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Voyages

/// One weekly voyage of a carrier on one direction of a loop: planned and actual times of
/// every call, shared by every shipment on board.
struct Voyage {
    route: usize,
    carrier: usize,
    key: u64,
    voyage_no: String,
    p_arr: Vec<i64>,
    p_dep: Vec<i64>,
    a_arr: Vec<i64>,
    a_dep: Vec<i64>,
    reason: usize,
    vessel: Value,
    service: &'static str,
}

/// One version of an estimate: when it was published and the time it announced.
struct Ver {
    created: i64,
    value: i64,
    reason: Option<usize>,
}

impl Voyage {
    fn new(ctx: &Ctx, seed: u64, ri: usize, carrier: usize, w: i64) -> Voyage {
        let r = &ctx.routes[ri];
        let key = mix(
            mix(
                seed,
                ((r.lp as u64) << 40) | ((r.dir as u64) << 32) | carrier as u64,
            ),
            w as u64,
        );
        let mut rng = ChaCha8Rng::seed_from_u64(key);
        let d0 = ctx.d0(ri, carrier, w);
        let n = r.ports.len();
        let p_arr: Vec<i64> = r.arr_off.iter().map(|o| d0 + o).collect();
        let p_dep: Vec<i64> = r.dep_off.iter().map(|o| d0 + o).collect();
        let mut a_arr = Vec::with_capacity(n);
        let mut a_dep = Vec::with_capacity(n);
        // Delay at the first departure, then a drifting walk along the rotation (hours).
        let x: f64 = rng.random();
        let mut delay = if x < 0.65 {
            uni(&mut rng, -4.0, 10.0)
        } else if x < 0.9 {
            uni(&mut rng, 10.0, 48.0)
        } else {
            uni(&mut rng, 48.0, 144.0)
        };
        for k in 0..n {
            let (arr, dep);
            if k == 0 {
                arr = p_arr[0] + ((delay + uni(&mut rng, -4.0, 4.0)) * H as f64) as i64;
                dep = p_dep[0] + (delay * H as f64) as i64;
            } else {
                let sea_days = (p_arr[k] - p_dep[k - 1]) as f64 / D as f64;
                delay += uni(&mut rng, -0.06, 0.1) * sea_days * 24.0;
                if rng.random_bool(0.08) {
                    delay += uni(&mut rng, 12.0, 60.0);
                }
                delay = delay.max(-10.0);
                arr = p_arr[k] + (delay * H as f64) as i64;
                let mut stay_delta = uni(&mut rng, -6.0, 10.0);
                if rng.random_bool(0.1) {
                    stay_delta += uni(&mut rng, 8.0, 36.0);
                }
                delay = (delay + stay_delta).max(-10.0);
                dep = p_dep[k] + (delay * H as f64) as i64;
            }
            let arr = round_to(arr, 60);
            let dep = round_to(dep.max(arr + 8 * H), 60);
            a_arr.push(arr);
            a_dep.push(dep);
        }
        let reason = rng.random_range(0..DELAYS.len());

        // Vessel: the weekly service needs `rotation_weeks` ships; the same ship sails the
        // forward voyage of week w and the return voyage of week w.
        let rot = ctx.rotation_weeks[r.lp];
        let slot = w.rem_euclid(rot) as usize;
        let vessel = vessel_value(carrier, r.lp * 16 + slot);

        let (iso_year, iso_week) = {
            let dt = DateTime::from_timestamp(d0, 0).unwrap_or_default();
            let iw = dt.iso_week();
            (iw.year(), iw.week())
        };
        let voyage_no = format!(
            "{}{:02}{}",
            iso_year.rem_euclid(10),
            iso_week,
            LOOPS[r.lp].dirs[r.dir]
        );
        Voyage {
            route: ri,
            carrier,
            key,
            voyage_no,
            p_arr,
            p_dep,
            a_arr,
            a_dep,
            reason,
            vessel,
            service: ctx.service_code(r.lp, carrier),
        }
    }

    /// The published estimates of the arrival (`arri`) or departure at call `k`.
    fn versions(&self, k: usize, arri: bool) -> Vec<Ver> {
        let mut rng = ChaCha8Rng::seed_from_u64(mix(self.key, ((k as u64) << 1) | u64::from(arri)));
        let (planned, actual) = if arri {
            (self.p_arr[k], self.a_arr[k])
        } else {
            (self.p_dep[k], self.a_dep[k])
        };
        let voyage_start = self.p_dep[0] - 7 * D;
        let (start, max_n) = if arri {
            (voyage_start, 6)
        } else {
            (voyage_start.max(self.p_arr[k] - 5 * D), 2)
        };
        let end = actual - hours(&mut rng, 6.0, 20.0);
        if end <= start {
            return Vec::new();
        }
        let n = (((end - start) / (4 * D + 12 * H)) as usize + 1).clamp(1, max_n);
        let mut out = Vec::with_capacity(n);
        let mut prev = planned;
        for i in 1..=n {
            let f = i as f64 / n as f64;
            let created = start
                + ((end - start) as f64 * ((i - 1) as f64 + uni(&mut rng, 0.2, 0.9)) / n as f64)
                    as i64;
            let created = round_to(created, 60);
            let amp = (1.0 - f) * 30.0 + 2.0;
            let raw = planned as f64
                + (actual - planned) as f64 * f
                + uni(&mut rng, -amp, amp) * H as f64;
            let value = round_to(raw as i64, H).max(round_to(created + H + H / 2, H));
            let reason = ((value - prev).abs() >= 12 * H).then_some(self.reason);
            prev = value;
            out.push(Ver {
                created,
                value,
                reason,
            });
        }
        out
    }
}

fn vessel_value(carrier: usize, idx: usize) -> Value {
    let c = &CARRIERS[carrier];
    // Unique within a carrier: `idx` < 12 loops × 16 slots ≤ VESSEL_WORDS.len().
    let word = VESSEL_WORDS[(idx + carrier * 37) % VESSEL_WORDS.len()];
    let name = match c.vessel {
        VesselStyle::Prefix(p) => format!("{p} {word}"),
        VesselStyle::Suffix(s) => format!("{word} {s}"),
        VesselStyle::Numbered(p) => format!("{p} {}", 301 + idx),
    };
    // Unique 6-digit IMO body per (carrier, vessel), then the check digit.
    let k = (carrier * 1000 + idx) as u64;
    let body = 900_000 + (k * 7919 % 99_991) as u32;
    let imo = format!("{body}{}", imo_check_digit(body));
    let h = mix(k, 0xC0FFEE);
    let flag = c.flags[(h % c.flags.len() as u64) as usize];
    let mut call_sign = String::from(call_sign_prefix(flag));
    let alnum = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for i in 0..3 {
        call_sign.push(alnum[((h >> (8 + 6 * i)) % 36) as usize] as char);
    }
    let mut m = Map::with_capacity(6);
    m.insert("vesselIMONumber".into(), Value::String(imo));
    m.insert("vesselName".into(), Value::String(name));
    m.insert("vesselFlag".into(), flag.into());
    m.insert("vesselCallSignNumber".into(), Value::String(call_sign));
    m.insert("vesselOperatorCarrierCode".into(), c.scac.into());
    m.insert(
        "vesselOperatorCarrierCodeListProvider".into(),
        "NMFTA".into(),
    );
    Value::Object(m)
}

/// Transport call at call `k` of a voyage.
fn transport_call(ctx: &Ctx, seed: u64, v: &Voyage, k: usize) -> Value {
    let r = &ctx.routes[v.route];
    let port = r.ports[k];
    let (tname, smdg) = ctx.terminal(port, v.carrier);
    let id_key = format!(
        "{seed}|{}|{}|{}|{}|{}",
        CARRIERS[v.carrier].scac,
        v.service,
        v.voyage_no,
        PORTS[port].code,
        k + 1
    );
    let id = Uuid::new_v5(&TRANSPORT_CALL_NS, id_key.as_bytes());
    let mut m = Map::with_capacity(12);
    m.insert(
        "transportCallID".into(),
        Value::String(id.hyphenated().to_string()),
    );
    m.insert("carrierServiceCode".into(), v.service.into());
    m.insert(
        "exportVoyageNumber".into(),
        Value::String(v.voyage_no.clone()),
    );
    m.insert(
        "importVoyageNumber".into(),
        Value::String(v.voyage_no.clone()),
    );
    m.insert(
        "transportCallSequenceNumber".into(),
        Value::from(k as u64 + 1),
    );
    m.insert("UNLocationCode".into(), PORTS[port].code.into());
    if smdg.is_empty() {
        m.insert("otherFacility".into(), tname.into());
    } else {
        m.insert("facilityCode".into(), smdg.into());
        m.insert("facilityCodeListProvider".into(), "SMDG".into());
    }
    m.insert("facilityTypeCode".into(), "POTE".into());
    m.insert("modeOfTransport".into(), "VESSEL".into());
    m.insert("vessel".into(), v.vessel.clone());
    Value::Object(m)
}

const TRANSPORT_CALL_NS: Uuid = Uuid::from_u128(0x2b1e_7f3c_9d4a_4c61_8e5f_0a7d_3c9b_61e2);

// ---------------------------------------------------------------------------------------------
// Shipments

/// The generator state across shipments.
struct Gen<'a> {
    ctx: &'a Ctx,
    seed: u64,
    rng: ChaCha8Rng,
    bl_off: u64,
    bkg_off: u64,
    box_off: u64,
    containers: u64,
    /// Per container, what the written events say ([`truth`]); filled only when asked.
    truth: Option<Vec<Value>>,
}

/// One leg: a voyage from call `from` to call `to`.
struct Leg {
    v: Voyage,
    from: usize,
    to: usize,
}

struct Unit {
    number: String,
    iso: &'static str,
    seals: Value,
    gtot_empty: i64,
    depot_out: Value,
    gtin: i64,
    load_pol: i64,
    hub_disc: i64,
    hub_load: i64,
    disc_pod: i64,
    pickup: i64,
    empty_return: i64,
    depot_in: Value,
}

/// Events of one shipment being built.
struct Ship {
    out: Vec<(i64, u32, Value)>,
    seq: u32,
    /// When the booking was confirmed: plans are published then.
    conf: i64,
    docrefs: Value,
    eqrefs: Value,
}

impl Ship {
    fn push(&mut self, created: i64, m: Map<String, Value>) {
        self.out.push((created, self.seq, Value::Object(m)));
        self.seq += 1;
    }
}

fn base_event(
    rng: &mut ChaCha8Rng,
    created: i64,
    event_type: &'static str,
    cls: &'static str,
    event_dt: String,
) -> Map<String, Value> {
    let mut m = Map::with_capacity(14);
    m.insert("eventID".into(), Value::String(random_uuid(rng)));
    m.insert(
        "eventCreatedDateTime".into(),
        Value::String(fmt_utc(created)),
    );
    m.insert("eventType".into(), event_type.into());
    m.insert("eventClassifierCode".into(), cls.into());
    m.insert("eventDateTime".into(), Value::String(event_dt));
    m
}

fn location(name: &str, port: usize, code: &str, provider: &'static str) -> Value {
    let mut m = Map::with_capacity(4);
    m.insert("locationName".into(), name.into());
    m.insert("UNLocationCode".into(), PORTS[port].code.into());
    if !code.is_empty() {
        m.insert("facilityCode".into(), code.into());
        m.insert("facilityCodeListProvider".into(), provider.into());
    }
    Value::Object(m)
}

impl<'a> Gen<'a> {
    fn new(ctx: &'a Ctx, seed: u64) -> Gen<'a> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let bl_off = rng.random();
        let bkg_off = rng.random();
        let box_off = rng.random();
        Gen {
            ctx,
            seed,
            rng,
            bl_off,
            bkg_off,
            box_off,
            containers: 0,
            truth: None,
        }
    }

    fn depot(&mut self, port: usize) -> Value {
        let p = &PORTS[port];
        if !p.depots.is_empty() && self.rng.random_bool(0.8) {
            let (n, c) = p.depots[self.rng.random_range(0..p.depots.len())];
            location(n, port, c, "BIC")
        } else {
            let n = &self.ctx.generic_depots[port][self.rng.random_range(0..2)];
            location(n, port, "", "")
        }
    }

    /// Picks a direct or transshipment route and the carrier. Returns the carrier and the legs
    /// as (route index, from call, to call).
    fn pick_route(&mut self) -> (usize, Vec<(usize, usize, usize)>) {
        let ctx = self.ctx;
        let rng = &mut self.rng;
        if rng.random_bool(0.3) && !ctx.conns.is_empty() {
            let c = &ctx.conns[rng.random_range(0..ctx.conns.len())];
            let (pi, di) = c.pairs[rng.random_range(0..c.pairs.len())];
            let w: Vec<u32> = c.carriers.iter().map(|x| x.1).collect();
            let carrier = c.carriers[pick_weighted(rng, &w)].0;
            return (carrier, vec![(c.a, pi, c.h), (c.b, c.g, di)]);
        }
        let lw: Vec<u32> = LOOPS.iter().map(|l| l.weight).collect();
        loop {
            let lp = pick_weighted(rng, &lw);
            let dir = usize::from(!rng.random_bool(0.6));
            let ri = 2 * lp + dir;
            let n = ctx.routes[ri].ports.len();
            let i = rng.random_range(0..n - 1);
            let j = rng.random_range(i + 1..n);
            let ports = &ctx.routes[ri].ports;
            if same_country(ports[i], ports[j]) {
                continue;
            }
            let ops = &ctx.operators[lp];
            let w: Vec<u32> = ops.iter().map(|(c, _)| CARRIERS[*c].weight).collect();
            let carrier = ops[pick_weighted(rng, &w)].0;
            return (carrier, vec![(ri, i, j)]);
        }
    }

    fn references(&self, carrier: usize, k: u64, pol: usize) -> (String, String) {
        let pol3 = &PORTS[pol].code[2..];
        let x = |n: u32| perm(k, self.bl_off, 10u64.pow(n));
        let y = |n: u32| perm(k, self.bkg_off, 10u64.pow(n));
        match CARRIERS[carrier].scac {
            "MSCU" => (format!("MEDU{:07}", x(7)), format!("EBKG{:08}", y(8))),
            "MAEU" => (format!("MAEU{:09}", x(9)), format!("{:09}", x(9))),
            "CMDU" => (
                format!("CMDU{pol3}{:07}", x(7)),
                format!("{pol3}{:07}", y(7)),
            ),
            "COSU" => (format!("COSU{:010}", x(10)), format!("{:010}", y(10))),
            "HLCU" => (format!("HLCU{pol3}{:09}", x(9)), format!("{:08}", y(8))),
            "ONEY" => {
                let s = format!("{pol3}{}{:08}", letter(y(4)), x(8));
                (format!("ONEY{s}"), s)
            }
            "EGLV" => (format!("EGLV{:012}", x(12)), format!("{:012}", y(12))),
            "OOLU" => (format!("OOLU{:010}", x(10)), format!("{:010}", y(10))),
            "ZIMU" => (
                format!("ZIMU{pol3}{:07}", x(7)),
                format!("{pol3}{:07}", y(7)),
            ),
            "HDMU" => (
                format!("HDMU{pol3}{}{:07}", letter(y(3)), x(7)),
                format!("{pol3}{:07}", y(7)),
            ),
            "YMLU" => (
                format!("YMLU{}{:09}", ['E', 'W', 'T'][(y(2) % 3) as usize], x(9)),
                format!("{:09}", y(9)),
            ),
            _ => (format!("WHLC{:010}", x(10)), format!("{:010}", y(10))),
        }
    }

    fn container_number(&mut self, carrier: usize) -> String {
        let owner = if self.rng.random_bool(0.2) {
            LESSORS[self.rng.random_range(0..LESSORS.len())]
        } else {
            let b = &CARRIERS[carrier].boxes;
            // The first owner code is the most common.
            if self.rng.random_bool(0.5) {
                b[0]
            } else {
                b[self.rng.random_range(0..b.len())]
            }
        };
        let serial = perm(self.containers, self.box_off, 1_000_000);
        self.containers += 1;
        let mut s = String::with_capacity(11);
        s.push_str(owner);
        push_digits(&mut s, serial, 6);
        let cd = iso6346_check_digit(&s).unwrap_or(0);
        push_digits(&mut s, u64::from(cd), 1);
        s
    }

    fn seals(&mut self, carrier: usize) -> Value {
        let c = &CARRIERS[carrier];
        let mut v = Vec::with_capacity(2);
        let mut seal = |number: String, source: &str, kind: &str| {
            let mut m = Map::with_capacity(3);
            m.insert("sealNumber".into(), Value::String(number));
            m.insert("sealSource".into(), source.into());
            m.insert("sealType".into(), kind.into());
            v.push(Value::Object(m));
        };
        seal(
            format!(
                "{}{:07}",
                c.seal_prefix,
                self.rng.random_range(0..10_000_000u32)
            ),
            "CAR",
            "BLT",
        );
        if self.rng.random_bool(0.1) {
            seal(
                format!("{:08}", self.rng.random_range(0..100_000_000u32)),
                "CUS",
                "WIR",
            );
        }
        Value::Array(v)
    }

    /// Generates all events of shipment number `k`, ordered by creation time.
    fn shipment(&mut self, k: u64) -> Vec<Value> {
        let ctx = self.ctx;
        let (carrier, spec) = self.pick_route();

        // Timing: departure from the POL somewhere between ~3.5 months ago and a few days
        // after the booking was confirmed (never after "now").
        let lead = hours(&mut self.rng, 4.0 * 24.0, 28.0 * 24.0);
        let target = NOW - 105 * D + hours(&mut self.rng, 0.0, ((105 * D + lead - D) / H) as f64);
        let (r1, from1, to1) = spec[0];
        let base1 = ctx.d0(r1, carrier, 0) + ctx.routes[r1].dep_off[from1];
        let w1 = (target - base1).div_euclid(W);
        let v1 = Voyage::new(ctx, self.seed, r1, carrier, w1);
        let mut legs = vec![Leg {
            v: v1,
            from: from1,
            to: to1,
        }];
        if let Some(&(r2, from2, to2)) = spec.get(1) {
            let hub_arr = legs[0].v.a_arr[to1];
            let base2 = ctx.d0(r2, carrier, 0) + ctx.routes[r2].arr_off[from2];
            let mut w2 = (hub_arr + 20 * H - base2 + W - 1).div_euclid(W);
            if self.rng.random_bool(0.12) {
                w2 += 1; // rolled over to the next week's vessel
            }
            let mut v2 = Voyage::new(ctx, self.seed, r2, carrier, w2);
            while v2.a_arr[from2] < hub_arr + 20 * H {
                w2 += 1;
                v2 = Voyage::new(ctx, self.seed, r2, carrier, w2);
            }
            legs.push(Leg {
                v: v2,
                from: from2,
                to: to2,
            });
        }
        let first = &legs[0];
        let last = legs.last().expect("one leg at least");
        let pol = ctx.routes[first.v.route].ports[first.from];
        let pod = ctx.routes[last.v.route].ports[last.to];
        let p_dep_pol = first.v.p_dep[first.from];
        let a_dep_pol = first.v.a_dep[first.from];
        let a_arr_pod = last.v.a_arr[last.to];

        let conf = round_to(p_dep_pol - lead, 60);
        let rece = conf - hours(&mut self.rng, 1.0, 30.0);

        let (bl, bkg) = self.references(carrier, k, pol);

        // Containers.
        let n_boxes = 1 + pick_weighted(&mut self.rng, &[40, 25, 13, 10, 7, 5]);
        let iso_w: Vec<u32> = ISO_TYPES.iter().map(|x| x.1).collect();
        let shipment_iso = ISO_TYPES[pick_weighted(&mut self.rng, &iso_w)].0;
        let mut boxes = Vec::with_capacity(n_boxes);
        for _ in 0..n_boxes {
            let number = self.container_number(carrier);
            let iso = if self.rng.random_bool(0.75) {
                shipment_iso
            } else {
                ISO_TYPES[pick_weighted(&mut self.rng, &iso_w)].0
            };
            let seals = self.seals(carrier);
            let rng = &mut self.rng;
            let gtin = (p_dep_pol - hours(rng, 24.0, 120.0)).max(conf + D);
            let gtot_empty = (gtin - hours(rng, 12.0, 120.0)).max(conf + hours(rng, 2.0, 10.0));
            let (aa, ad) = (first.v.a_arr[first.from], first.v.a_dep[first.from]);
            let lo = (aa + H).max(gtin + 2 * H);
            let load_pol = lo + ((ad - H - lo).max(0) as f64 * rng.random::<f64>()) as i64;
            let (mut hub_disc, mut hub_load) = (0, 0);
            if legs.len() == 2 {
                let (a1, d1) = (legs[0].v.a_arr[legs[0].to], legs[0].v.a_dep[legs[0].to]);
                let span = (d1 - a1 - 3 * H).clamp(0, 16 * H);
                hub_disc = a1 + 2 * H + (span as f64 * rng.random::<f64>()) as i64;
                let (a2, d2) = (legs[1].v.a_arr[legs[1].from], legs[1].v.a_dep[legs[1].from]);
                hub_load =
                    a2 + 2 * H + ((d2 - a2 - 3 * H).max(0) as f64 * rng.random::<f64>()) as i64;
            }
            let (aa, ad) = (a_arr_pod, last.v.a_dep[last.to]);
            let span = (ad - aa - 3 * H).clamp(0, 20 * H);
            let disc_pod = aa + H + (span as f64 * rng.random::<f64>()) as i64;
            let x: f64 = rng.random();
            let dwell = if x < 0.55 {
                hours(rng, 20.0, 96.0)
            } else if x < 0.85 {
                hours(rng, 96.0, 192.0)
            } else {
                hours(rng, 192.0, 480.0)
            };
            let pickup = disc_pod + dwell;
            let ret = if rng.random_bool(0.85) {
                hours(rng, 36.0, 240.0)
            } else {
                hours(rng, 240.0, 600.0)
            };
            let empty_return = pickup + ret;
            let depot_out = self.depot(pol);
            let depot_in = self.depot(pod);
            boxes.push(Unit {
                number,
                iso,
                seals,
                gtot_empty: round_to(gtot_empty, 60),
                depot_out,
                gtin: round_to(gtin, 60),
                load_pol: round_to(load_pol, 60),
                hub_disc: round_to(hub_disc, 60),
                hub_load: round_to(hub_load, 60),
                disc_pod: round_to(disc_pod, 60),
                pickup: round_to(pickup, 60),
                empty_return: round_to(empty_return, 60),
                depot_in,
            });
        }

        let mut docrefs = Vec::with_capacity(2);
        for (t, v) in [("BKG", &bkg), ("TRD", &bl)] {
            let mut m = Map::with_capacity(2);
            m.insert("documentReferenceType".into(), t.into());
            m.insert("documentReferenceValue".into(), v.as_str().into());
            docrefs.push(Value::Object(m));
        }
        let eqrefs: Vec<Value> = boxes
            .iter()
            .map(|b| {
                let mut m = Map::with_capacity(2);
                m.insert("referenceType".into(), "EQ".into());
                m.insert("referenceValue".into(), b.number.as_str().into());
                Value::Object(m)
            })
            .collect();
        let mut ship = Ship {
            out: Vec::with_capacity(64),
            seq: 0,
            conf,
            docrefs: Value::Array(docrefs),
            eqrefs: Value::Array(eqrefs),
        };

        // Shipment (document) events.
        self.shipment_event(&mut ship, rece, "RECE", &bkg, "BKG", false);
        self.shipment_event(&mut ship, conf, "CONF", &bkg, "BKG", false);
        let first_gtin = boxes.iter().map(|b| b.gtin).min().unwrap_or(conf);
        let drft = first_gtin + hours(&mut self.rng, 2.0, 30.0);
        self.shipment_event(&mut ship, drft, "DRFT", &bl, "TRD", true);
        let issu = a_dep_pol + hours(&mut self.rng, 4.0, 48.0);
        self.shipment_event(&mut ship, issu, "ISSU", &bl, "TRD", true);
        let first_pickup = boxes.iter().map(|b| b.pickup).min().unwrap_or(a_arr_pod);
        if self.rng.random_bool(0.35) {
            let surr = (a_arr_pod - hours(&mut self.rng, 24.0, 168.0)).max(issu + D);
            if surr < first_pickup {
                self.shipment_event(&mut ship, surr, "SURR", &bl, "TRD", true);
            }
        }
        if self.rng.random_bool(0.7) {
            let mut rels = (a_arr_pod - hours(&mut self.rng, 0.0, 48.0)).max(issu + D);
            if rels >= first_pickup {
                rels = first_pickup - hours(&mut self.rng, 1.0, 6.0);
            }
            self.shipment_event(&mut ship, rels, "RELS", &bl, "SRM", true);
        }

        // Transport events: departure from the POL (and the hub), arrivals and departures at
        // the calls in between, arrival at the hub and at the POD.
        let mut tcs: Vec<Vec<Value>> = Vec::with_capacity(legs.len());
        for leg in &legs {
            let calls = (leg.from..=leg.to)
                .map(|c| transport_call(ctx, self.seed, &leg.v, c))
                .collect::<Vec<_>>();
            tcs.push(calls);
        }
        let mut milestones: std::collections::HashMap<(usize, usize, bool), Written> =
            std::collections::HashMap::new();
        for (li, leg) in legs.iter().enumerate() {
            for c in leg.from..=leg.to {
                let tc = &tcs[li][c - leg.from];
                // Calls in between get the plan, the latest estimate and the actual; the
                // departure from the POL or hub and the arrival at the hub or POD get every
                // estimate published since the booking.
                if c > leg.from {
                    let major = c == leg.to;
                    let w = self.transport_milestone(&mut ship, &leg.v, c, true, major, tc);
                    milestones.insert((li, c, true), w);
                }
                if c < leg.to {
                    let major = c == leg.from;
                    let w = self.transport_milestone(&mut ship, &leg.v, c, false, major, tc);
                    milestones.insert((li, c, false), w);
                }
            }
        }

        // Equipment events per container.
        let pol_term = ctx.terminal(pol, carrier);
        let pod_term = ctx.terminal(pod, carrier);
        let pol_loc = location(pol_term.0, pol, pol_term.1, "SMDG");
        let pod_loc = location(pod_term.0, pod, pod_term.1, "SMDG");
        let hub_loc = (legs.len() == 2).then(|| {
            let hub = ctx.routes[legs[0].v.route].ports[legs[0].to];
            let t = ctx.terminal(hub, carrier);
            (hub, location(t.0, hub, t.1, "SMDG"))
        });
        let pod_arri = last.v.versions(last.to, true);
        let mut box_acts: Vec<Vec<(i64, &'static str)>> = Vec::with_capacity(boxes.len());
        for b in &boxes {
            let mut acts: Vec<(i64, &'static str)> = Vec::new();
            let tz_pol = PORTS[pol].tz;
            let tz_pod = PORTS[pod].tz;
            let mut eq = EqCtx { b, ship: &mut ship };
            // Empty pick-up at the origin depot and full gate-in at the POL terminal.
            if self.equipment(
                &mut eq,
                EqEv::act(b.gtot_empty, "GTOT", true, tz_pol, &b.depot_out, None),
            ) {
                acts.push((b.gtot_empty, "gtot_empty"));
            }
            if self.equipment(
                &mut eq,
                EqEv::act(b.gtin, "GTIN", false, tz_pol, &pol_loc, None),
            ) {
                acts.push((b.gtin, "gtin"));
            }
            // Load at the POL.
            let tc = &tcs[0][0];
            self.equipment(
                &mut eq,
                EqEv::plan(conf, p_dep_pol - 8 * H, "LOAD", tz_pol, &pol_loc, tc),
            );
            if self.equipment(
                &mut eq,
                EqEv::act(b.load_pol, "LOAD", false, tz_pol, &pol_loc, Some(tc)),
            ) {
                acts.push((b.load_pol, "load_pol"));
            }
            if let Some((hub, hub_loc)) = &hub_loc {
                let tz = PORTS[*hub].tz;
                let tc1 = tcs[0].last().expect("calls");
                let tc2 = &tcs[1][0];
                let l0 = &legs[0];
                let l1 = &legs[1];
                self.equipment(
                    &mut eq,
                    EqEv::plan(conf, l0.v.p_arr[l0.to] + 10 * H, "DISC", tz, hub_loc, tc1),
                );
                self.equipment(
                    &mut eq,
                    EqEv::plan(conf, l1.v.p_dep[l1.from] - 8 * H, "LOAD", tz, hub_loc, tc2),
                );
                if self.equipment(
                    &mut eq,
                    EqEv::act(b.hub_disc, "DISC", false, tz, hub_loc, Some(tc1)),
                ) {
                    acts.push((b.hub_disc, "hub_disc"));
                }
                if self.equipment(
                    &mut eq,
                    EqEv::act(b.hub_load, "LOAD", false, tz, hub_loc, Some(tc2)),
                ) {
                    acts.push((b.hub_load, "hub_load"));
                }
            }
            // Discharge at the POD: plan, the latest ETA-driven estimates, actual.
            let tc = tcs.last().and_then(|t| t.last()).expect("calls");
            self.equipment(
                &mut eq,
                EqEv::plan(
                    conf,
                    last.v.p_arr[last.to] + 10 * H,
                    "DISC",
                    tz_pod,
                    &pod_loc,
                    tc,
                ),
            );
            let recent: Vec<&Ver> = pod_arri
                .iter()
                .filter(|x| x.created > conf && x.created >= a_arr_pod - 10 * D)
                .collect();
            for x in recent.iter().rev().take(2).rev() {
                let created = round_to(x.created + hours(&mut self.rng, 0.1, 0.5), 60);
                let mut ev = EqEv::plan(created, x.value + 10 * H, "DISC", tz_pod, &pod_loc, tc);
                ev.cls = "EST";
                self.equipment(&mut eq, ev);
            }
            if self.equipment(
                &mut eq,
                EqEv::act(b.disc_pod, "DISC", false, tz_pod, &pod_loc, Some(tc)),
            ) {
                acts.push((b.disc_pod, "disc_pod"));
            }
            // Pick-up appointment, full gate-out at the POD, empty return in the POD city.
            if self.rng.random_bool(0.6) {
                let created = round_to(b.disc_pod + hours(&mut self.rng, 2.0, 20.0), 60);
                let appt =
                    round_to(b.pickup + hours(&mut self.rng, -20.0, 6.0), H).max(created + H);
                let mut ev = EqEv::act(appt, "GTOT", false, tz_pod, &pod_loc, None);
                ev.cls = "EST";
                ev.created = Some(created.min(appt - H));
                self.equipment(&mut eq, ev);
            }
            if self.equipment(
                &mut eq,
                EqEv::act(b.pickup, "GTOT", false, tz_pod, &pod_loc, None),
            ) {
                acts.push((b.pickup, "pickup"));
            }
            if self.equipment(
                &mut eq,
                EqEv::act(b.empty_return, "GTIN", true, tz_pod, &b.depot_in, None),
            ) {
                acts.push((b.empty_return, "empty_return"));
            }
            box_acts.push(acts);
        }

        if self.truth.is_some() {
            let hub = (legs.len() == 2).then(|| ctx.routes[legs[0].v.route].ports[legs[0].to]);
            let route: Vec<&str> = std::iter::once(pol)
                .chain(hub)
                .chain(std::iter::once(pod))
                .map(|p| PORTS[p].code)
                .collect();
            let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
            let journey = ShipmentJourney {
                scac: CARRIERS[carrier].scac,
                bl: &bl,
                route,
                legs: legs
                    .iter()
                    .enumerate()
                    .map(|(li, l)| TruthLeg {
                        departure: milestones.get(&(li, l.from, false)).copied(),
                        arrival: milestones.get(&(li, l.to, true)).copied(),
                        imo: text(&l.v.vessel, "vesselIMONumber"),
                    })
                    .collect(),
                pod_vessel_name: text(&last.v.vessel, "vesselName"),
                pod_vessel_imo: text(&last.v.vessel, "vesselIMONumber"),
                pod_voyage: last.v.voyage_no.clone(),
            };
            let records: Vec<Value> = boxes
                .iter()
                .zip(&box_acts)
                .map(|(b, acts)| crate::truth::container_truth(&journey, &b.number, acts))
                .collect();
            if let Some(t) = self.truth.as_mut() {
                t.extend(records);
            }
        }
        let mut out = ship.out;
        out.sort_unstable_by_key(|e| (e.0, e.1));
        out.into_iter().map(|e| e.2).collect()
    }

    fn shipment_event(
        &mut self,
        ship: &mut Ship,
        at: i64,
        code: &'static str,
        doc: &str,
        doc_type: &'static str,
        with_eq: bool,
    ) {
        let at = round_to(at, 60);
        if at > NOW {
            return;
        }
        let mut m = base_event(&mut self.rng, at, "SHIPMENT", "ACT", fmt_utc(at));
        m.insert("shipmentEventTypeCode".into(), code.into());
        m.insert("documentID".into(), doc.into());
        m.insert("documentTypeCode".into(), doc_type.into());
        if with_eq {
            m.insert("references".into(), ship.eqrefs.clone());
        }
        ship.push(at, m);
    }

    /// Emits the plan, the estimates published since the booking and the actual of one vessel
    /// arrival or departure, as seen by this shipment at "now".
    fn transport_milestone(
        &mut self,
        ship: &mut Ship,
        v: &Voyage,
        c: usize,
        arri: bool,
        major: bool,
        tc: &Value,
    ) -> Written {
        let conf = ship.conf;
        let tz = PORTS[self.ctx.routes[v.route].ports[c]].tz;
        let (planned, actual) = if arri {
            (v.p_arr[c], v.a_arr[c])
        } else {
            (v.p_dep[c], v.a_dep[c])
        };
        let vers = v.versions(c, arri);
        let code = if arri { "ARRI" } else { "DEPA" };
        let mut emit =
            |g: &mut Self, created: i64, value: i64, cls: &'static str, reason: Option<usize>| {
                let mut m = base_event(&mut g.rng, created, "TRANSPORT", cls, fmt_local(value, tz));
                m.insert("transportEventTypeCode".into(), code.into());
                if let Some(r) = reason {
                    m.insert("delayReasonCode".into(), DELAYS[r].0.into());
                    m.insert("changeRemark".into(), DELAYS[r].1.into());
                }
                m.insert("transportCall".into(), tc.clone());
                m.insert("documentReferences".into(), ship.docrefs.clone());
                m.insert("references".into(), ship.eqrefs.clone());
                ship.push(created, m);
            };
        emit(self, conf, planned, "PLN", None);
        let mut written = Written {
            actual: None,
            estimated: planned,
        };
        if major {
            if let Some(x) = vers.iter().rev().find(|x| x.created <= conf) {
                emit(self, conf + 60, x.value, "EST", x.reason);
                written.estimated = x.value;
            }
            for x in vers.iter().filter(|x| x.created > conf && x.created <= NOW) {
                emit(self, x.created, x.value, "EST", x.reason);
                written.estimated = x.value;
            }
        } else if let Some(x) = vers.iter().rev().find(|x| x.created <= NOW) {
            emit(self, x.created.max(conf + 60), x.value, "EST", x.reason);
            written.estimated = x.value;
        }
        let created = actual + hours(&mut self.rng, 0.05, 1.5);
        if created <= NOW {
            let late = actual - planned >= 12 * H;
            emit(
                self,
                round_to(created, 60),
                actual,
                "ACT",
                late.then_some(v.reason),
            );
            written.actual = Some(actual);
        }
        written
    }

    /// Emits one equipment event unless it lies after "now"; returns whether it did.
    fn equipment(&mut self, eq: &mut EqCtx<'_>, ev: EqEv<'_>) -> bool {
        let created = match ev.created {
            Some(c) => c,
            None if ev.cls == "ACT" => round_to(ev.at + hours(&mut self.rng, 0.05, 2.0), 60),
            None => ev.at,
        };
        if created > NOW || (ev.cls == "ACT" && ev.at > NOW) {
            return false;
        }
        let b = eq.b;
        let mut m = base_event(
            &mut self.rng,
            created,
            "EQUIPMENT",
            ev.cls,
            fmt_local(ev.value, ev.tz),
        );
        m.insert("equipmentEventTypeCode".into(), ev.code.into());
        m.insert("equipmentReference".into(), b.number.as_str().into());
        m.insert("ISOEquipmentCode".into(), b.iso.into());
        m.insert(
            "emptyIndicatorCode".into(),
            if ev.empty { "EMPTY" } else { "LADEN" }.into(),
        );
        // Loads and discharges locate themselves by their transport call; the seals are
        // recorded when the laden box gates in at the POL. (Top-level maps of at most 11 keys
        // keep `serde_json`'s B-tree maps to one node: memory dominates generation time.)
        match ev.tc {
            Some(tc) => m.insert("transportCall".into(), tc.clone()),
            None => m.insert("eventLocation".into(), ev.loc.clone()),
        };
        m.insert("documentReferences".into(), eq.ship.docrefs.clone());
        if ev.code == "GTIN" && !ev.empty {
            m.insert("seals".into(), b.seals.clone());
        }
        eq.ship.push(created, m);
        true
    }
}

struct EqCtx<'s> {
    b: &'s Unit,
    ship: &'s mut Ship,
}

/// One equipment event to emit: `at` is the actual time (ACT) or the publication time
/// (PLN/EST), `value` the event date-time.
struct EqEv<'l> {
    at: i64,
    value: i64,
    created: Option<i64>,
    cls: &'static str,
    code: &'static str,
    empty: bool,
    tz: Tz,
    loc: &'l Value,
    tc: Option<&'l Value>,
}

impl<'l> EqEv<'l> {
    fn act(
        at: i64,
        code: &'static str,
        empty: bool,
        tz: Tz,
        loc: &'l Value,
        tc: Option<&'l Value>,
    ) -> Self {
        EqEv {
            at,
            value: at,
            created: None,
            cls: "ACT",
            code,
            empty,
            tz,
            loc,
            tc,
        }
    }

    fn plan(
        created: i64,
        value: i64,
        code: &'static str,
        tz: Tz,
        loc: &'l Value,
        tc: &'l Value,
    ) -> Self {
        EqEv {
            at: created,
            value: round_to(value, H),
            created: Some(created),
            cls: "PLN",
            code,
            empty: false,
            tz,
            loc,
            tc: Some(tc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe;
    use std::collections::{HashMap, HashSet};

    fn gen(shipments: usize, seed: u64) -> Vec<GeneratedFile> {
        generate(&GenOptions {
            shipments,
            seed,
            events_per_file: 0,
        })
    }

    fn all(files: &[GeneratedFile]) -> Vec<&Value> {
        files.iter().flat_map(|f| f.events.iter()).collect()
    }

    fn s<'v>(e: &'v Value, k: &str) -> &'v str {
        e[k].as_str()
            .unwrap_or_else(|| panic!("missing {k} in {e}"))
    }

    fn valid_iso6346(n: &str) -> bool {
        n.len() == 11
            && n.as_bytes()[3] == b'U'
            && iso6346_check_digit(&n[..10]) == n[10..].parse().ok()
    }

    fn bl_of(e: &Value) -> Option<String> {
        match e["eventType"].as_str()? {
            "SHIPMENT" => (e["documentTypeCode"] != "BKG").then(|| s(e, "documentID").to_string()),
            _ => e["documentReferences"]
                .as_array()?
                .iter()
                .find(|r| r["documentReferenceType"] == "TRD")
                .map(|r| {
                    r["documentReferenceValue"]
                        .as_str()
                        .unwrap_or("")
                        .to_string()
                }),
        }
    }

    #[test]
    fn iso6346_check_digit_known_examples() {
        assert_eq!(iso6346_check_digit("CSQU305438"), Some(3));
        assert_eq!(iso6346_check_digit("APZU481209"), Some(0));
        assert_eq!(iso6346_check_digit("CSQU30543"), None);
        assert_eq!(iso6346_check_digit("csqu305438"), None);
        assert!(valid_iso6346("CSQU3054383"));
        assert!(!valid_iso6346("CSQU3054384"));
    }

    #[test]
    fn imo_check_digit_known_example() {
        // IMO 9074729 (the IMO's own example).
        assert_eq!(imo_check_digit(907472), 9);
    }

    #[test]
    fn time_formatting() {
        assert_eq!(fmt_utc(NOW), GENERATOR_NOW);
        assert_eq!(fmt_time(0, -5 * 3600 - 1800), "1969-12-31T18:30:00-05:30");
        assert_eq!(
            fmt_local(NOW, Europe::Amsterdam),
            "2026-11-01T01:00:00+01:00"
        );
        assert_eq!(
            fmt_local(NOW - 30 * D, Europe::Amsterdam),
            "2026-10-02T02:00:00+02:00"
        );
        assert_eq!(generator_now().to_rfc3339(), "2026-11-01T00:00:00+00:00");
    }

    #[test]
    fn generate_is_deterministic() {
        let a = serde_json::to_string(&all(&gen(60, 7))).unwrap();
        let b = serde_json::to_string(&all(&gen(60, 7))).unwrap();
        assert_eq!(a, b);
        let c = serde_json::to_string(&all(&gen(60, 8))).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn generated_container_numbers_are_valid_iso6346() {
        let files = gen(300, 1);
        let mut n = 0;
        for e in all(&files) {
            if let Some(r) = e.get("equipmentReference") {
                assert!(valid_iso6346(r.as_str().unwrap()), "{r}");
                // Cross-check with the crate's own validator.
                assert!(
                    teu_pipeline::iso6346::validate(r.as_str().unwrap()).is_ok(),
                    "{r}"
                );
                n += 1;
            }
            for r in e["references"].as_array().into_iter().flatten() {
                if r["referenceType"] == "EQ" {
                    assert!(valid_iso6346(r["referenceValue"].as_str().unwrap()), "{r}");
                }
            }
        }
        assert!(n > 1000);
    }

    #[test]
    fn lessor_share_is_about_a_fifth() {
        let files = gen(400, 2);
        let mut boxes = HashSet::new();
        for e in all(&files) {
            if let Some(r) = e.get("equipmentReference").and_then(|r| r.as_str()) {
                boxes.insert(r.to_string());
            }
        }
        let lessor = boxes.iter().filter(|b| LESSORS.contains(&&b[..4])).count();
        let share = lessor as f64 / boxes.len() as f64;
        assert!((0.14..0.26).contains(&share), "lessor share {share}");
    }

    #[test]
    fn every_event_has_the_required_dcsa_fields() {
        let files = gen(300, 3);
        let mut ids = HashSet::new();
        for e in all(&files) {
            assert!(Uuid::parse_str(s(e, "eventID")).is_ok());
            assert!(ids.insert(s(e, "eventID").to_string()), "duplicate eventID");
            DateTime::parse_from_rfc3339(s(e, "eventDateTime")).unwrap();
            DateTime::parse_from_rfc3339(s(e, "eventCreatedDateTime")).unwrap();
            let cls = s(e, "eventClassifierCode");
            assert!(["ACT", "EST", "PLN"].contains(&cls));
            match s(e, "eventType") {
                "SHIPMENT" => {
                    assert!(["RECE", "CONF", "DRFT", "ISSU", "SURR", "RELS"]
                        .contains(&s(e, "shipmentEventTypeCode")));
                    assert!(["BKG", "TRD", "SRM"].contains(&s(e, "documentTypeCode")));
                    assert!(!s(e, "documentID").is_empty());
                    assert_eq!(e["eventDateTime"], e["eventCreatedDateTime"]);
                }
                "TRANSPORT" => {
                    assert!(["ARRI", "DEPA"].contains(&s(e, "transportEventTypeCode")));
                    let tc = &e["transportCall"];
                    assert_eq!(tc["modeOfTransport"], "VESSEL");
                    assert!(!s(tc, "transportCallID").is_empty());
                    assert_eq!(s(tc, "UNLocationCode").len(), 5);
                    assert!(tc["transportCallSequenceNumber"].is_u64());
                    let imo = s(&tc["vessel"], "vesselIMONumber");
                    assert_eq!(imo.len(), 7);
                    let body: u32 = imo[..6].parse().unwrap();
                    assert_eq!(imo_check_digit(body).to_string(), &imo[6..]);
                    assert!(!s(&tc["vessel"], "vesselName").is_empty());
                    assert!(s(tc, "carrierServiceCode").len() <= 5);
                    let docs = e["documentReferences"].as_array().unwrap();
                    assert_eq!(docs.len(), 2);
                    assert!(e["references"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["referenceType"] == "EQ"));
                }
                "EQUIPMENT" => {
                    assert!(
                        ["GTOT", "GTIN", "LOAD", "DISC"].contains(&s(e, "equipmentEventTypeCode"))
                    );
                    assert!(valid_iso6346(s(e, "equipmentReference")));
                    assert!(["EMPTY", "LADEN"].contains(&s(e, "emptyIndicatorCode")));
                    assert_eq!(s(e, "ISOEquipmentCode").len(), 4);
                    assert_eq!(e["documentReferences"].as_array().unwrap().len(), 2);
                    if ["LOAD", "DISC"].contains(&s(e, "equipmentEventTypeCode")) {
                        assert_eq!(e["transportCall"]["modeOfTransport"], "VESSEL");
                        assert!(e["transportCall"]["vessel"].is_object());
                        assert_eq!(s(&e["transportCall"], "UNLocationCode").len(), 5);
                    } else {
                        assert_eq!(s(&e["eventLocation"], "UNLocationCode").len(), 5);
                    }
                }
                other => panic!("unexpected eventType {other}"),
            }
        }
    }

    #[test]
    fn voyages_are_shared_and_vessels_consistent() {
        assert!(LOOPS.len() * 16 <= VESSEL_WORDS.len());
        let files = gen(400, 13);
        let mut calls: HashMap<String, String> = HashMap::new();
        let mut imo_name: HashMap<String, String> = HashMap::new();
        let mut name_imo: HashMap<String, String> = HashMap::new();
        let mut shared = 0;
        for e in all(&files) {
            let tc = &e["transportCall"];
            if !tc.is_object() {
                continue;
            }
            let json = tc.to_string();
            match calls.get(s(tc, "transportCallID")) {
                Some(prev) => {
                    assert_eq!(prev, &json, "one transport call, two shapes");
                    shared += 1;
                }
                None => {
                    calls.insert(s(tc, "transportCallID").to_string(), json);
                }
            }
            let (imo, name) = (
                s(&tc["vessel"], "vesselIMONumber"),
                s(&tc["vessel"], "vesselName"),
            );
            assert_eq!(imo_name.entry(imo.into()).or_insert(name.into()), name);
            assert_eq!(name_imo.entry(name.into()).or_insert(imo.into()), imo);
        }
        assert!(shared > 0);
        // Several shipments sail on the same voyage.
        let mut per_call: HashMap<&str, HashSet<String>> = HashMap::new();
        for e in all(&files) {
            if e["eventType"] == "TRANSPORT" {
                per_call
                    .entry(s(&e["transportCall"], "transportCallID"))
                    .or_default()
                    .insert(bl_of(e).unwrap());
            }
        }
        assert!(per_call.values().any(|b| b.len() > 1));
    }

    #[test]
    fn act_events_are_never_after_now() {
        let now = generator_now();
        let files = gen(400, 4);
        let mut act = 0;
        let mut future = 0;
        for e in all(&files) {
            let created = DateTime::parse_from_rfc3339(s(e, "eventCreatedDateTime")).unwrap();
            assert!(created <= now, "created after now: {e}");
            let at = DateTime::parse_from_rfc3339(s(e, "eventDateTime")).unwrap();
            if e["eventClassifierCode"] == "ACT" {
                assert!(at <= now, "ACT after now: {e}");
                act += 1;
            } else if at > now {
                future += 1;
            }
        }
        assert!(act > 1000 && future > 100, "act {act}, future {future}");
    }

    #[test]
    fn events_per_container_are_in_range() {
        let files = gen(500, 5);
        let events = all(&files);
        let mut per_box: HashMap<String, usize> = HashMap::new();
        for e in &events {
            if let Some(r) = e.get("equipmentReference").and_then(|r| r.as_str()) {
                *per_box.entry(r.to_string()).or_default() += 1;
            }
        }
        let avg = events.len() as f64 / per_box.len() as f64;
        assert!((20.0..=35.0).contains(&avg), "events per container {avg}");
        assert!(
            per_box.values().all(|&n| (1..=24).contains(&n)),
            "{per_box:?}"
        );
    }

    #[test]
    fn transshipment_share_is_about_thirty_percent() {
        let files = gen(600, 6);
        let mut vessels: HashMap<String, HashSet<String>> = HashMap::new();
        for e in all(&files) {
            if e["eventType"] == "TRANSPORT" {
                let bl = bl_of(e).unwrap();
                let imo = s(&e["transportCall"]["vessel"], "vesselIMONumber").to_string();
                vessels.entry(bl).or_default().insert(imo);
            }
        }
        assert_eq!(vessels.len(), 600);
        let ts = vessels.values().filter(|v| v.len() == 2).count();
        assert!(vessels.values().all(|v| v.len() <= 2));
        let share = ts as f64 / vessels.len() as f64;
        assert!((0.2..=0.4).contains(&share), "transshipment share {share}");
    }

    #[test]
    fn shipments_are_at_every_stage() {
        let files = gen(400, 9);
        let mut stages: HashMap<String, (bool, bool)> = HashMap::new();
        for e in all(&files) {
            let Some(bl) = bl_of(e) else { continue };
            let st = stages.entry(bl).or_default();
            if e["eventClassifierCode"] == "ACT" {
                match (
                    s(e, "eventType"),
                    e["equipmentEventTypeCode"].as_str(),
                    e["emptyIndicatorCode"].as_str(),
                ) {
                    ("EQUIPMENT", Some("LOAD"), _) => st.0 = true,
                    ("EQUIPMENT", Some("GTIN"), Some("EMPTY")) => st.1 = true,
                    _ => {}
                }
            }
        }
        let not_loaded = stages.values().filter(|s| !s.0).count();
        let returned = stages.values().filter(|s| s.1).count();
        let between = stages.values().filter(|s| s.0 && !s.1).count();
        assert!(
            not_loaded > 20 && returned > 20 && between > 60,
            "{not_loaded} {returned} {between}"
        );
    }

    #[test]
    fn files_split_by_shipment() {
        let one = gen(120, 10);
        let split = generate(&GenOptions {
            shipments: 120,
            seed: 10,
            events_per_file: 500,
        });
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "generated-0001.json");
        assert!(split.len() > 5);
        assert_eq!(event_count(&one), event_count(&split));
        assert_eq!(all(&one), all(&split));
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, f) in split.iter().enumerate() {
            assert_eq!(f.name, format!("generated-{:04}.json", i + 1));
            for e in &f.events {
                if let Some(bl) = bl_of(e) {
                    assert_eq!(
                        *seen.entry(bl).or_insert(i),
                        i,
                        "shipment split across files"
                    );
                }
            }
        }
        assert!(split.iter().all(|f| f.events.len() <= 700));
        let empty = gen(0, 1);
        assert_eq!(empty.len(), 1);
        assert!(empty[0].events.is_empty());
    }

    #[test]
    fn write_to_dir_round_trips() {
        let files = generate(&GenOptions {
            shipments: 20,
            seed: 11,
            events_per_file: 300,
        });
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nested/feeds");
        let paths = write_to_dir(&files, &out).unwrap();
        assert_eq!(paths.len(), files.len());
        for (p, f) in paths.iter().zip(&files) {
            let back: Vec<Value> = serde_json::from_slice(&fs::read(p).unwrap()).unwrap();
            assert_eq!(back, f.events);
        }
    }

    #[test]
    fn sample_feed_shape_matches() {
        // Every key the generator emits at the top level appears in the DCSA sample or schema.
        let allowed = [
            "eventID",
            "eventCreatedDateTime",
            "eventType",
            "eventClassifierCode",
            "eventDateTime",
            "transportEventTypeCode",
            "delayReasonCode",
            "changeRemark",
            "transportCall",
            "documentReferences",
            "references",
            "shipmentEventTypeCode",
            "documentID",
            "documentTypeCode",
            "equipmentEventTypeCode",
            "equipmentReference",
            "ISOEquipmentCode",
            "emptyIndicatorCode",
            "eventLocation",
            "seals",
        ];
        for e in all(&gen(50, 12)) {
            for k in e.as_object().unwrap().keys() {
                assert!(allowed.contains(&k.as_str()), "unexpected key {k}");
            }
        }
    }
}
