//! The scorer: reference tables built once, and the per-number rules of the module
//! documentation. [`Scorer::score`] allocates nothing for valid numbers but the candidate list,
//! so batches run at millions of numbers per second on one core.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

use super::owners::{bundled_bic_owners, BicOwner, SHARED_POOL_OWNERS, SISTER_LINES};
use super::{
    round3, Candidate, Decision, History, Inference, NumberType, ShippingLine, Validation,
    BAD_CHECK_CAP, BL_PREFIX, HISTORY_ONLY_CAP, HISTORY_PRIOR, MAX_CONFIDENCE, OWN_BOX,
    OWN_BOX_BAD_CHECK, SHAPE,
};
use crate::iso6346::{self, Iso6346Error};
use crate::model::Carrier;
use crate::reference::{self, CarrierIndex, NumberShape};

/// Shortest bill of lading or booking number accepted.
pub const MIN_LEN: usize = 6;
/// Longest bill of lading or booking number accepted.
pub const MAX_LEN: usize = 20;

/// Why a number is invalid. The `Display` text is `validation.reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Nothing left after removing spaces, dashes, dots and slashes.
    Empty,
    /// A character that is not an ASCII letter or digit.
    Character(char),
    /// Shorter than [`MIN_LEN`].
    TooShort(usize),
    /// Longer than [`MAX_LEN`].
    TooLong(usize),
    /// No digit at all (tracking numbers always have some).
    NoDigits,
    /// An ISO 6346 rule is broken.
    Iso6346(Iso6346Error),
    /// The ISO 6346 check digit fails and a line is still proposed: its confidence is capped
    /// at [`BAD_CHECK_CAP`].
    CheckDigitCapped(Iso6346Error),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Empty => f.write_str("the number is empty"),
            Reason::Character(c) => write!(
                f,
                "the number contains {c:?}; only letters and digits are allowed (spaces, dashes, dots and slashes are ignored)"
            ),
            Reason::TooShort(n) => write!(
                f,
                "the number has {n} characters; a container number has 11, a bill of lading or booking number {MIN_LEN} to {MAX_LEN}"
            ),
            Reason::TooLong(n) => write!(
                f,
                "the number has {n} characters; a container number has 11, a bill of lading or booking number {MIN_LEN} to {MAX_LEN}"
            ),
            Reason::NoDigits => f.write_str("the number has no digits; container, bill of lading and booking numbers all do"),
            Reason::Iso6346(e) => write!(f, "{e}"),
            Reason::CheckDigitCapped(e) => write!(
                f,
                "{e}; a number that fails its check digit is never auto-selected, so the line's confidence is capped at {BAD_CHECK_CAP}"
            ),
        }
    }
}

/// Index of a line in the scorer's carrier list, or a SCAC only known from history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'h> {
    Known(u16),
    Other(&'h str),
}

/// One scored number, borrowing the scorer and the history: what [`Scorer::infer`] turns into
/// an [`Inference`] and the batch path into columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<'a> {
    /// Kind of number.
    pub number_type: NumberType,
    /// `true` valid, `false` invalid, `None` unknown.
    pub is_valid: Option<bool>,
    /// ISO 6346 check digit result (containers only).
    pub check_digit_passed: bool,
    /// Why it is invalid.
    pub reason: Option<Reason>,
    /// (SCAC, name, confidence), highest first, confidence not yet rounded.
    pub candidates: Vec<(&'a str, &'a str, f64)>,
}

impl Scored<'_> {
    /// The decision for the top candidate.
    pub fn decision(&self) -> Decision {
        Decision::from_confidence(self.candidates.first().map(|c| round3(c.2)))
    }
}

