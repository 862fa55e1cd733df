//! Container terminals (facilities) from the DCSA facility list
//! (`data/reference/facilities.csv`: name, UN/LOCODE, SMDG code, BIC facility code), with the
//! IANA time zone of their port.
//!
//! SMDG terminal codes are unique only within a port (`CSP` exists in several), so a terminal is
//! identified by UN/LOCODE + code; a bare code resolves only when it is unambiguous.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::ids;
use crate::reference;

/// A terminal: where containers are discharged, checked and picked up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terminal {
    /// UUID v5 of `locode` and the SMDG (or BIC) code: the same for every account.
    pub id: Uuid,
    pub name: String,
    /// UN/LOCODE of the port the terminal belongs to.
    pub locode: String,
    pub smdg_code: Option<String>,
    pub bic_code: Option<String>,
    /// IANA time zone of the port (local times in terminal files are read in it).
    pub time_zone: Option<String>,
}

/// Why a terminal code does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TerminalLookupError {
    #[error("unknown terminal code {0:?} (not an SMDG or BIC code of the DCSA facility list)")]
    Unknown(String),
    #[error("terminal code {code:?} is used in several ports ({ports}); give the UN/LOCODE too")]
    Ambiguous { code: String, ports: String },
}

/// Index of terminals by (UN/LOCODE, code) and by code alone.
pub struct TerminalIndex {
    terminals: Vec<Terminal>,
    by_port_code: HashMap<(String, String), usize>,
    by_code: HashMap<String, Vec<usize>>,
}

/// Id of the terminal with `code` at `locode`.
pub fn terminal_id(locode: &str, code: &str) -> Uuid {
    ids::scoped(Uuid::nil(), "terminal", &[locode, code])
}

impl TerminalIndex {
    /// Reads the DCSA facility CSV (header `Facility Name,UNLOCODE,Facility SMDG Code,Facility BIC Code`).
    /// Rows without a UN/LOCODE or without any code are skipped.
    pub fn from_csv(text: &str) -> Result<Self, csv::Error> {
        let (ports, _) = reference::bundled();
        let mut terminals = Vec::new();
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        for row in rdr.records() {
            let row = row?;
            let get = |i: usize| {
                row.get(i)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            let (Some(name), Some(locode)) = (get(0), get(1)) else {
                continue;
            };
            let (smdg_code, bic_code) = (get(2), get(3));
            let Some(code) = smdg_code.clone().or_else(|| bic_code.clone()) else {
                continue;
            };
            terminals.push(Terminal {
                id: terminal_id(&locode, &code),
                time_zone: ports.get(&locode).and_then(|p| p.time_zone.clone()),
                name,
                locode,
                smdg_code,
                bic_code,
            });
        }
        let mut by_port_code = HashMap::new();
        let mut by_code: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in terminals.iter().enumerate() {
            for code in [&t.smdg_code, &t.bic_code].into_iter().flatten() {
                by_port_code
                    .entry((t.locode.clone(), code.to_ascii_uppercase()))
                    .or_insert(i);
                let list = by_code.entry(code.to_ascii_uppercase()).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
        Ok(TerminalIndex {
            terminals,
            by_port_code,
            by_code,
        })
    }

    /// Resolves a terminal code (SMDG or BIC, case-insensitive), within `locode` when given.
    pub fn resolve(
        &self,
        locode: Option<&str>,
        code: &str,
    ) -> Result<&Terminal, TerminalLookupError> {
        let code_uc = code.trim().to_ascii_uppercase();
        if let Some(l) = locode {
            if let Some(&i) = self
                .by_port_code
                .get(&(l.trim().to_ascii_uppercase(), code_uc.clone()))
            {
                return Ok(&self.terminals[i]);
            }
        }
        match self.by_code.get(&code_uc).map(Vec::as_slice) {
            Some([i]) => Ok(&self.terminals[*i]),
            Some(many) if !many.is_empty() => Err(TerminalLookupError::Ambiguous {
                code: code.to_string(),
                ports: many
                    .iter()
                    .map(|i| self.terminals[*i].locode.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
            _ => Err(TerminalLookupError::Unknown(code.to_string())),
        }
    }

    /// The terminal with this id.
    pub fn get(&self, id: Uuid) -> Option<&Terminal> {
        self.terminals.iter().find(|t| t.id == id)
    }

    /// Number of terminals.
    pub fn len(&self) -> usize {
        self.terminals.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.terminals.is_empty()
    }
}

/// The bundled facility list, indexed once per process.
pub fn bundled() -> &'static TerminalIndex {
    static INDEX: OnceLock<TerminalIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        TerminalIndex::from_csv(include_str!("../../data/reference/facilities.csv"))
            .expect("the bundled facilities.csv is valid CSV (checked by a test)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_codes_within_ports() {
        let idx = bundled();
        assert!(idx.len() > 900, "{}", idx.len());
        let trap = idx.resolve(Some("USLAX"), "trap").unwrap();
        assert_eq!(trap.name, "TRAPAC CONTAINER TERMINAL");
        assert_eq!(trap.time_zone.as_deref(), Some("America/Los_Angeles"));
        assert_eq!(idx.resolve(None, "TRAP").unwrap().id, trap.id);
        assert!(matches!(
            idx.resolve(None, "CSP"),
            Err(TerminalLookupError::Ambiguous { .. })
        ));
        assert!(matches!(
            idx.resolve(None, "NOPE1"),
            Err(TerminalLookupError::Unknown(_))
        ));
        assert_eq!(idx.get(trap.id).map(|t| t.locode.as_str()), Some("USLAX"));
    }
}
