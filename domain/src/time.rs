//! Timestamps of the model in JSON: written as chrono writes a `DateTime<Utc>` (RFC 3339, UTC,
//! `Z`, a fraction only when there is one), read back by a direct parse of that form before
//! chrono's general RFC 3339 parser.
//!
//! A stored container body holds some fifteen timestamps, a shipment ten, and a page of 30
//! containers with their shipments reads about 600 of them; chrono's parser (which accepts any
//! offset, lower-case separators and the rest of RFC 3339) took some 1,350 instructions for
//! each, a tenth of a `/v2` page (docs/NOTES.md, twenty-fifth session). What chrono itself
//! writes for UTC is one fixed shape, `YYYY-MM-DDTHH:MM:SS[.f…]Z` with one to nine fraction
//! digits; that shape is read here field by field, and anything else (an offset, a leap
//! second, text written by hand) goes to chrono as before, so what is accepted and what it
//! means are chrono's.
//!
//! [`v2_text`] writes the other form both APIs serve (whole seconds, milliseconds when there
//! are any), digit by digit.
//!
//! Use as `#[serde(with = "crate::time::utc")]` on a `DateTime<Utc>` and
//! `#[serde(default, with = "crate::time::opt_utc")]` on an `Option<DateTime<Utc>>` (`default`:
//! a missing field reads as `None`, as serde's derive does for `Option` without `with`).

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, SecondsFormat, Timelike, Utc};

/// `s` when it is exactly `YYYY-MM-DDTHH:MM:SS` with an optional `.` and one to nine digits,
/// then `Z`, and names a valid date and time (seconds 00–59); `None` for anything else.
pub fn parse_utc_z(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[b.len() - 1] != b'Z'
    {
        return None;
    }
    let number = |digits: &[u8]| -> Option<u32> {
        digits.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let nanos = match &b[19..b.len() - 1] {
        [] => 0,
        [b'.', fraction @ ..] if (1..=9).contains(&fraction.len()) => {
            number(fraction)? * 10u32.pow(9 - fraction.len() as u32)
        }
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(number(&b[0..4])?).ok()?,
        number(&b[5..7])?,
        number(&b[8..10])?,
    )?;
    let time = NaiveTime::from_hms_nano_opt(
        number(&b[11..13])?,
        number(&b[14..16])?,
        number(&b[17..19])?,
        nanos,
    )?;
    Some(date.and_time(time).and_utc())
}

/// `s` as chrono's `Deserialize` for `DateTime<Utc>` reads it (any RFC 3339 offset, converted
/// to UTC), through [`parse_utc_z`] first.
///
/// # Errors
/// chrono's parse error when `s` is not an RFC 3339 timestamp.
pub fn parse_rfc3339_utc(s: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    match parse_utc_z(s) {
        Some(t) => Ok(t),
        None => s
            .parse::<DateTime<FixedOffset>>()
            .map(|t| t.with_timezone(&Utc)),
    }
}

/// The text both APIs serve for instant `t` (spec/interface.md, timestamps; the GraphQL
/// `DateTime` scalar): RFC 3339 in UTC with `Z`, whole seconds, plus milliseconds only when
/// they are not zero, finer digits dropped (`2025-01-23T01:23:45Z`,
/// `2025-01-23T01:23:45.120Z`). The text of chrono's `to_rfc3339_opts(Secs | Millis, true)`,
/// written digit by digit for years 0 to 9999 (a GraphQL page of 30 containers with their
/// shipments writes about 420; chrono's formatter took about 440 instructions for each, and
/// the page went from 11.45 to 11.38 M instructions: docs/NOTES.md, forty-first session), and
/// by chrono for other years and leap seconds.
pub fn v2_text(t: &DateTime<Utc>) -> String {
    with_v2_text(t, str::to_string)
}

/// [`v2_text`] passed to `f` without a `String` of its own (written on the stack for years 0
/// to 9999): what a serializer that copies the text anyway takes, a page of 30 containers with
/// their shipments writing some 700 timestamps.
pub fn with_v2_text<R>(t: &DateTime<Utc>, f: impl FnOnce(&str) -> R) -> R {
    let millis = t.nanosecond() / 1_000_000;
    let (digits, format) = if millis == 0 {
        (0, SecondsFormat::Secs)
    } else {
        (3, SecondsFormat::Millis)
    };
    match Written::utc(t, digits) {
        Some(text) => f(text.as_str()),
        None => f(&t.to_rfc3339_opts(format, true)),
    }
}

/// The text chrono's `Serialize` writes for `t` (RFC 3339 with `Z`, and 3, 6 or 9 fraction
/// digits only when the milliseconds, microseconds or nanoseconds need them: chrono's
/// `SecondsFormat::AutoSi`), passed to `f`; written on the stack for years 0 to 9999, by
/// chrono for other years and leap seconds.
fn with_chrono_text<R>(t: &DateTime<Utc>, f: impl FnOnce(&str) -> R) -> R {
    let nanos = t.nanosecond();
    let digits = if nanos == 0 {
        0
    } else if nanos % 1_000_000 == 0 {
        3
    } else if nanos % 1_000 == 0 {
        6
    } else {
        9
    };
    match Written::utc(t, digits) {
        Some(text) => f(text.as_str()),
        None => f(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true)),
    }
}

