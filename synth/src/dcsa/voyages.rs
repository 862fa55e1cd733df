//! Weekly voyages shared by every shipment on board: planned, estimated and actual times of every
//! call, the vessel (with its IMO number) and the transport calls.

use chrono::{DateTime, Datelike};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Map;
use serde_json::Value;
use uuid::Uuid;

use super::draws::{hours, mix, round_to, uni};
use super::network::Ctx;
use super::tables::{call_sign_prefix, VesselStyle, CARRIERS, DELAYS, LOOPS, PORTS, VESSEL_WORDS};
use super::time::{D, H};

pub(super) fn imo_check_digit(six: u32) -> u32 {
    let mut sum = 0;
    let mut n = six;
    for w in 2..=7 {
        sum += (n % 10) * w;
        n /= 10;
    }
    sum % 10
}

/// One weekly voyage of a carrier on one direction of a loop: planned and actual times of
/// every call, shared by every shipment on board.
pub(super) struct Voyage {
    pub(super) route: usize,
    pub(super) carrier: usize,
    pub(super) key: u64,
    pub(super) voyage_no: String,
    pub(super) p_arr: Vec<i64>,
    pub(super) p_dep: Vec<i64>,
    pub(super) a_arr: Vec<i64>,
    pub(super) a_dep: Vec<i64>,
    pub(super) reason: usize,
    pub(super) vessel: Value,
    pub(super) service: &'static str,
}

/// One version of an estimate: when it was published and the time it announced.
pub(super) struct Ver {
    pub(super) created: i64,
    pub(super) value: i64,
    pub(super) reason: Option<usize>,
}

impl Voyage {
    pub(super) fn new(ctx: &Ctx, seed: u64, ri: usize, carrier: usize, w: i64) -> Voyage {
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
    pub(super) fn versions(&self, k: usize, arri: bool) -> Vec<Ver> {
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

pub(super) fn vessel_value(carrier: usize, idx: usize) -> Value {
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
pub(super) fn transport_call(ctx: &Ctx, seed: u64, v: &Voyage, k: usize) -> Value {
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

pub(super) const TRANSPORT_CALL_NS: Uuid =
    Uuid::from_u128(0x2b1e_7f3c_9d4a_4c61_8e5f_0a7d_3c9b_61e2);
