//! `Vessel`: a vessel as the carrier events name it.

use async_graphql::SimpleObject;

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
}
