//! The MARNET sea-lane network as a graph, and shortest sea routes over it (petgraph A*).
//!
//! Source: `data/sealanes/marnet_searoute.geojson` (PyPI `searoute` 1.6, derived from Eurostat
//! MARNET; Apache-2.0), embedded in the binary and parsed once per process ([`network`]).
//!
//! - **Nodes** are the distinct coordinates of the LineStrings, longitudes brought into
//!   [-180, 180) (the file writes some crossings as 180…190.85), rounded to 1e-6 degree, so that
//!   a line ending at 180 and one starting at -180 share a node: the graph is joined across the
//!   antimeridian.
//! - **Edges** join consecutive coordinates; the weight is the great-circle (haversine) length in
//!   nautical miles, so an edge crossing the antimeridian has its real, short length.
//! - **Passages**: every strait and canal is usable (Suez, Panama, Malacca, Gibraltar, …) except
//!   the Arctic `northwest` passage, which searoute also leaves out by default.
//! - **Snapping**: a port or vessel position is joined to the nearest node (great-circle) of the
//!   largest connected part of the network, through an R-tree over unit vectors (rstar), so the
//!   nearest node is found across the antimeridian and near the poles too.
//! - **Output**: a route's coordinates are unwrapped (each longitude within 180° of the one
//!   before, so they may leave [-180, 180]): a line crossing the Pacific stays one continuous
//!   LineString instead of jumping across the map.

use std::collections::HashMap;
use std::sync::OnceLock;

use petgraph::graph::{NodeIndex, UnGraph};
use rstar::primitives::GeomWithData;
use rstar::RTree;

use crate::geodesy::distance_nm;

const BUNDLED_MARNET: &str = include_str!("../../../data/sealanes/marnet_searoute.geojson");

/// Passages left out of routing (Arctic, seasonal).
pub const EXCLUDED_PASSAGES: &[&str] = &["northwest"];

/// Errors reading a sea-lane network.
#[derive(Debug, thiserror::Error)]
pub enum SeaLaneError {
    #[error("sea-lane GeoJSON: {0}")]
    GeoJson(String),
    #[error("sea-lane network has no edges")]
    Empty,
}

type TreePoint = GeomWithData<[f64; 3], NodeIndex>;

/// The sea-lane graph: nodes are `[lon, lat]` in degrees, edge weights nautical miles.
pub struct SeaLanes {
    graph: UnGraph<[f64; 2], f64>,
    tree: RTree<TreePoint>,
}

/// The bundled MARNET network, parsed on first use and shared (9,679 nodes).
pub fn network() -> &'static SeaLanes {
    static NETWORK: OnceLock<SeaLanes> = OnceLock::new();
    NETWORK.get_or_init(|| {
        // The bundled file is tested to parse; an empty graph routes nothing but never panics.
        SeaLanes::from_geojson(BUNDLED_MARNET).unwrap_or_else(|e| {
            tracing::error!(error = %e, "bundled sea-lane network unreadable");
            SeaLanes {
                graph: UnGraph::default(),
                tree: RTree::new(),
            }
        })
    })
}

fn unit_vector(lon: f64, lat: f64) -> [f64; 3] {
    let (lat, lon) = (lat.to_radians(), lon.to_radians());
    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
}

/// Longitude brought into [-180, 180); a longitude already there is returned unchanged (bit
/// for bit).
pub fn wrap_lon(lon: f64) -> f64 {
    if (-180.0..180.0).contains(&lon) {
        lon
    } else {
        (lon + 180.0).rem_euclid(360.0) - 180.0
    }
}

/// Rewrites longitudes so that each lies within 180° of the previous one (the first is
/// wrapped into [-180, 180] when outside): the line stays continuous across the antimeridian.
/// Longitudes that need no turn are left exactly as they were.
pub fn unwrap_lons(coords: &mut [[f64; 2]]) {
    let mut prev: Option<f64> = None;
    for c in coords.iter_mut() {
        c[0] = unwrap_lon(prev, c[0]);
        prev = Some(c[0]);
    }
}

