//! Carrier inference: what kind of number a bare tracking number is (container, bill of lading,
//! booking), whether it is valid, and which shipping line (SCAC) it belongs to, with a
//! confidence in [0, 1] (interface.md: `POST /tracking_requests/infer_number`).
//!
//! # Rules
//!
//! The number is first normalized ([`crate::iso6346::normalize`]: upper case, without spaces,
//! dashes, dots and slashes). Then, in this order:
//!
//! 1. **Container** (`validation.type` container): 4 letters and 7 digits whose 4th letter is
//!    the ISO 6346 category U, J or Z. The check digit decides `check_digit_passed`; a failing
//!    check digit makes it invalid, with the ISO 6346 reason — unless the first four letters are
//!    a line's bill-of-lading prefix (MSC's `MEDU` + 7 digits is a bill of lading with the shape
//!    of a container number), then it is a bill of lading. Other ISO 6346 near-misses (3 letters
//!    and a wrong category letter, 10 or 12 characters starting with an owner code) are invalid
//!    containers, with the reason.
//! 2. **Bill of lading** (`validation.type` shipment): starts with a carrier's bill-of-lading
//!    prefix, SCAC or alternative SCAC (`data/reference/ocean-carriers.csv`), followed by 4 to
//!    16 letters and digits with at least one digit. Valid.
//! 3. **Booking**: 6 to 20 letters and digits with at least one digit and no known prefix.
//!    `is_valid` is null (unknown): booking formats are each line's own.
//! 4. Anything else is invalid, with the reason: empty, a character that is not a letter or
//!    digit, too short or too long.
//!
//! # Confidence
//!
//! Evidence, per candidate SCAC:
//! - **Reference** `r`: a container whose owner prefix is a line's own box
//!   ([`owners::OWNER_SCACS`]) gives that line [`OWN_BOX`] (0.97), or [`OWN_BOX_BAD_CHECK`]
//!   (0.80) when the check digit fails (the owner code may be mistyped); the line's sister lines
//!   ([`owners::SISTER_LINES`]) share the rest. A bill-of-lading prefix gives its line
//!   [`BL_PREFIX`] (0.97). Lessor boxes (TCLU, TGHU, FCIU, …) and unknown owners give nothing.
//! - **Shape** (bookings and bare numbers without a known prefix): the lines whose
//!   `number_shapes` match share [`SHAPE`] (0.75), the most specific shapes (most literal
//!   letters: `EBKG8d` before `4a8d`) only; like history alone, capped at
//!   [`HISTORY_ONLY_CAP`], so never auto-selected.
//! - **History** `h`: among the account's stored containers with the same owner prefix (or
//!   shipments with the same bill-of-lading prefix), the share carried by each SCAC, out of `n`.
//!
//! They are mixed with weight `w = n / (n + 5)` on history: `c = (1 - w)·r + w·h`, at most 0.99.
//! A container number whose check digit fails is capped at [`BAD_CHECK_CAP`] (0.94) however much
//! history lifts it, and `validation.reason` says so: it is never auto-selected.
//! When the reference gives nothing (lessor, unknown owner, booking), history alone is capped
//! at [`HISTORY_ONLY_CAP`] (0.90): what a lessor box did before does not say who carries it
//! now, so it is never auto-selected. Decision: ≥ 0.95 auto_select, ≥ 0.70 needs_confirmation,
//! else no_prediction (spec). `selected` is the top candidate unless the decision is
//! no_prediction. Calibration against labelled public numbers: `data/calibration/` and the
//! README.

pub mod batch;
pub mod owners;
mod scoring;

use serde::Serialize;

pub use scoring::{Reason, Scored, Scorer};
pub use teu_domain::history::{self, History};
pub use teu_domain::model::NumberType;

