//! The codes of the trade, parsed once where they enter teu (feed readers, API inputs) and
//! carried typed everywhere after: the model, the store and both APIs hold these types, so no
//! layer parses a code again.
//!
//! | type | what | rule (source) |
//! |---|---|---|
//! | [`ContainerNumber`] | equipment reference | upper case without spaces, dashes, dots or slashes; 1 to 15 characters; a number shaped like ISO 6346 (4 letters, 7 digits) must pass its check digit (ISO 6346:1995 Annex A, [`crate::iso6346`]) |
//! | [`Scac`] | Standard Carrier Alpha Code | 2 to 4 characters A–Z or 0–9, at least one a letter, upper case (NMFTA; it gives some foreign carriers codes that start with digits: Pan Continental `15AC`, Heung-A `11QU`) |
//! | [`UnLocode`] | UN/LOCODE | ISO 3166-1 alpha-2 country and 3 characters from `[A-Z2-9]` (UNECE Recommendation 16) |
//! | [`Imo`] | IMO ship identification number | 7 digits; the check digit is not enforced, since real feeds (the DCSA 3.0 sample among them) carry numbers that fail it ([`Imo::check_digit_ok`] tells) |
//! | [`Mmsi`] | Maritime Mobile Service Identity | 9 digits (ITU-R M.585) |
//!
//! Each type is a `String` inside: [`std::ops::Deref`] to `str`, `Display`, `FromStr`,
//! comparisons with `str`. Serde writes the plain string and reads it through the same parse,
//! so a stored or received value that breaks the rule is an error, never a silently wrong
//! code. With the `graphql` feature each is an async-graphql scalar of the same name whose
//! input is checked by the same parse.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::iso6346::{self, Iso6346Error};

/// Why a code was refused; the text says which code, the value given and the rule broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// A container number that is empty or longer than 15 characters after normalization.
    #[error("equipment reference {0:?} must be 1 to 15 characters")]
    ContainerNumberLength(String),
    /// An ISO 6346 shaped container number that fails its check.
    #[error(transparent)]
    Iso6346(#[from] Iso6346Error),
    /// A SCAC that is not 2 to 4 letters or digits with at least one letter.
    #[error("SCAC {0:?} must be 2 to 4 letters A-Z or digits, at least one a letter")]
    Scac(String),
    /// A UN/LOCODE that is not 5 characters.
    #[error("UN/LOCODE {0:?} must be 5 characters")]
    LocodeLength(String),
    /// A UN/LOCODE with characters outside ASCII.
    #[error("UN/LOCODE {0:?} must be ASCII letters A-Z and digits 2-9")]
    LocodeAscii(String),
    /// A UN/LOCODE whose first two letters are not an ISO 3166-1 country.
    #[error("UN/LOCODE {0:?}: {country:?} is not an ISO 3166 country code", country = .0.get(..2).unwrap_or_default())]
    LocodeCountry(String),
    /// A UN/LOCODE whose location part has characters outside `[A-Z2-9]`.
    #[error("UN/LOCODE {0:?}: location part must be letters A-Z or digits 2-9")]
    LocodeLocation(String),
    /// An IMO number that is not 7 digits.
    #[error("IMO number {0:?} must be 7 digits")]
    Imo(String),
    /// An MMSI that is not 9 digits.
    #[error("MMSI {0:?} must be 9 digits")]
    Mmsi(String),
}