/// One step of [`unwrap_lons`]: `lon` moved by whole turns to within 180° of `prev` (the
/// previous point's unwrapped longitude), or wrapped into [-180, 180] for a first point.
pub fn unwrap_lon(prev: Option<f64>, lon: f64) -> f64 {
    match prev {
        None if !(-180.0..=180.0).contains(&lon) => wrap_lon(lon),
        None => lon,
        Some(p) => {
            let d = lon - p;
            if d.abs() > 180.0 {
                lon - 360.0 * (d / 360.0).round()
            } else {
                lon
            }
        }
    }
}

impl SeaLanes {
    /// Builds the graph from a GeoJSON FeatureCollection of LineStrings and MultiLineStrings.
    pub fn from_geojson(text: &str) -> Result<SeaLanes, SeaLaneError> {
        let gj: geojson::GeoJson = text
            .parse()
            .map_err(|e: geojson::Error| SeaLaneError::GeoJson(e.to_string()))?;
        let geojson::GeoJson::FeatureCollection(fc) = gj else {
            return Err(SeaLaneError::GeoJson("not a FeatureCollection".into()));
        };
        let mut graph: UnGraph<[f64; 2], f64> = UnGraph::default();
        let mut nodes: HashMap<(i64, i64), NodeIndex> = HashMap::new();
        let mut node = |graph: &mut UnGraph<[f64; 2], f64>, c: &[f64]| -> Option<NodeIndex> {
            let (lon, lat) = (*c.first()?, *c.get(1)?);
            if !lon.is_finite() || !lat.is_finite() || lat.abs() > 90.0 {
                return None;
            }
            let lon = wrap_lon(lon);
            let key = ((lon * 1e6).round() as i64, (lat * 1e6).round() as i64);
            Some(
                *nodes
                    .entry(key)
                    .or_insert_with(|| graph.add_node([lon, lat])),
            )
        };
        for f in &fc.features {
            let passage = f
                .properties
                .as_ref()
                .and_then(|p| p.get("passage"))
                .and_then(|v| v.as_str());
            if passage.is_some_and(|p| EXCLUDED_PASSAGES.contains(&p)) {
                continue;
            }
            let lines: Vec<&Vec<Vec<f64>>> = match f.geometry.as_ref().map(|g| &g.value) {
                Some(geojson::Value::LineString(l)) => vec![l],
                Some(geojson::Value::MultiLineString(ls)) => ls.iter().collect(),
                _ => continue,
            };
            for line in lines {
                let mut prev: Option<NodeIndex> = None;
                for c in line {
                    let Some(n) = node(&mut graph, c) else {
                        prev = None;
                        continue;
                    };
                    if let Some(p) = prev.filter(|&p| p != n) {
                        let (a, b) = (graph[p], graph[n]);
                        let w = distance_nm(a[1], a[0], b[1], b[0]);
                        graph.update_edge(p, n, w);
                    }
                    prev = Some(n);
                }
            }
        }
        if graph.edge_count() == 0 {
            return Err(SeaLaneError::Empty);
        }
        // Snap only to the largest connected part: a node of an isolated fragment would leave
        // the route with nowhere to go.
        let mut uf = petgraph::unionfind::UnionFind::<usize>::new(graph.node_count());
        for e in graph.edge_indices() {
            if let Some((a, b)) = graph.edge_endpoints(e) {
                uf.union(a.index(), b.index());
            }
        }
        let mut sizes: HashMap<usize, usize> = HashMap::new();
        for n in graph.node_indices() {
            *sizes.entry(uf.find(n.index())).or_default() += 1;
        }
        let main = sizes
            .iter()
            .max_by_key(|(_, &s)| s)
            .map(|(&r, _)| r)
            .unwrap_or_default();
        let points: Vec<TreePoint> = graph
            .node_indices()
            .filter(|n| uf.find(n.index()) == main)
            .map(|n| GeomWithData::new(unit_vector(graph[n][0], graph[n][1]), n))
            .collect();
        Ok(SeaLanes {
            graph,
            tree: RTree::bulk_load(points),
        })
    }