/// A UTC time's RFC 3339 text, `YYYY-MM-DDTHH:MM:SS[.f…]Z`, written digit by digit into a
/// buffer of its own.
struct Written {
    bytes: [u8; 30],
    len: usize,
}

impl Written {
    /// `t` with the first `digits` (0 to 9) digits of its fraction of a second (truncated, as
    /// chrono truncates); `None` for a year outside 0 to 9999 or a leap second, which chrono
    /// writes otherwise.
    fn utc(t: &DateTime<Utc>, digits: usize) -> Option<Self> {
        // The fields of the UTC date and time, read once (each of `DateTime`'s own accessors
        // adds the offset to its instant again).
        let t_utc = t.naive_utc();
        let nanos = t_utc.nanosecond();
        let year = t_utc.year();
        if nanos >= 1_000_000_000 || !(0..=9999).contains(&year) || digits > 9 {
            return None;
        }
        let two = |n: u32| [b'0' + (n / 10 % 10) as u8, b'0' + (n % 10) as u8];
        let year = year.unsigned_abs();
        let [y1, y2] = two(year / 100);
        let [y3, y4] = two(year);
        let [mo1, mo2] = two(t_utc.month());
        let [d1, d2] = two(t_utc.day());
        let [h1, h2] = two(t_utc.hour());
        let [mi1, mi2] = two(t_utc.minute());
        let [s1, s2] = two(t_utc.second());
        let mut bytes = [0u8; 30];
        bytes[..19].copy_from_slice(&[
            y1, y2, y3, y4, b'-', mo1, mo2, b'-', d1, d2, b'T', h1, h2, b':', mi1, mi2, b':', s1,
            s2,
        ]);
        let mut len = 19;
        if digits > 0 {
            bytes[len] = b'.';
            let mut fraction = nanos;
            for at in (0..9).rev() {
                if at < digits {
                    bytes[len + 1 + at] = b'0' + (fraction % 10) as u8;
                }
                fraction /= 10;
            }
            len += 1 + digits;
        }
        bytes[len] = b'Z';
        Some(Written {
            bytes,
            len: len + 1,
        })
    }

    fn as_str(&self) -> &str {
        // ASCII digits and separators only.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

struct Visitor;

impl serde::de::Visitor<'_> for Visitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an RFC 3339 timestamp")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        parse_rfc3339_utc(v).map_err(E::custom)
    }
}

/// `#[serde(with)]` for `DateTime<Utc>`: see the module documentation.
pub mod utc {
    use chrono::{DateTime, Utc};
    use serde::{Deserializer, Serializer};

