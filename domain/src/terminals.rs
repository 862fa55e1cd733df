//! Container terminals (facilities) from the DCSA facility list
//! (`data/reference/facilities.csv`: name, UN/LOCODE, SMDG code, BIC facility code) and the
//! FIRMS codes of North American terminals (`data/reference/firms-codes.csv`: the US CBP
//! Facilities Information and Resources Management System code, or the Canadian CBSA
//! sub-location code, with name, UN/LOCODE and the SMDG code where known; sources in
//! `data/NOTICE.md`), with the IANA time zone of their port.
//!
//! A FIRMS row whose (UN/LOCODE, SMDG code) names a DCSA facility adds its FIRMS code to that
//! terminal; any other FIRMS row is a terminal of its own, identified by UN/LOCODE + FIRMS code.
//! FIRMS codes are unique nationwide, so a bare FIRMS code always resolves.
//!
//! SMDG terminal codes are unique only within a port (`CSP` exists in several), so a terminal is
//! identified by UN/LOCODE + code; a bare code resolves only when it is unambiguous.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::codes::UnLocode;
use crate::ids;
use crate::reference;

/// A terminal: where containers are discharged, checked and picked up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terminal {
    /// UUID v5 of `locode` and the SMDG (or BIC) code: the same for every account.
    pub id: Uuid,
    pub name: String,
    /// UN/LOCODE of the port the terminal belongs to.
    pub locode: UnLocode,
    pub smdg_code: Option<String>,
    pub bic_code: Option<String>,
    /// US CBP FIRMS code (e.g. `Y258`) or Canadian CBSA sub-location code, when known.
    #[serde(default)]
    pub firms_code: Option<String>,
    /// IANA time zone of the port (local times in terminal files are read in it).
    pub time_zone: Option<String>,
}

/// Why a terminal code does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TerminalLookupError {
    #[error(
        "unknown terminal code {0:?} (not an SMDG or BIC code of the DCSA facility list, nor a \
         FIRMS code of data/reference/firms-codes.csv)"
    )]
    Unknown(String),
    #[error("terminal code {code:?} is used in several ports ({ports}); give the UN/LOCODE too")]
    Ambiguous { code: String, ports: String },
}

/// Index of terminals by (UN/LOCODE, code) and by code alone.
pub struct TerminalIndex {
    terminals: Vec<Terminal>,
    by_port_code: HashMap<(UnLocode, String), usize>,
    by_code: HashMap<String, Vec<usize>>,
}

/// Id of the terminal with `code` at `locode`.
pub fn terminal_id(locode: &str, code: &str) -> Uuid {
    ids::scoped(Uuid::nil(), "terminal", &[locode, code])
}

impl TerminalIndex {
    /// Reads the DCSA facility CSV (header `Facility Name,UNLOCODE,Facility SMDG Code,Facility BIC Code`).
    /// Rows without a well-formed UN/LOCODE ([`UnLocode::parse`]) or without any code are
    /// skipped.
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
            let (Some(name), Some(locode)) =
                (get(0), get(1).and_then(|l| UnLocode::parse(&l).ok()))
            else {
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
                firms_code: None,
            });
        }
        let mut index = TerminalIndex {
            terminals,
            by_port_code: HashMap::new(),
            by_code: HashMap::new(),
        };
        index.reindex();
        Ok(index)
    }

    /// Adds FIRMS codes from a CSV with header `firms_code,facility_name,unlocode,smdg_code,...`
    /// (`data/reference/firms-codes.csv`). A row whose UN/LOCODE + SMDG code names a known
    /// terminal gives it the FIRMS code; any other row becomes a terminal of its own. Rows without
    /// a FIRMS code or a well-formed UN/LOCODE are skipped.
    pub fn with_firms(mut self, text: &str) -> Result<Self, csv::Error> {
        let (ports, _) = reference::bundled();
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        for row in rdr.records() {
            let row = row?;
            let get = |i: usize| {
                row.get(i)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            let (Some(firms), Some(name), Some(locode)) = (
                get(0),
                get(1),
                get(2).and_then(|l| UnLocode::parse(&l).ok()),
            ) else {
                continue;
            };
            let known = get(3).and_then(|smdg| {
                self.by_port_code
                    .get(&(locode.clone(), smdg.to_ascii_uppercase()))
                    .copied()
            });
            match known {
                Some(i) => self.terminals[i].firms_code = Some(firms),
                None => self.terminals.push(Terminal {
                    id: terminal_id(&locode, &firms),
                    time_zone: ports.get(&locode).and_then(|p| p.time_zone.clone()),
                    name,
                    locode,
                    smdg_code: None,
                    bic_code: None,
                    firms_code: Some(firms),
                }),
            }
        }
        self.reindex();
        Ok(self)
    }

    fn reindex(&mut self) {
        self.by_port_code.clear();
        self.by_code.clear();
        for (i, t) in self.terminals.iter().enumerate() {
            for code in [&t.smdg_code, &t.bic_code, &t.firms_code]
                .into_iter()
                .flatten()
            {
                self.by_port_code
                    .entry((t.locode.clone(), code.to_ascii_uppercase()))
                    .or_insert(i);
                let list = self.by_code.entry(code.to_ascii_uppercase()).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
    }

    /// Resolves a terminal code (SMDG, BIC or FIRMS, case-insensitive), within `locode` when
    /// given.
    pub fn resolve(
        &self,
        locode: Option<&str>,
        code: &str,
    ) -> Result<&Terminal, TerminalLookupError> {
        let code_uc = code.trim().to_ascii_uppercase();
        if let Some(l) = locode.and_then(|l| UnLocode::parse(l.trim()).ok()) {
            if let Some(&i) = self.by_port_code.get(&(l, code_uc.clone())) {
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
            .and_then(|idx| idx.with_firms(include_str!("../../data/reference/firms-codes.csv")))
            .expect(
                "the bundled facilities.csv and firms-codes.csv are valid CSV (checked by a test)",
            )
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

    #[test]
    fn resolves_firms_codes() {
        let idx = bundled();
        // E364 is GCT Bayonne (Terminal49 coverage list); its SMDG code is in the DCSA list, so the
        // FIRMS code lands on that facility and both codes give the same terminal.
        let firms = idx.resolve(None, "e364").unwrap();
        assert_eq!(firms.firms_code.as_deref(), Some("E364"));
        assert_eq!(firms.locode, "USNYC");
        assert_eq!(firms.time_zone.as_deref(), Some("America/New_York"));
        if let Some(smdg) = &firms.smdg_code {
            assert_eq!(idx.resolve(Some("USNYC"), smdg).unwrap().id, firms.id);
        }
        // A FIRMS-only terminal (no SMDG code) is still a terminal with the port's zone.
        let gloucester = idx.resolve(Some("USGLC"), "D104").unwrap();
        assert_eq!(gloucester.name, "Gloucester Marine Terminal");
        assert!(gloucester.smdg_code.is_none());
        // Every FIRMS row of the bundled file resolves to a terminal carrying that code.
        let text = include_str!("../../data/reference/firms-codes.csv");
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        let mut rows = 0;
        for row in rdr.records() {
            let row = row.unwrap();
            let t = idx.resolve(Some(&row[2]), &row[0]).unwrap();
            assert_eq!(t.firms_code.as_deref(), Some(&row[0]), "{row:?}");
            rows += 1;
        }
        assert!(rows >= 50, "{rows}");
    }
}