/// The common surface of a code type: a checked `String` inside.
macro_rules! code_type {
    ($name:ident, $graphql:literal, $url:literal) => {
        impl $name {
            /// The code as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The code as an owned `String`.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = CodeError;
            fn from_str(s: &str) -> Result<Self, CodeError> {
                Self::parse(s)
            }
        }

        impl TryFrom<String> for $name {
            type Error = CodeError;
            fn try_from(s: String) -> Result<Self, CodeError> {
                Self::parse(&s)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = CodeError;
            fn try_from(s: &str) -> Result<Self, CodeError> {
                Self::parse(s)
            }
        }

        impl From<$name> for String {
            fn from(c: $name) -> String {
                c.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                Self::parse(&s).map_err(serde::de::Error::custom)
            }
        }

        #[cfg(feature = "graphql")]
        #[async_graphql::Scalar(name = $graphql, specified_by_url = $url)]
        impl async_graphql::ScalarType for $name {
            fn parse(value: async_graphql::Value) -> async_graphql::InputValueResult<Self> {
                match &value {
                    async_graphql::Value::String(s) => {
                        $name::parse(s).map_err(async_graphql::InputValueError::custom)
                    }
                    _ => Err(async_graphql::InputValueError::expected_type(value)),
                }
            }

            fn is_valid(value: &async_graphql::Value) -> bool {
                matches!(value, async_graphql::Value::String(_))
            }

            fn to_value(&self) -> async_graphql::Value {
                async_graphql::Value::String(self.0.clone())
            }
        }
    };
}

/// A container number (equipment reference) as teu keeps it: upper case, without spaces,
/// dashes, dots or slashes, 1 to 15 characters; when it is shaped like ISO 6346 (owner code,
/// category, 6-digit serial, check digit) the check digit is right.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContainerNumber(String);

impl ContainerNumber {
    /// Normalizes `raw` ([`iso6346::normalize`]: `"msku 123456-7"` → `"MSKU1234567"`) and checks
    /// it (module table).
    ///
    /// # Errors
    ///
    /// [`CodeError::ContainerNumberLength`] for an empty or over-long reference,
    /// [`CodeError::Iso6346`] for an ISO 6346 shaped number whose check digit is wrong.
    pub fn parse(raw: &str) -> Result<Self, CodeError> {
        let number = iso6346::normalize(raw);
        if number.is_empty() || number.len() > 15 {
            return Err(CodeError::ContainerNumberLength(raw.to_string()));
        }
        if iso6346::looks_like_iso6346(&number) {
            iso6346::validate(&number)?;
        }
        Ok(Self(number))
    }

    /// Whether the number is a valid ISO 6346 container number (not only an equipment
    /// reference of another shape).
    pub fn is_iso6346(&self) -> bool {
        iso6346::validate(&self.0).is_ok()
    }

    /// The BIC owner code with its category identifier (`MSKU` of `MSKU1234567`), when the
    /// number is ISO 6346 shaped.
    pub fn owner_prefix(&self) -> Option<&str> {
        iso6346::looks_like_iso6346(&self.0).then(|| &self.0[..4])
    }
}

code_type!(
    ContainerNumber,
    "ContainerNumber",
    "https://www.bic-code.org/iso-6346/"
);

/// A Standard Carrier Alpha Code: 2 to 4 characters A–Z or 0–9, at least one a letter, upper
/// case (NMFTA; codes it gives foreign carriers may start with digits, e.g. Pan Continental
/// `15AC`, Heung-A `11QU`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Scac(String);

impl Scac {
    /// Trims `raw`, upper-cases it and checks it is 2 to 4 letters or digits with at least one
    /// letter.
    ///
    /// # Errors
    ///
    /// [`CodeError::Scac`] otherwise.
    pub fn parse(raw: &str) -> Result<Self, CodeError> {
        let code = raw.trim().to_ascii_uppercase();
        if (2..=4).contains(&code.len())
            && code
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            && code.bytes().any(|b| b.is_ascii_uppercase())
        {
            Ok(Self(code))
        } else {
            Err(CodeError::Scac(raw.to_string()))
        }
    }
}

code_type!(Scac, "Scac", "https://nmfta.org/scac/");

/// A UN/LOCODE: ISO 3166-1 alpha-2 country and 3 characters from `[A-Z2-9]`, upper case
/// (UNECE Recommendation 16).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnLocode(String);

impl UnLocode {
    /// Upper-cases `raw` and checks it (module table). A space between country and location
    /// (`"NL RTM"`, the printed form) is accepted and removed.
    ///
    /// # Errors
    ///
    /// [`CodeError::LocodeLength`], [`CodeError::LocodeAscii`], [`CodeError::LocodeCountry`]
    /// or [`CodeError::LocodeLocation`], naming the rule broken.
    pub fn parse(raw: &str) -> Result<Self, CodeError> {
        let mut code = raw.to_ascii_uppercase();
        if code.len() == 6 && code.as_bytes()[2] == b' ' {
            code.remove(2);
        }
        let b = code.as_bytes();
        if b.len() != 5 {
            return Err(CodeError::LocodeLength(code));
        }
        // Byte length 5 is not 5 ASCII characters: `Aé..` would split a character at byte 2.
        if !b.is_ascii() {
            return Err(CodeError::LocodeAscii(code));
        }
        if isocountry::CountryCode::for_alpha2(&code[..2]).is_err() {
            return Err(CodeError::LocodeCountry(code));
        }
        if !b[2..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || (b'2'..=b'9').contains(c))
        {
            return Err(CodeError::LocodeLocation(code));
        }
        Ok(Self(code))
    }

    /// The ISO 3166-1 alpha-2 country (`NL` of `NLRTM`).
    pub fn country(&self) -> &str {
        &self.0[..2]
    }
}

code_type!(
    UnLocode,
    "UnLocode",
    "https://unece.org/trade/cefact/unlocode-code-list-country-and-territory"
);

/// An IMO ship identification number: 7 digits (IMO Resolution A.1117(30)).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Imo(String);

impl Imo {
    /// Checks `raw` is 7 digits; an `IMO` prefix (`IMO9321483`, as AIS and some carriers write
    /// it) is removed first. The check digit is not enforced (module table).
    ///
    /// # Errors
    ///
    /// [`CodeError::Imo`] otherwise.
    pub fn parse(raw: &str) -> Result<Self, CodeError> {
        let digits = raw
            .strip_prefix("IMO")
            .or_else(|| raw.strip_prefix("imo"))
            .unwrap_or(raw)
            .trim_start();
        if digits.len() == 7 && digits.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(digits.to_string()))
        } else {
            Err(CodeError::Imo(raw.to_string()))
        }
    }

    /// The IMO number of a 7-digit integer (AIS reports carry it as a number), `None` for 0 or
    /// a number of more than 7 digits.
    pub fn from_number(n: u32) -> Option<Self> {
        (n != 0 && n <= 9_999_999).then(|| Self(format!("{n:07}")))
    }

    /// Whether the seventh digit is the check digit of the first six (weights 7 to 2, sum
    /// modulo 10: `9321483`: 9·7 + 3·6 + 2·5 + 1·4 + 4·3 + 8·2 = 123 → 3).
    pub fn check_digit_ok(&self) -> bool {
        let d: Vec<u32> = self.0.bytes().map(|b| u32::from(b - b'0')).collect();
        let sum: u32 = d[..6].iter().zip((2..=7).rev()).map(|(d, w)| d * w).sum();
        sum % 10 == d[6]
    }
}

