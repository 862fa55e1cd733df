//! The `DateTime` scalar: instants in UTC written as `/v2` writes them.

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};
use chrono::Utc;

/// The `DateTime` scalar: an instant in UTC, written as RFC 3339 with a `Z` suffix, whole
/// seconds plus milliseconds when not zero (`2025-01-23T01:23:45Z`, `2025-01-23T01:23:45.120Z`):
/// the same text as the `/v2` API. Inputs may carry any offset; they are converted to UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime(pub chrono::DateTime<Utc>);

/// An instant in UTC: RFC 3339 with `Z`, whole seconds plus milliseconds when not zero
/// (`2025-01-23T01:23:45Z`, `2025-01-23T01:23:45.120Z`), the same text as in `/v2`.
#[Scalar(
    name = "DateTime",
    specified_by_url = "https://datatracker.ietf.org/doc/html/rfc3339"
)]
impl ScalarType for DateTime {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => Ok(DateTime(
                chrono::DateTime::parse_from_rfc3339(s)?.with_timezone(&Utc),
            )),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(teu_domain::time::v2_text(&self.0))
    }
}

pub(crate) fn dt(t: Option<chrono::DateTime<Utc>>) -> Option<DateTime> {
    t.map(DateTime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_written_like_v2() {
        let t = |s: &str| s.parse::<chrono::DateTime<Utc>>().unwrap();
        let text = |t| match DateTime(t).to_value() {
            Value::String(s) => s,
            other => panic!("a DateTime is a string, got {other:?}"),
        };
        assert_eq!(text(t("2025-01-23T01:23:45Z")), "2025-01-23T01:23:45Z");
        assert_eq!(
            text(t("2025-01-23T01:23:45.12Z")),
            "2025-01-23T01:23:45.120Z"
        );
        assert_eq!(
            text(t("2025-01-23T02:23:45.123456+01:00")),
            "2025-01-23T01:23:45.123Z"
        );
        assert_eq!(text(t("2025-01-23T01:23:45.0004Z")), "2025-01-23T01:23:45Z");
        let parsed =
            <DateTime as ScalarType>::parse(Value::String("2025-01-23T02:23:45+01:00".into()));
        assert_eq!(parsed.unwrap().0, t("2025-01-23T01:23:45Z"));
    }
}