/// Confidence for a container in a line's own box (owner prefix of that line).
pub const OWN_BOX: f64 = 0.97;
/// Confidence for a line's own box when the ISO 6346 check digit fails.
pub const OWN_BOX_BAD_CHECK: f64 = 0.80;
/// Highest confidence for a container number whose ISO 6346 check digit fails, whatever the
/// history says: below [`AUTO_SELECT`], so such a number is never selected without asking (a
/// mistyped number names no container the line can track).
pub const BAD_CHECK_CAP: f64 = 0.94;
/// Confidence for a bill of lading that starts with a line's prefix.
pub const BL_PREFIX: f64 = 0.97;
/// Confidence shared by the lines whose bare-number shape (`ocean-carriers.csv` `number_shapes`,
/// e.g. Maersk's nine digits, MSC's `EBKG` and eight digits) a booking-shaped number has: split
/// evenly when several lines share the shape, and never more than [`HISTORY_ONLY_CAP`], so a
/// shape proposes a line but never selects it.
pub const SHAPE: f64 = 0.75;
/// Highest confidence from account history alone (no reference evidence).
pub const HISTORY_ONLY_CAP: f64 = 0.90;
/// Highest confidence overall.
pub const MAX_CONFIDENCE: f64 = 0.99;
/// Pseudo-count of the history weight `n / (n + HISTORY_PRIOR)`.
pub const HISTORY_PRIOR: f64 = 5.0;
/// Confidence at or above which the line is selected without asking (spec).
pub const AUTO_SELECT: f64 = 0.95;
/// Confidence at or above which the line is proposed for confirmation (spec).
pub const NEEDS_CONFIRMATION: f64 = 0.70;

/// Classification of one result (interface.md: `shipping_line.decision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Confidence ≥ 0.95.
    AutoSelect,
    /// Confidence from 0.70 to below 0.95.
    NeedsConfirmation,
    /// Below 0.70, or no candidate.
    NoPrediction,
}

impl Decision {
    /// The decision for a top confidence (`None`: no candidate), by the spec's thresholds.
    pub fn from_confidence(top: Option<f64>) -> Decision {
        match top {
            Some(c) if c >= AUTO_SELECT => Decision::AutoSelect,
            Some(c) if c >= NEEDS_CONFIRMATION => Decision::NeedsConfirmation,
            _ => Decision::NoPrediction,
        }
    }

    /// `auto_select`, `needs_confirmation` or `no_prediction`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::AutoSelect => "auto_select",
            Decision::NeedsConfirmation => "needs_confirmation",
            Decision::NoPrediction => "no_prediction",
        }
    }
}

/// `validation` of an inference result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// `true` valid format, `false` invalid, `None` unknown (bookings).
    pub is_valid: Option<bool>,
    /// `container` or `shipment` ([`NumberType::validation_type`]).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// For containers, the ISO 6346 check digit result; `false` for other numbers.
    pub check_digit_passed: bool,
    /// Why the number is invalid; absent when it is valid or unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One possible shipping line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// The line's SCAC, e.g. `MSCU`.
    pub scac: String,
    /// The line's name (`ocean-carriers.csv` `name`), or the SCAC when the line is not listed.
    pub name: String,
    /// Confidence in [0, 1], rounded to 3 decimals.
    pub confidence: f64,
}

/// `shipping_line` of an inference result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShippingLine {
    /// What to do with the top candidate.
    pub decision: Decision,
    /// The top candidate, absent when the decision is no_prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<Candidate>,
    /// Every plausible line, highest confidence first (ties by SCAC).
    pub candidates: Vec<Candidate>,
}

/// The result of inferring one number (interface.md: `data.attributes` of infer_number), plus the
/// normalized number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inference {
    /// The number as teu reads it: upper case, without spaces, dashes, dots and slashes.
    pub number: String,
    /// Container, bill of lading or booking.
    pub number_type: NumberType,
    /// Validity of the number's format.
    pub validation: Validation,
    /// The shipping line prediction.
    pub shipping_line: ShippingLine,
}

/// Infers one number with the bundled reference data ([`Scorer::bundled`]) and the account's
/// `history` (an empty [`History`] when there is none).
pub fn infer(number: &str, history: &History) -> Inference {
    Scorer::bundled().infer(number, history)
}

/// Rounds a confidence to 3 decimals for output.
pub(crate) fn round3(c: f64) -> f64 {
    (c * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests;
