//! ISO 6346 container identification: owner code (3 letters), category identifier (U, J or Z),
//! 6-digit serial number and check digit.
//!
//! Check digit (ISO 6346:1995 Annex A): letters map to A=10, B=12, … skipping multiples of 11;
//! each of the first ten characters is weighted by 2^position; the check digit is the sum
//! modulo 11, with 10 written as 0. Example: `CSQU305438` → 3.

/// Upper-cases `raw` and removes spaces, dashes, dots and slashes: `"msku 123456-7"` → `"MSKU1234567"`.
/// Tabs are removed too; other characters are upper-cased by Unicode's rules (`char::to_uppercase`).
pub fn normalize(raw: &str) -> String {
    let removed = |c: char| matches!(c, ' ' | '-' | '.' | '/' | '\t');
    if raw.is_ascii() {
        // ASCII (every feed's container numbers): upper-casing is byte for byte, so the
        // number is built without Unicode's case tables.
        let mut number = String::with_capacity(raw.len());
        number.extend(
            raw.chars()
                .filter(|&c| !removed(c))
                .map(|c| c.to_ascii_uppercase()),
        );
        return number;
    }
    raw.chars()
        .filter(|&c| !removed(c))
        .flat_map(char::to_uppercase)
        .collect()
}

/// The first `N` characters of `s`, or `None` when it has another number of characters.
fn exactly<const N: usize>(s: &str) -> Option<[char; N]> {
    let mut chars = ['\0'; N];
    let mut rest = s.chars();
    for slot in &mut chars {
        *slot = rest.next()?;
    }
    rest.next().is_none().then_some(chars)
}

/// Letter values A..Z (ISO 6346 Annex A): 10 upwards, skipping 11, 22 and 33.
const LETTER_VALUES: [u32; 26] = [
    10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 34, 35, 36,
    37, 38,
];

/// Numeric value of one character of a container number (ISO 6346 Annex A), `None` for a
/// character that may not appear.
fn char_value(c: char) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        'A'..='Z' => Some(LETTER_VALUES[(c as u8 - b'A') as usize]),
        _ => None,
    }
}

/// The check digit of the first ten characters of `number` (owner code, category, serial), or
/// `None` when they are not 4 letters followed by 6 digits.
pub fn check_digit(number: &str) -> Option<u32> {
    let mut chars = ['\0'; 10];
    let mut taken = 0;
    for (slot, c) in chars.iter_mut().zip(number.chars()) {
        *slot = c;
        taken += 1;
    }
    if taken != 10
        || !chars[..4].iter().all(|c| c.is_ascii_uppercase())
        || !chars[4..].iter().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let sum: u32 = chars
        .iter()
        .enumerate()
        .map(|(i, c)| char_value(*c).unwrap_or(0) << i)
        .sum();
    Some(sum % 11 % 10)
}

/// Why a container number is not a valid ISO 6346 identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Iso6346Error {
    #[error("container number {0:?} must be 11 characters (3-letter owner code, category U/J/Z, 6-digit serial, check digit)")]
    Length(String),
    #[error("container number {0:?}: owner code must be 3 letters")]
    OwnerCode(String),
    #[error("container number {0:?}: category identifier must be U, J or Z")]
    Category(String),
    #[error("container number {0:?}: serial number and check digit must be 7 digits")]
    Serial(String),
    #[error("container number {number:?}: check digit is {found}, ISO 6346 gives {expected}")]
    CheckDigit {
        number: String,
        found: u32,
        expected: u32,
    },
}

/// Validates a normalized container number (see [`normalize`]).
pub fn validate(number: &str) -> Result<(), Iso6346Error> {
    let owned = || number.to_string();
    let Some(chars) = exactly::<11>(number) else {
        return Err(Iso6346Error::Length(owned()));
    };
    if !chars[..3].iter().all(|c| c.is_ascii_uppercase()) {
        return Err(Iso6346Error::OwnerCode(owned()));
    }
    if !matches!(chars[3], 'U' | 'J' | 'Z') {
        return Err(Iso6346Error::Category(owned()));
    }
    if !chars[4..].iter().all(|c| c.is_ascii_digit()) {
        return Err(Iso6346Error::Serial(owned()));
    }
    let expected = check_digit(number).ok_or_else(|| Iso6346Error::Serial(owned()))?;
    let found = chars[10].to_digit(10).unwrap_or(99);
    if found != expected {
        return Err(Iso6346Error::CheckDigit {
            number: owned(),
            found,
            expected,
        });
    }
    Ok(())
}

