//! Shipments: the route and carrier, containers, seals and every shipment, transport and
//! equipment event of one bill of lading, and its ground truth.

use crate::truth::ShipmentJourney;
use crate::truth::TruthLeg;
use crate::truth::Written;
use chrono_tz::Tz;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Map;
use serde_json::Value;
use teu_pipeline::iso6346::check_digit as iso6346_check_digit;

use super::draws::{hours, letter, perm, pick_weighted, random_uuid, round_to};
use super::network::{same_country, Ctx};
use super::tables::{CARRIERS, DELAYS, ISO_TYPES, LESSORS, LOOPS, PORTS};
use super::time::{fmt_local, fmt_utc, push_digits, D, H, NOW, W};
use super::voyages::{transport_call, Ver, Voyage};

/// The generator state across shipments.
pub(super) struct Gen<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) seed: u64,
    pub(super) rng: ChaCha8Rng,
    pub(super) bl_off: u64,
    pub(super) bkg_off: u64,
    pub(super) box_off: u64,
    pub(super) containers: u64,
    /// Per container, what the written events say ([`truth`]); filled only when asked.
    pub(super) truth: Option<Vec<Value>>,
}

/// One leg: a voyage from call `from` to call `to`.
pub(super) struct Leg {
    pub(super) v: Voyage,
    pub(super) from: usize,
    pub(super) to: usize,
}

pub(super) struct Unit {
    pub(super) number: String,
    pub(super) iso: &'static str,
    pub(super) seals: Value,
    pub(super) gtot_empty: i64,
    pub(super) depot_out: Value,
    pub(super) gtin: i64,
    pub(super) load_pol: i64,
    pub(super) hub_disc: i64,
    pub(super) hub_load: i64,
    pub(super) disc_pod: i64,
    pub(super) pickup: i64,
    pub(super) empty_return: i64,
    pub(super) depot_in: Value,
}

/// Events of one shipment being built.
pub(super) struct Ship {
    pub(super) out: Vec<(i64, u32, Value)>,
    pub(super) seq: u32,
    /// When the booking was confirmed: plans are published then.
    pub(super) conf: i64,
    pub(super) docrefs: Value,
    pub(super) eqrefs: Value,
}

impl Ship {
    pub(super) fn push(&mut self, created: i64, m: Map<String, Value>) {
        self.out.push((created, self.seq, Value::Object(m)));
        self.seq += 1;
    }
}

pub(super) fn base_event(
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

pub(super) fn location(name: &str, port: usize, code: &str, provider: &'static str) -> Value {
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
    pub(super) fn new(ctx: &'a Ctx, seed: u64) -> Gen<'a> {
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

    pub(super) fn depot(&mut self, port: usize) -> Value {
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
    pub(super) fn pick_route(&mut self) -> (usize, Vec<(usize, usize, usize)>) {
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

    pub(super) fn references(&self, carrier: usize, k: u64, pol: usize) -> (String, String) {
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

    pub(super) fn container_number(&mut self, carrier: usize) -> String {
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

    pub(super) fn seals(&mut self, carrier: usize) -> Value {
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
    pub(super) fn shipment(&mut self, k: u64) -> Vec<Value> {
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

    pub(super) fn shipment_event(
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
    pub(super) fn transport_milestone(
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
    pub(super) fn equipment(&mut self, eq: &mut EqCtx<'_>, ev: EqEv<'_>) -> bool {
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

pub(super) struct EqCtx<'s> {
    pub(super) b: &'s Unit,
    pub(super) ship: &'s mut Ship,
}

/// One equipment event to emit: `at` is the actual time (ACT) or the publication time
/// (PLN/EST), `value` the event date-time.
pub(super) struct EqEv<'l> {
    pub(super) at: i64,
    pub(super) value: i64,
    pub(super) created: Option<i64>,
    pub(super) cls: &'static str,
    pub(super) code: &'static str,
    pub(super) empty: bool,
    pub(super) tz: Tz,
    pub(super) loc: &'l Value,
    pub(super) tc: Option<&'l Value>,
}

impl<'l> EqEv<'l> {
    pub(super) fn act(
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

    pub(super) fn plan(
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