/// Reference tables for scoring, built once from the bundled data ([`Scorer::bundled`]) or
/// from given carriers and owners ([`Scorer::new`]).
#[derive(Debug, Clone)]
pub struct Scorer {
    carriers: Vec<Carrier>,
    /// SCAC → index in `carriers`.
    by_scac: HashMap<String, u16>,
    /// Bill-of-lading prefix, SCAC or alternative SCAC → line.
    bl_codes: HashMap<String, u16>,
    /// Declared bill-of-lading prefixes (`bill_of_lading_prefix` column) only.
    bl_prefixes: HashSet<String>,
    /// Distinct lengths of `bl_codes` keys, longest first.
    bl_lengths: Vec<usize>,
    /// Owner prefix → (owner line, sister lines, the owner's confidence when the check digit
    /// passes). Only lines' own boxes.
    own_boxes: HashMap<[u8; 4], (u16, Vec<u16>, f64)>,
    /// Bare-number shapes and their line.
    shapes: Vec<(NumberShape, u16)>,
}

impl Scorer {
    /// Builds the tables from carriers (`ocean-carriers.csv`) and BIC owners.
    pub fn new(carriers: &CarrierIndex, owners: &[BicOwner]) -> Scorer {
        let carriers: Vec<Carrier> = carriers.iter().cloned().collect();
        let mut by_scac = HashMap::new();
        let mut bl_codes = HashMap::new();
        for (i, c) in carriers.iter().enumerate() {
            let i = i as u16;
            by_scac.insert(c.scac.to_string(), i);
            bl_codes.entry(c.scac.to_string()).or_insert(i);
        }
        for (i, c) in carriers.iter().enumerate() {
            let i = i as u16;
            let alternatives = c.alternative_scacs.iter().map(|s| s.as_str());
            for code in alternatives.chain(c.bill_of_lading_prefix.as_deref()) {
                bl_codes.entry(code.to_string()).or_insert(i);
            }
        }
        let mut bl_lengths: Vec<usize> = bl_codes.keys().map(String::len).collect();
        bl_lengths.sort_unstable_by(|a, b| b.cmp(a));
        bl_lengths.dedup();
        let mut own_boxes = HashMap::new();
        for owner in owners {
            let Some(&line) = owner.scac.as_ref().and_then(|s| by_scac.get(s)) else {
                continue;
            };
            let Ok(key) = <[u8; 4]>::try_from(owner.prefix.as_bytes()) else {
                continue;
            };
            let scac = carriers[line as usize].scac.as_str();
            let sisters = SISTER_LINES
                .iter()
                .find(|g| g.first() == Some(&scac))
                .map(|g| {
                    g[1..]
                        .iter()
                        .filter_map(|s| by_scac.get(*s).copied())
                        .collect()
                })
                .unwrap_or_default();
            let top = SHARED_POOL_OWNERS
                .iter()
                .find(|(owner, _)| *owner == scac)
                .map_or(OWN_BOX, |&(_, c)| c);
            own_boxes.insert(key, (line, sisters, top));
        }
        let shapes = carriers
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                c.number_shapes
                    .iter()
                    .filter_map(move |p| NumberShape::parse(p).map(|s| (s, i as u16)))
            })
            .collect();
        Scorer {
            shapes,
            bl_prefixes: carriers
                .iter()
                .filter_map(|c| c.bill_of_lading_prefix.clone())
                .collect(),
            carriers,
            by_scac,
            bl_codes,
            bl_lengths,
            own_boxes,
        }
    }

    /// The scorer over the bundled reference data, built once per process.
    pub fn bundled() -> &'static Scorer {
        static SCORER: OnceLock<Scorer> = OnceLock::new();
        SCORER.get_or_init(|| Scorer::new(&reference::bundled().1, &bundled_bic_owners()))
    }

    /// Scores `raw` (any text; normalized here) against `history`.
    pub fn infer(&self, raw: &str, history: &History) -> Inference {
        let mut buf = String::new();
        let scored = self.score(raw, history, &mut buf);
        self.to_inference(buf, &scored)
    }

    /// Turns a [`Scored`] and its normalized number into the result document.
    pub fn to_inference(&self, number: String, scored: &Scored<'_>) -> Inference {
        let candidates: Vec<Candidate> = scored
            .candidates
            .iter()
            .map(|&(scac, name, c)| Candidate {
                scac: scac.to_string(),
                name: name.to_string(),
                confidence: round3(c),
            })
            .collect();
        let decision = scored.decision();
        let selected = match decision {
            Decision::NoPrediction => None,
            _ => candidates.first().cloned(),
        };
        Inference {
            number,
            number_type: scored.number_type,
            validation: Validation {
                is_valid: scored.is_valid,
                kind: scored.number_type.validation_type(),
                check_digit_passed: scored.check_digit_passed,
                reason: scored.reason.as_ref().map(ToString::to_string),
            },
            shipping_line: ShippingLine {
                decision,
                selected,
                candidates,
            },
        }
    }

    /// Scores one number: `buf` receives the normalized number (it is cleared first, so one
    /// buffer serves a whole batch).
    pub fn score<'a>(&'a self, raw: &str, history: &'a History, buf: &mut String) -> Scored<'a> {
        buf.clear();
        for c in raw.chars() {
            if !matches!(c, ' ' | '-' | '.' | '/' | '\t' | '\r' | '\n') {
                buf.push(c.to_ascii_uppercase());
            }
        }
        let s = buf.as_str();
        let (number_type, is_valid, check_digit_passed, mut reason) = classify(self, s);
        let mut evidence: Vec<(Line<'a>, f64)> = Vec::new();
        let mut history_rows: Option<&'a Vec<(String, u64)>> = None;
        let prefix = s
            .get(..4)
            .filter(|p| p.bytes().all(|b| b.is_ascii_uppercase()));
        match number_type {
            NumberType::Container => {
                if let Some(p) = prefix {
                    if let Some((line, sisters, own)) = p
                        .as_bytes()
                        .try_into()
                        .ok()
                        .and_then(|k: [u8; 4]| self.own_boxes.get(&k))
                    {
                        let top = if check_digit_passed {
                            *own
                        } else {
                            own.min(OWN_BOX_BAD_CHECK)
                        };
                        evidence.push((Line::Known(*line), top));
                        let rest = (1.0 - top) / (sisters.len() as f64 + 1.0);
                        for &s in sisters {
                            evidence.push((Line::Known(s), rest));
                        }
                    }
                    history_rows = history.owner.get(p);
                }
            }
            NumberType::BillOfLading => {
                if let Some(line) = self.bl_line(s) {
                    evidence.push((Line::Known(line), BL_PREFIX));
                }
                history_rows = prefix.and_then(|p| history.bill_of_lading.get(p));
            }
            NumberType::Booking => {
                let matching: Vec<(usize, u16)> = self
                    .shapes
                    .iter()
                    .filter(|(shape, _)| shape.matches(s))
                    .map(|(shape, line)| (shape.specificity(), *line))
                    .collect();
                let most = matching.iter().map(|m| m.0).max().unwrap_or(0);
                let mut lines: Vec<u16> = matching
                    .iter()
                    .filter(|m| m.0 == most)
                    .map(|m| m.1)
                    .collect();
                lines.dedup();
                for &line in &lines {
                    evidence.push((Line::Known(line), SHAPE / lines.len() as f64));
                }
            }
        }
        let reference_cap = match number_type {
            NumberType::Booking => HISTORY_ONLY_CAP,
            _ => MAX_CONFIDENCE,
        };
        let mut candidates = self.combine(evidence, history_rows, reference_cap);
        if let Some(Reason::Iso6346(e @ Iso6346Error::CheckDigit { .. })) = &reason {
            if !candidates.is_empty() {
                for c in &mut candidates {
                    c.2 = c.2.min(BAD_CHECK_CAP);
                }
                reason = Some(Reason::CheckDigitCapped(e.clone()));
            }
        }
        candidates.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(b.0)));
        Scored {
            number_type,
            is_valid,
            check_digit_passed,
            reason,
            candidates,
        }
    }

    /// Mixes reference evidence with history (module documentation); confidences are capped at
    /// `reference_cap` when there is reference evidence, else at [`HISTORY_ONLY_CAP`].
    fn combine<'a>(
        &'a self,
        mut evidence: Vec<(Line<'a>, f64)>,
        history: Option<&'a Vec<(String, u64)>>,
        reference_cap: f64,
    ) -> Vec<(&'a str, &'a str, f64)> {
        let has_reference = !evidence.is_empty();
        if let Some(rows) = history.filter(|r| !r.is_empty()) {
            let n: u64 = rows.iter().map(|r| r.1).sum();
            let w = n as f64 / (n as f64 + HISTORY_PRIOR);
            for e in &mut evidence {
                e.1 *= 1.0 - w;
            }
            for (scac, count) in rows {
                let h = w * (*count as f64) / (n as f64);
                let line = match self.by_scac.get(scac.as_str()) {
                    Some(&i) => Line::Known(i),
                    None => Line::Other(scac.as_str()),
                };
                match evidence.iter_mut().find(|e| e.0 == line) {
                    Some(e) => e.1 += h,
                    None => evidence.push((line, h)),
                }
            }
        }
        let cap = if has_reference {
            reference_cap
        } else {
            HISTORY_ONLY_CAP
        };
        evidence
            .into_iter()
            .filter(|e| e.1 > 0.0)
            .map(|(line, c)| {
                let (scac, name) = match line {
                    Line::Known(i) => {
                        let c = &self.carriers[i as usize];
                        (c.scac.as_str(), c.short_name.as_str())
                    }
                    Line::Other(s) => (s, s),
                };
                (scac, name, c.min(cap))
            })
            .collect()
    }

    /// The line whose bill-of-lading prefix, SCAC or alternative SCAC starts `s`, followed by
    /// at least 4 more characters (longest code first).
    fn bl_line(&self, s: &str) -> Option<u16> {
        self.bl_lengths
            .iter()
            .filter(|&&n| s.len() >= n + 4)
            .find_map(|&n| s.get(..n).and_then(|p| self.bl_codes.get(p)).copied())
    }
}

