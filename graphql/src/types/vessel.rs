//! `Vessel`: a vessel as the carrier events name it.

use async_graphql::SimpleObject;
use teu_pipeline::model;

/// A vessel as the carrier events name it.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct Vessel {
    /// IMO number, 7 digits, when given.
    pub imo: Option<String>,
    /// Vessel name, when given.
    pub name: Option<String>,
}

impl Vessel {
    /// A vessel from an IMO number and a name; `None` when both are missing.
    pub fn of(imo: Option<&str>, name: Option<&str>) -> Option<Vessel> {
        if imo.is_none() && name.is_none() {
            return None;
        }
        Some(Vessel {
            imo: imo.map(str::to_string),
            name: name.map(str::to_string),
        })
    }

    /// The vessels `events` name, each once, in the order first named: two mentions are the
    /// same vessel when both carry the same IMO number, or when neither carries one and the
    /// names are equal.
    pub fn distinct<'a>(events: impl IntoIterator<Item = &'a model::EventRow>) -> Vec<Vessel> {
        let mut out: Vec<Vessel> = Vec::new();
        for e in events {
            let Some(v) = Vessel::of(e.vessel_imo.as_deref(), e.vessel_name.as_deref()) else {
                continue;
            };
            let same = |o: &Vessel| match (&o.imo, &v.imo) {
                (Some(a), Some(b)) => a == b,
                (None, None) => o.name == v.name,
                _ => false,
            };
            if !out.iter().any(same) {
                out.push(v);
            }
        }
        out
    }
}
