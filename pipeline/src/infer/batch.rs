//! Batch inference over a polars column: one output row per input row, in input order.
//!
//! [`infer_column`] scores a whole string column and returns a [`DataFrame`] with the columns of
//! [`OUTPUT_COLUMNS`]. A null or malformed input row is not an error: it gets its own row with
//! `is_valid` false and a `reason`. Each distinct number is scored once (batches repeat numbers:
//! several rows per container or bill of lading), so the cost follows the distinct count.

use std::collections::HashMap;

use polars::prelude::*;

use super::{round3, History, Scorer};

/// Output columns of [`infer_column`], in order:
///
/// | column | type | content |
/// |---|---|---|
/// | `number` | str | the input as given (null stays null) |
/// | `normalized` | str | upper case, without spaces, dashes, dots and slashes |
/// | `number_type` | str | container, bill_of_lading, booking |
/// | `is_valid` | bool | null = unknown |
/// | `validation_type` | str | container or shipment |
/// | `check_digit_passed` | bool | ISO 6346 check digit (containers) |
/// | `reason` | str | why invalid, else null |
/// | `decision` | str | auto_select, needs_confirmation, no_prediction |
/// | `scac` | str | selected SCAC, null when no_prediction |
/// | `confidence` | f64 | top candidate's confidence (also when not selected), null without candidates |
/// | `candidates` | str | all candidates as `SCAC:confidence` separated by spaces |
pub const OUTPUT_COLUMNS: [&str; 11] = [
    "number",
    "normalized",
    "number_type",
    "is_valid",
    "validation_type",
    "check_digit_passed",
    "reason",
    "decision",
    "scac",
    "confidence",
    "candidates",
];

/// One output row, owned (what [`infer_column`] puts into the frame).
#[derive(Debug, Clone, PartialEq)]
struct Row {
    normalized: String,
    number_type: &'static str,
    is_valid: Option<bool>,
    validation_type: &'static str,
    check_digit_passed: bool,
    reason: Option<String>,
    decision: &'static str,
    scac: Option<String>,
    confidence: Option<f64>,
    candidates: String,
}

fn score_row(scorer: &Scorer, raw: &str, history: &History, buf: &mut String) -> Row {
    let scored = scorer.score(raw, history, buf);
    let decision = scored.decision();
    let top = scored.candidates.first();
    let mut candidates = String::new();
    for (i, (scac, _, c)) in scored.candidates.iter().enumerate() {
        if i > 0 {
            candidates.push(' ');
        }
        candidates.push_str(scac);
        candidates.push(':');
        candidates.push_str(&round3(*c).to_string());
    }
    Row {
        normalized: buf.clone(),
        number_type: scored.number_type.as_str(),
        is_valid: scored.is_valid,
        validation_type: scored.number_type.validation_type(),
        check_digit_passed: scored.check_digit_passed,
        reason: scored.reason.as_ref().map(ToString::to_string),
        decision: decision.as_str(),
        scac: match decision {
            super::Decision::NoPrediction => None,
            _ => top.map(|t| t.0.to_string()),
        },
        confidence: top.map(|t| round3(t.2)),
        candidates,
    }
}

/// Scores every row of the string column `numbers` with `scorer` and `history`.
///
/// # Errors
///
/// [`PolarsError::SchemaMismatch`] when `numbers` is not a string column.
pub fn infer_column(
    scorer: &Scorer,
    numbers: &Column,
    history: &History,
) -> PolarsResult<DataFrame> {
    let input = numbers.str()?;
    let n = input.len();
    let mut distinct: HashMap<&str, u32> = HashMap::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut index: Vec<u32> = Vec::with_capacity(n);
    let mut buf = String::new();
    for value in input.iter() {
        let raw = value.unwrap_or("");
        let i = match distinct.get(raw) {
            Some(&i) => i,
            None => {
                let i = rows.len() as u32;
                rows.push(score_row(scorer, raw, history, &mut buf));
                distinct.insert(raw, i);
                i
            }
        };
        index.push(i);
    }
    let at = |i: &u32| &rows[*i as usize];
    let str_col = |name: &str, f: &dyn Fn(&Row) -> Option<&str>| {
        Column::new(
            name.into(),
            index
                .iter()
                .map(|i| f(at(i)))
                .collect::<Vec<Option<&str>>>(),
        )
    };
    let columns = vec![
        Column::new("number".into(), input.iter().collect::<Vec<Option<&str>>>()),
        str_col("normalized", &|r| Some(r.normalized.as_str())),
        str_col("number_type", &|r| Some(r.number_type)),
        Column::new(
            "is_valid".into(),
            index
                .iter()
                .map(|i| at(i).is_valid)
                .collect::<Vec<Option<bool>>>(),
        ),
        str_col("validation_type", &|r| Some(r.validation_type)),
        Column::new(
            "check_digit_passed".into(),
            index
                .iter()
                .map(|i| at(i).check_digit_passed)
                .collect::<Vec<bool>>(),
        ),
        str_col("reason", &|r| r.reason.as_deref()),
        str_col("decision", &|r| Some(r.decision)),
        str_col("scac", &|r| r.scac.as_deref()),
        Column::new(
            "confidence".into(),
            index
                .iter()
                .map(|i| at(i).confidence)
                .collect::<Vec<Option<f64>>>(),
        ),
        str_col("candidates", &|r| Some(r.candidates.as_str())),
    ];
    DataFrame::new(n, columns)
}

/// Scores a slice of numbers without building a frame: the normalized number's decision and
/// top SCAC per input, in order. For callers that stream (the `teu infer` command) and the
/// benchmark; [`infer_column`] is the frame path.
pub fn infer_all<'a>(
    scorer: &'a Scorer,
    numbers: &[&str],
    history: &'a History,
) -> Vec<super::Scored<'a>> {
    let mut buf = String::new();
    numbers
        .iter()
        .map(|n| scorer.score(n, history, &mut buf))
        .collect()
}

/// [`infer_column`] over a slice of numbers (builds the string column first), for callers that
/// do not use polars themselves.
///
/// # Errors
///
/// As [`infer_column`] (never for a string column).
pub fn infer_strs(scorer: &Scorer, numbers: &[&str], history: &History) -> PolarsResult<DataFrame> {
    let column = Column::new("number".into(), numbers);
    infer_column(scorer, &column, history)
}

/// Full inference results ([`super::Inference`], what `infer_number` answers) for a list of
/// numbers, one per input, in input order: the batch path for APIs (GraphQL `inferNumbers`).
/// Like [`infer_column`], each distinct input is scored once and a malformed input gets its
/// own result with `is_valid` false and a `reason`, never an error.
pub fn infer_many(scorer: &Scorer, numbers: &[&str], history: &History) -> Vec<super::Inference> {
    let mut distinct: HashMap<&str, usize> = HashMap::new();
    let mut results: Vec<super::Inference> = Vec::with_capacity(numbers.len());
    let mut buf = String::new();
    for &raw in numbers {
        match distinct.get(raw) {
            Some(&i) => {
                let again = results[i].clone();
                results.push(again);
            }
            None => {
                let scored = scorer.score(raw, history, &mut buf);
                distinct.insert(raw, results.len());
                results.push(scorer.to_inference(buf.clone(), &scored));
            }
        }
    }
    results
}