/// Whether `number` has the ISO 6346 shape (4 letters, 7 digits), valid check digit or not.
pub fn looks_like_iso6346(number: &str) -> bool {
    // On bytes: slicing the `str` at 4 panics when a multi-byte character straddles it.
    let b = number.as_bytes();
    b.len() == 11
        && b[..4].iter().all(u8::is_ascii_uppercase)
        && b[4..].iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_values_skip_multiples_of_eleven() {
        let table = [
            ('A', 10),
            ('B', 12),
            ('K', 21),
            ('L', 23),
            ('U', 32),
            ('V', 34),
            ('Z', 38),
        ];
        for (c, v) in table {
            assert_eq!(char_value(c), Some(v), "{c}");
        }
    }

    #[test]
    fn known_numbers() {
        assert_eq!(check_digit("CSQU305438"), Some(3));
        assert!(validate("CSQU3054383").is_ok());
        // The DCSA T&T 2.2 sample container.
        assert!(validate("APZU4812090").is_ok());
        assert_eq!(
            validate("APZU2134567"),
            Err(Iso6346Error::CheckDigit {
                number: "APZU2134567".into(),
                found: 7,
                expected: 4
            })
        );
        assert!(matches!(
            validate("APZX4812090"),
            Err(Iso6346Error::Category(_))
        ));
        assert!(matches!(
            validate("APZU481209"),
            Err(Iso6346Error::Length(_))
        ));
        assert_eq!(normalize(" apzu-481209 0"), "APZU4812090");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// An owner code, category and serial: the first ten characters of a container number.
        fn stem() -> impl Strategy<Value = String> {
            ("[A-Z]{3}", "[UJZ]", "[0-9]{6}").prop_map(|(o, c, s)| format!("{o}{c}{s}"))
        }

        /// Normalization by its definition: drop the separators, upper-case every character.
        fn normalize_by_definition(raw: &str) -> String {
            raw.chars()
                .filter(|c| !matches!(c, ' ' | '-' | '.' | '/' | '\t'))
                .flat_map(char::to_uppercase)
                .collect()
        }

        /// Text near container numbers: letters of both cases, digits, the separators, and
        /// characters outside ASCII (some upper-case to two characters, like `ß`).
        fn near_numbers() -> impl Strategy<Value = String> {
            "[a-zA-Z0-9 \t./\u{df}\u{e5}\u{c5}\u{130}-]{0,16}"
        }

        proptest! {
            /// The normalization is the definition, for ASCII text and for the rest.
            #[test]
            fn normalize_is_the_definition(raw in near_numbers()) {
                prop_assert_eq!(normalize(&raw), normalize_by_definition(&raw));
            }

            /// A number of eleven characters is judged by its characters, whatever their
            /// bytes: one that is not ISO 6346 shaped says which part is wrong, and text of
            /// another length is refused for its length.
            #[test]
            fn validate_counts_characters(raw in near_numbers()) {
                let number = normalize(&raw);
                let result = validate(&number);
                if number.chars().count() != 11 {
                    prop_assert_eq!(result, Err(Iso6346Error::Length(number.clone())));
                } else if looks_like_iso6346(&number) {
                    let digit = check_digit(&number).map(|d| d.to_string());
                    prop_assert_eq!(result.is_ok(), digit.as_deref() == Some(&number[10..]));
                } else {
                    prop_assert!(result.is_err(), "{}", number);
                }
            }

            /// Any stem with its computed check digit is valid, and the validator agrees with
            /// `check_digit`.
            #[test]
            fn computed_check_digit_validates(stem in stem()) {
                let digit = check_digit(&stem).unwrap();
                prop_assert!(digit <= 9);
                let number = format!("{stem}{digit}");
                prop_assert_eq!(validate(&number), Ok(()));
                prop_assert!(looks_like_iso6346(&number));
            }

            /// Any other final digit is refused with the expected digit in the error, unless it
            /// is the 0 that a remainder of 10 also maps to (ISO 6346 Annex A).
            #[test]
            fn wrong_check_digit_is_named(stem in stem(), wrong in 0u32..10) {
                let right = check_digit(&stem).unwrap();
                prop_assume!(wrong != right);
                match validate(&format!("{stem}{wrong}")) {
                    Err(Iso6346Error::CheckDigit { found, expected, .. }) => {
                        prop_assert_eq!((found, expected), (wrong, right));
                    }
                    other => prop_assert!(false, "{:?}", other),
                }
            }

            /// One changed serial digit changes the weighted sum by a non-multiple of 11, so the
            /// check digit catches it unless both sums fall on the 0/10 alias.
            #[test]
            fn single_serial_digit_errors_are_caught(stem in stem(), pos in 4usize..10, delta in 1u32..10) {
                let number = format!("{stem}{}", check_digit(&stem).unwrap());
                let mut chars: Vec<char> = number.chars().collect();
                let d = chars[pos].to_digit(10).unwrap();
                chars[pos] = char::from_digit((d + delta) % 10, 10).unwrap();
                let typo: String = chars.into_iter().collect();
                let sum = |s: &str| -> u32 {
                    s.chars().take(10).enumerate().map(|(i, c)| char_value(c).unwrap() << i).sum()
                };
                let aliased = sum(&typo) % 11 % 10 == sum(&number) % 11 % 10;
                prop_assert_eq!(validate(&typo).is_ok(), aliased);
                prop_assert!(sum(&typo) % 11 != sum(&number) % 11);
            }

            /// Normalizing is idempotent and validation never panics, whatever the input.
            #[test]
            fn normalize_is_idempotent_and_validate_total(raw in "\\PC{0,30}") {
                let once = normalize(&raw);
                prop_assert_eq!(normalize(&once), once.clone());
                let _ = validate(&once);
                let _ = check_digit(&once);
            }
        }
    }
}