/// Number type, validity, check digit and reason of a normalized number (module rules 1–4).
fn classify(scorer: &Scorer, s: &str) -> (NumberType, Option<bool>, bool, Option<Reason>) {
    use NumberType::*;
    let invalid = |t, r| (t, Some(false), false, Some(r));
    if s.is_empty() {
        return invalid(BillOfLading, Reason::Empty);
    }
    let b = s.as_bytes();
    if let Some(c) = s.chars().find(|c| !c.is_ascii_alphanumeric()) {
        let t = if b.len() == 11 && b[..4].iter().all(u8::is_ascii_alphabetic) {
            Container
        } else {
            BillOfLading
        };
        return invalid(t, Reason::Character(c));
    }
    let letters4 = b.len() >= 4 && b[..4].iter().all(u8::is_ascii_uppercase);
    let digits_after4 = b.len() > 4 && b[4..].iter().all(u8::is_ascii_digit);
    if b.len() == 11 && letters4 && digits_after4 {
        match iso6346::validate(s) {
            Ok(()) => return (Container, Some(true), true, None),
            Err(e) => {
                // MSC's MEDU + 7 digits is a bill of lading shaped like a container number; a
                // 4th letter other than U, J or Z after a line's code is a bill of lading too.
                let bill = match e {
                    Iso6346Error::CheckDigit { .. } => scorer.bl_prefixes.contains(&s[..4]),
                    Iso6346Error::Category(_) => scorer.bl_line(s).is_some(),
                    _ => false,
                };
                if bill {
                    return (BillOfLading, Some(true), false, None);
                }
                return invalid(Container, Reason::Iso6346(e));
            }
        }
    }
    // An owner code and category, but one digit too few or too many.
    if (b.len() == 10 || b.len() == 12)
        && letters4
        && matches!(b[3], b'U' | b'J' | b'Z')
        && digits_after4
        && scorer.bl_line(s).is_none()
    {
        return invalid(Container, Reason::Iso6346(Iso6346Error::Length(s.into())));
    }
    if !b.iter().any(u8::is_ascii_digit) {
        return invalid(BillOfLading, Reason::NoDigits);
    }
    if b.len() < MIN_LEN {
        return invalid(Booking, Reason::TooShort(b.len()));
    }
    if b.len() > MAX_LEN {
        return invalid(BillOfLading, Reason::TooLong(b.len()));
    }
    if scorer.bl_line(s).is_some() {
        return (BillOfLading, Some(true), false, None);
    }
    (Booking, None, false, None)
}
