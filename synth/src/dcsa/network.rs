//! The service network derived from the tables: both directions of every loop with their
//! proforma schedules, each loop's operators, and the transshipment connections between loops.

use super::draws::mix;
use super::tables::{CARRIERS, LOOPS, PORTS};
use super::time::{D, EPOCH, H, W};

/// One direction of a loop, with its proforma (planned) schedule relative to the departure
/// from its first port.
pub(super) struct Route {
    pub(super) lp: usize,
    pub(super) dir: usize,
    pub(super) ports: Vec<usize>,
    pub(super) arr_off: Vec<i64>,
    pub(super) dep_off: Vec<i64>,
    /// Offset of this direction's first departure from the forward one's (the vessel turns).
    pub(super) base_off: i64,
}

/// A transshipment connection: leg 1 on `a` up to the hub (index `h`), leg 2 on `b` from the
/// hub (index `g`), with the valid (POL index on a, POD index on b) pairs and the carriers that
/// run both loops.
pub(super) struct Conn {
    pub(super) a: usize,
    pub(super) h: usize,
    pub(super) b: usize,
    pub(super) g: usize,
    pub(super) pairs: Vec<(usize, usize)>,
    pub(super) carriers: Vec<(usize, u32)>,
}

pub(super) struct Ctx {
    /// routes[2 * loop + dir]
    pub(super) routes: Vec<Route>,
    /// Vessels needed for a weekly service of each loop (rotation weeks, at most 16).
    pub(super) rotation_weeks: Vec<i64>,
    /// operators[loop] = (carrier index, service code)
    pub(super) operators: Vec<Vec<(usize, &'static str)>>,
    pub(super) conns: Vec<Conn>,
    pub(super) generic_depots: Vec<[String; 2]>,
}

pub(super) fn port_index(code: &str) -> usize {
    PORTS
        .iter()
        .position(|p| p.code == code)
        .unwrap_or_else(|| panic!("unknown port {code}"))
}

pub(super) fn carrier_index(scac: &str) -> usize {
    CARRIERS
        .iter()
        .position(|c| c.scac == scac)
        .unwrap_or_else(|| panic!("unknown carrier {scac}"))
}

pub(super) fn distance_km(a: usize, b: usize) -> f64 {
    let (pa, pb) = (&PORTS[a], &PORTS[b]);
    let (la, lb) = (pa.lat.to_radians(), pb.lat.to_radians());
    let dl = (pb.lon - pa.lon).to_radians();
    let c = la.sin() * lb.sin() + la.cos() * lb.cos() * dl.cos();
    6371.0 * c.clamp(-1.0, 1.0).acos()
}

pub(super) fn same_country(a: usize, b: usize) -> bool {
    PORTS[a].code[..2] == PORTS[b].code[..2]
}

impl Ctx {
    pub(super) fn new() -> Ctx {
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

    pub(super) fn service_code(&self, lp: usize, carrier: usize) -> &'static str {
        self.operators[lp]
            .iter()
            .find(|(c, _)| *c == carrier)
            .map(|(_, s)| *s)
            .unwrap_or("XXX")
    }

    /// Weekday and hour of a carrier's departure from the first port of a loop.
    pub(super) fn service_offset(&self, lp: usize, carrier: usize) -> i64 {
        let h = mix(lp as u64 * 131 + 7, carrier as u64 + 1);
        (h % 7) as i64 * D + ((h >> 8) % 4) as i64 * 6 * H
    }

    /// Planned departure of the first port of route `ri` in week `w`.
    pub(super) fn d0(&self, ri: usize, carrier: usize, w: i64) -> i64 {
        let r = &self.routes[ri];
        EPOCH + w * W + self.service_offset(r.lp, carrier) + r.base_off
    }

    pub(super) fn terminal(&self, port: usize, carrier: usize) -> (&'static str, &'static str) {
        let t = &PORTS[port].terminals;
        t[(mix(port as u64 + 1000, carrier as u64) % t.len() as u64) as usize]
    }
}