code_type!(
    Imo,
    "Imo",
    "https://www.imo.org/en/OurWork/MSAS/Pages/IMO-identification-number-scheme.aspx"
);

/// A Maritime Mobile Service Identity: 9 digits (ITU-R M.585).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mmsi(String);

impl Mmsi {
    /// Checks `raw` (trimmed) is 9 digits.
    ///
    /// # Errors
    ///
    /// [`CodeError::Mmsi`] otherwise.
    pub fn parse(raw: &str) -> Result<Self, CodeError> {
        let digits = raw.trim();
        if digits.len() == 9 && digits.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(digits.to_string()))
        } else {
            Err(CodeError::Mmsi(raw.to_string()))
        }
    }

    /// The MMSI of an integer of at most 9 digits (AIS files carry it as a number; group and
    /// coast-station MMSIs start with zeros, kept here), `None` for a longer number. Like
    /// [`Mmsi::parse`], it accepts every 9-digit form, `000000000` included.
    pub fn from_number(n: u32) -> Option<Self> {
        (n <= 999_999_999).then(|| Self(format!("{n:09}")))
    }
}

code_type!(Mmsi, "Mmsi", "https://www.itu.int/rec/R-REC-M.585/en");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_numbers_follow_iso_6346_where_they_look_like_it() {
        // CSQU3054383: the worked example of ISO 6346 Annex A (check digit 3).
        assert_eq!(
            ContainerNumber::parse(" csqu 305438-3 ").unwrap(),
            "CSQU3054383"
        );
        assert!(ContainerNumber::parse("CSQU3054384").is_err());
        // Not ISO 6346 shaped: an equipment reference of another kind is kept as given.
        assert_eq!(ContainerNumber::parse("ABC123").unwrap(), "ABC123");
        assert!(ContainerNumber::parse("  ").is_err());
        assert!(ContainerNumber::parse("A234567890123456").is_err());
        let n = ContainerNumber::parse("CSQU3054383").unwrap();
        assert!(n.is_iso6346());
        assert_eq!(n.owner_prefix(), Some("CSQU"));
    }

    #[test]
    fn scacs_are_two_to_four_letters_or_digits() {
        assert_eq!(Scac::parse(" maeu ").unwrap(), "MAEU");
        assert_eq!(Scac::parse("ZM").unwrap(), "ZM");
        // NMFTA codes of foreign carriers (Pan Continental, Heung-A).
        assert_eq!(Scac::parse("15AC").unwrap(), "15AC");
        assert_eq!(Scac::parse("11qu").unwrap(), "11QU");
        for bad in ["M", "MAEUX", "1234", "MA-U", "MÄU", ""] {
            assert!(Scac::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn locodes_need_a_country_and_a_location_from_a_to_z_and_2_to_9() {
        assert_eq!(UnLocode::parse("nlrtm").unwrap(), "NLRTM");
        assert_eq!(UnLocode::parse("NL RTM").unwrap(), "NLRTM");
        assert_eq!(UnLocode::parse("NLRTM").unwrap().country(), "NL");
        assert!(UnLocode::parse("XYABC")
            .unwrap_err()
            .to_string()
            .contains("ISO 3166"));
        assert!(UnLocode::parse("NLRT1").is_err());
        assert!(UnLocode::parse("NLRT").is_err());
        assert!(UnLocode::parse("Aé.").is_err());
    }

    #[test]
    fn imo_numbers_are_seven_digits_and_know_their_check_digit() {
        let imo = Imo::parse("IMO9321483").unwrap();
        assert_eq!(imo, "9321483");
        assert!(imo.check_digit_ok());
        // Kept although the check digit is wrong (module table), but it says so.
        assert!(!Imo::parse("9321484").unwrap().check_digit_ok());
        assert!(Imo::parse("932148").is_err());
        assert!(Imo::parse("93214A3").is_err());
        assert_eq!(Imo::from_number(9321483).unwrap(), "9321483");
        assert_eq!(Imo::from_number(12345).unwrap(), "0012345");
        assert!(Imo::from_number(0).is_none());
    }

    #[test]
    fn mmsis_are_nine_digits() {
        assert_eq!(Mmsi::parse("219018671").unwrap(), "219018671");
        assert!(Mmsi::parse("21901867").is_err());
        assert_eq!(Mmsi::from_number(219_018_671).unwrap(), "219018671");
        assert_eq!(Mmsi::from_number(2_190_186).unwrap(), "002190186");
        assert_eq!(
            Mmsi::from_number(0),
            Some(Mmsi::parse("000000000").unwrap())
        );
        assert!(Mmsi::from_number(1_000_000_000).is_none());
    }

    #[test]
    fn serde_writes_the_string_and_reads_through_the_parse() {
        let n = ContainerNumber::parse("CSQU3054383").unwrap();
        assert_eq!(serde_json::to_string(&n).unwrap(), "\"CSQU3054383\"");
        let back: ContainerNumber = serde_json::from_str("\"CSQU3054383\"").unwrap();
        assert_eq!(back, n);
        let err = serde_json::from_str::<ContainerNumber>("\"CSQU3054384\"").unwrap_err();
        assert!(err.to_string().contains("check digit"), "{err}");
        assert!(serde_json::from_str::<UnLocode>("\"NLRT1\"").is_err());
    }
}

#[cfg(all(test, feature = "graphql"))]
mod graphql_tests {
    use super::*;
    use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};

    struct Query;

    #[Object]
    impl Query {
        /// Echoes its checked arguments.
        async fn echo(&self, number: ContainerNumber, port: UnLocode) -> String {
            format!("{number} {port}")
        }
    }

    /// Runs a future that never waits on I/O (an in-memory GraphQL execution) to completion.
    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn graphql_inputs_are_checked_by_the_same_parse() {
        let schema = Schema::new(Query, EmptyMutation, EmptySubscription);
        let sdl = schema.sdl();
        assert!(sdl.contains("scalar ContainerNumber"), "{sdl}");
        assert!(sdl.contains("scalar UnLocode"), "{sdl}");
        let ok = block_on(schema.execute(r#"{ echo(number: "csqu 305438-3", port: "nlrtm") }"#));
        assert!(ok.errors.is_empty(), "{:?}", ok.errors);
        assert_eq!(
            ok.data.into_json().unwrap(),
            serde_json::json!({"echo": "CSQU3054383 NLRTM"})
        );
        let bad = block_on(schema.execute(r#"{ echo(number: "CSQU3054384", port: "NLRTM") }"#));
        assert_eq!(bad.errors.len(), 1);
        assert!(
            bad.errors[0].message.contains("check digit"),
            "{}",
            bad.errors[0].message
        );
    }
}