    /// Writes `t` as chrono does, as one string (chrono's own `Serialize` hands its text
    /// to the serializer character by character, which serde_json escapes one at a time).
    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        super::with_chrono_text(t, |text| s.serialize_str(text))
    }

    /// Reads an RFC 3339 string ([`super::parse_rfc3339_utc`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        d.deserialize_str(super::Visitor)
    }
}

/// `#[serde(default, with)]` for `Option<DateTime<Utc>>`: `null` or [`utc`].
pub mod opt_utc {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `null` or `t` as chrono does ([`super::utc::serialize`]).
    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => super::utc::serialize(t, s),
            None => s.serialize_none(),
        }
    }

    /// Reads `null` or an RFC 3339 string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        #[derive(Deserialize)]
        struct Timestamp(#[serde(with = "super::utc")] DateTime<Utc>);
        Ok(Option::<Timestamp>::deserialize(d)?.map(|t| t.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    proptest! {
        /// Every UTC time chrono writes, at every precision it writes, reads back through the
        /// direct parse as chrono reads it.
        #[test]
        fn the_direct_parse_reads_what_chrono_writes(
            secs in -62_135_596_800i64..253_402_300_799,
            nanos in 0u32..1_000_000_000,
        ) {
            let t = Utc.timestamp_opt(secs, nanos).single().unwrap();
            let written = serde_json::to_string(&t).unwrap();
            let text: String = serde_json::from_str(&written).unwrap();
            prop_assert_eq!(parse_utc_z(&text), Some(t));
            for format in [SecondsFormat::Secs, SecondsFormat::Millis, SecondsFormat::Micros,
                           SecondsFormat::Nanos, SecondsFormat::AutoSi] {
                let text = t.to_rfc3339_opts(format, true);
                let chrono: DateTime<Utc> = text.parse::<DateTime<FixedOffset>>().unwrap().into();
                prop_assert_eq!(parse_utc_z(&text), Some(chrono), "{}", text);
            }
        }

        /// `v2_text` writes what chrono writes at whole seconds or milliseconds, and `utc` and
        /// `opt_utc` what chrono's own `Serialize` writes at every precision, over every year
        /// chrono writes with four digits and beyond, leap seconds included.
        #[test]
        fn the_writers_write_what_chrono_writes(
            secs in -62_167_219_200i64..253_402_300_800,
            far in -8_000_000_000_000i64..8_000_000_000_000,
            nanos in prop_oneof![Just(0u32), 0u32..1_000_000_000, 1_000_000_000u32..2_000_000_000],
            millis in 0u32..1000,
            micros in 0u32..1_000_000,
        ) {
            #[derive(serde::Serialize)]
            struct Row {
                #[serde(with = "utc")]
                at: DateTime<Utc>,
                #[serde(with = "opt_utc")]
                maybe: Option<DateTime<Utc>>,
            }
            for secs in [secs, far] {
                for nanos in [nanos, millis * 1_000_000, micros * 1_000] {
                    let Some(t) = Utc.timestamp_opt(secs, nanos).single() else { continue };
                    let v2 = if t.nanosecond() / 1_000_000 == 0 {
                        t.to_rfc3339_opts(SecondsFormat::Secs, true)
                    } else {
                        t.to_rfc3339_opts(SecondsFormat::Millis, true)
                    };
                    prop_assert_eq!(v2_text(&t), v2);
                    let chrono = serde_json::to_string(&t).unwrap();
                    let ours = serde_json::to_string(&Row { at: t, maybe: Some(t) }).unwrap();
                    prop_assert_eq!(ours, format!(r#"{{"at":{chrono},"maybe":{chrono}}}"#));
                }
            }
        }

        /// Any text reads as chrono reads it: the same time, or an error where chrono errs.
        #[test]
        fn any_text_reads_as_chrono_reads_it(text in "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,10})?(Z|z|[+-][0-9]{2}:[0-9]{2})?") {
            let chrono = text.parse::<DateTime<FixedOffset>>().map(|t| t.with_timezone(&Utc));
            prop_assert_eq!(parse_rfc3339_utc(&text).ok(), chrono.ok());
        }
    }

    #[test]
    fn v2_text_of_hand_written_instants() {
        let at = |secs: i64, nanos: u32| Utc.timestamp_opt(secs, nanos).single().unwrap();
        for (t, text) in [
            (at(1_737_595_425, 0), "2025-01-23T01:23:45Z"),
            (at(1_737_595_425, 120_000_000), "2025-01-23T01:23:45.120Z"),
            (at(1_737_595_425, 123_456_789), "2025-01-23T01:23:45.123Z"),
            (at(1_737_595_425, 400_000), "2025-01-23T01:23:45Z"),
            (at(0, 1_000_000), "1970-01-01T00:00:00.001Z"),
            (at(-62_167_219_200, 0), "0000-01-01T00:00:00Z"),
            (at(253_402_300_799, 999_000_000), "9999-12-31T23:59:59.999Z"),
            (at(253_402_300_800, 0), "+10000-01-01T00:00:00Z"),
            (at(1_483_228_799, 1_500_000_000), "2016-12-31T23:59:60.500Z"),
        ] {
            assert_eq!(v2_text(&t), text);
        }
    }

    #[test]
    fn other_shapes_go_to_chrono() {
        for (text, expected) in [
            ("2021-01-09T13:12:56+02:00", Some("2021-01-09T11:12:56Z")),
            ("2021-01-09t13:12:56z", Some("2021-01-09T13:12:56Z")),
            ("2016-12-31T23:59:60Z", Some("2016-12-31T23:59:60Z")),
            ("2021-02-30T13:12:56Z", None),
            ("2021-01-09T13:12:56.Z", None),
            ("2021-01-09T13:12:56", None),
            ("", None),
        ] {
            assert_eq!(parse_utc_z(text), None, "{text}: not the direct shape");
            let read = parse_rfc3339_utc(text).ok();
            let expected = expected.map(|e| {
                e.parse::<DateTime<FixedOffset>>()
                    .unwrap()
                    .with_timezone(&Utc)
            });
            assert_eq!(read, expected, "{text}");
        }
    }

    #[test]
    fn fields_read_null_missing_and_timestamps() {
        #[derive(serde::Deserialize, serde::Serialize, Debug, PartialEq)]
        struct Row {
            #[serde(with = "utc")]
            at: DateTime<Utc>,
            #[serde(default, with = "opt_utc")]
            maybe: Option<DateTime<Utc>>,
        }
        let at = Utc.with_ymd_and_hms(2026, 9, 26, 1, 18, 0).unwrap();
        let row: Row = serde_json::from_str(r#"{"at":"2026-09-26T01:18:00Z"}"#).unwrap();
        assert_eq!(row, Row { at, maybe: None });
        let row: Row = serde_json::from_str(
            r#"{"at":"2026-09-26T01:18:00Z","maybe":"2026-09-26T03:18:00.250+02:00"}"#,
        )
        .unwrap();
        assert_eq!(row.maybe, Some(at + chrono::Duration::milliseconds(250)));
        let written = serde_json::to_string(&row).unwrap();
        assert_eq!(
            written,
            r#"{"at":"2026-09-26T01:18:00Z","maybe":"2026-09-26T01:18:00.250Z"}"#
        );
        let row = Row {
            at: Utc.timestamp_opt(1_737_595_425, 123_456_000).unwrap(),
            maybe: Some(Utc.timestamp_opt(1_483_228_799, 1_000_000_007).unwrap()),
        };
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"at":"2025-01-23T01:23:45.123456Z","maybe":"2016-12-31T23:59:60.000000007Z"}"#
        );
        assert!(serde_json::from_str::<Row>(r#"{"at":"yesterday"}"#).is_err());
        assert!(serde_json::from_str::<Row>(r#"{"at":null}"#).is_err());
    }
}