    /// Number of nodes (distinct coordinates).
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges (consecutive coordinate pairs).
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The network node nearest to `[lon, lat]` (great-circle), with its coordinates.
    pub fn nearest_node(&self, lon: f64, lat: f64) -> Option<(NodeIndex, [f64; 2])> {
        if !lon.is_finite() || !lat.is_finite() {
            return None;
        }
        let p = self.tree.nearest_neighbor(&unit_vector(lon, lat))?;
        Some((p.data, self.graph[p.data]))
    }

    /// The shortest sea route from `from` to `to` (`[lon, lat]`, degrees): `from`, the network
    /// path between the nodes nearest to each, then `to`, with longitudes unwrapped (see the
    /// module documentation). `None` when a point cannot be snapped or no path exists.
    pub fn route(&self, from: [f64; 2], to: [f64; 2]) -> Option<Vec<[f64; 2]>> {
        let (start, _) = self.nearest_node(from[0], from[1])?;
        let (goal, goal_at) = self.nearest_node(to[0], to[1])?;
        let (_, path) = petgraph::algo::astar(
            &self.graph,
            start,
            |n| n == goal,
            |e| *e.weight(),
            |n| {
                let a = self.graph[n];
                distance_nm(a[1], a[0], goal_at[1], goal_at[0])
            },
        )?;
        let mut coords = Vec::with_capacity(path.len() + 2);
        coords.push(from);
        coords.extend(path.iter().map(|&n| self.graph[n]));
        coords.push(to);
        coords.dedup_by(|a, b| {
            (wrap_lon(a[0]) - wrap_lon(b[0])).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9
        });
        unwrap_lons(&mut coords);
        Some(coords)
    }
}

/// Length of a line in nautical miles (great-circle between consecutive points).
pub fn length_nm(coords: &[[f64; 2]]) -> f64 {
    coords
        .windows(2)
        .map(|w| distance_nm(w[0][1], w[0][0], w[1][1], w[1][0]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_network_parses() {
        let n = network();
        // 19,950 coordinates, of which 9,679 distinct once longitudes are wrapped.
        assert!(n.node_count() > 9_000, "{}", n.node_count());
        assert!(n.edge_count() > n.node_count());
    }

    #[test]
    fn shanghai_to_rotterdam_goes_through_suez() {
        let r = network()
            .route([121.8, 31.2], [4.0, 51.95])
            .expect("a route");
        let nm = length_nm(&r);
        // About 10,500 nm via Suez; via the Cape of Good Hope it is about 14,000.
        assert!((9_500.0..12_000.0).contains(&nm), "{nm}");
        assert!(r
            .iter()
            .any(|c| (32.0..33.0).contains(&c[0]) && (29.5..31.5).contains(&c[1])));
    }

    #[test]
    fn new_york_to_los_angeles_goes_through_panama() {
        let r = network()
            .route([-74.0, 40.5], [-118.27, 33.7])
            .expect("a route");
        let nm = length_nm(&r);
        assert!((4_500.0..6_500.0).contains(&nm), "{nm}");
        assert!(r
            .iter()
            .any(|c| (-80.5..-79.0).contains(&c[0]) && (8.0..10.0).contains(&c[1])));
    }

    #[test]
    fn pacific_crossing_is_continuous_across_the_antimeridian() {
        // Yokohama to Los Angeles: the short way crosses 180°.
        let r = network()
            .route([139.65, 35.4], [-118.27, 33.7])
            .expect("a route");
        let nm = length_nm(&r);
        assert!((4_500.0..6_000.0).contains(&nm), "{nm}");
        assert!(r.windows(2).all(|w| (w[1][0] - w[0][0]).abs() <= 180.0));
        assert!(r.iter().any(|c| c[0] > 180.0 || c[0] < -180.0));
    }

    #[test]
    fn unwrap_and_wrap() {
        assert_eq!(wrap_lon(190.0), -170.0);
        assert_eq!(wrap_lon(180.0), -180.0);
        assert_eq!(wrap_lon(-180.0), -180.0);
        let mut c = vec![[179.0, 0.0], [-179.0, 0.0], [-178.0, 0.0]];
        unwrap_lons(&mut c);
        assert_eq!(c, vec![[179.0, 0.0], [181.0, 0.0], [182.0, 0.0]]);
    }
}
