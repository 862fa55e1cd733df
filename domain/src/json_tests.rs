//! The writer against serde_json itself: the same bytes for every shape of serde's data model
//! and for generated JSON values, the same refusals.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{needs_escape, push_str, to_vec, write, JsonError};

fn serde_json_bytes<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("serde_json writes it")
}

fn ours<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    to_vec(v).expect("the writer writes it")
}

#[test]
fn needs_escape_finds_each_byte_in_each_position() {
    for byte in 0u8..=255 {
        let escaped = byte < 0x20 || byte == b'"' || byte == b'\\';
        for position in 0..8 {
            let mut word = [b'a'; 8];
            word[position] = byte;
            assert_eq!(
                needs_escape(u64::from_le_bytes(word)),
                escaped,
                "byte {byte:#04x} at {position}"
            );
        }
    }
    // A byte to escape after a high byte, and high bytes alone.
    assert!(needs_escape(u64::from_le_bytes(*b"\xc3\xa9\"aaaaa")));
    assert!(!needs_escape(u64::from_le_bytes(
        *b"\xc3\xa9\xff\x80\x7f/ a"
    )));
}

#[test]
fn strings_are_escaped_as_serde_json_escapes_them() {
    for s in [
        "",
        "plain",
        "exactly8",
        "quote \" inside",
        "back\\slash",
        "\u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f}\u{7f}",
        "Pelabuhan Klang é ü 港 \u{10348}",
        "/slash and </script>",
        "ends with a newline\n",
    ] {
        let mut out = Vec::new();
        push_str(&mut out, s);
        assert_eq!(out, serde_json_bytes(s), "{s:?}");
    }
}

/// Strings of every length up to three words, with each byte JSON escapes (and a plain one) at
/// each position: the whole words, the overlapping last word and the short strings all find it.
#[test]
fn an_escaped_byte_is_found_at_every_length_and_position() {
    for len in 0..=24 {
        for at in 0..len {
            for byte in ['"', '\\', '\u{0}', '\u{1f}', '\n', '~', '\u{7f}'] {
                let mut s: String = "a".repeat(len);
                s.replace_range(at..at + 1, byte.encode_utf8(&mut [0; 4]));
                let mut out = Vec::new();
                push_str(&mut out, &s);
                assert_eq!(out, serde_json_bytes(&s), "{s:?}");
            }
        }
    }
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Pair(i32, &'static str);

#[derive(Serialize)]
struct Wrapper(u64);

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Dry,
    Reefer,
}

#[derive(Serialize)]
enum Shape {
    Plain,
    Newtype(String),
    Tuple(i8, bool),
    Struct { a: Option<u8>, b: Vec<Kind> },
}

#[derive(Serialize)]
struct Every<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    flag: bool,
    small: i8,
    big: i128,
    huge: u128,
    negative: i64,
    ratio: f64,
    not_finite: f64,
    single: f32,
    letter: char,
    quote: char,
    text: String,
    missing: Option<&'a str>,
    present: Option<&'a str>,
    unit: (),
    unit_struct: Unit,
    pair: Pair,
    wrapper: Wrapper,
    tuple: (u8, &'a str, Option<bool>),
    shapes: Vec<Shape>,
    empty: Vec<u8>,
    bytes: &'a [u8],
    by_kind: BTreeMap<Kind, u8>,
    by_number: BTreeMap<i32, &'a str>,
    by_bool: BTreeMap<bool, u8>,
    by_char: BTreeMap<char, u8>,
    nested: BTreeMap<String, Vec<Option<Value>>>,
    raw: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
}

/// Every shape of serde's data model the writer writes itself or hands to serde_json, in one
/// struct: the same bytes.
#[test]
fn every_shape_is_written_as_serde_json_writes_it() {
    let raw = RawValue::from_string(r#"{"kept" : [1, 2]}"#.to_string()).expect("raw JSON");
    let value = Every {
        kind: "container",
        flag: true,
        small: -128,
        big: i128::MIN,
        huge: u128::MAX,
        negative: -42,
        ratio: 1234.5e-7,
        not_finite: f64::NAN,
        single: 0.1,
        letter: 'é',
        quote: '"',
        text: "line\nbreak \"quoted\" \\ tab\t".to_string(),
        missing: None,
        present: Some("MSKU3397263"),
        unit: (),
        unit_struct: Unit,
        pair: Pair(-7, "x"),
        wrapper: Wrapper(9),
        tuple: (1, "two", None),
        shapes: vec![
            Shape::Plain,
            Shape::Newtype("n\u{1}".to_string()),
            Shape::Tuple(-1, false),
            Shape::Struct {
                a: Some(3),
                b: vec![Kind::Dry, Kind::Reefer],
            },
        ],
        empty: Vec::new(),
        bytes: &[0, 1, 255],
        by_kind: [(Kind::Dry, 1), (Kind::Reefer, 2)].into_iter().collect(),
        by_number: [(-3, "minus"), (10, "ten")].into_iter().collect(),
        by_bool: [(false, 0), (true, 1)].into_iter().collect(),
        by_char: [('"', 1), ('a', 2)].into_iter().collect(),
        nested: [(
            "k\"ey".to_string(),
            vec![None, Some(serde_json::json!({"a": [1.5, "b", null]}))],
        )]
        .into_iter()
        .collect(),
        raw: &raw,
        skipped: None,
    };
    assert_eq!(
        String::from_utf8(ours(&value)).expect("UTF-8"),
        String::from_utf8(serde_json_bytes(&value)).expect("UTF-8")
    );
}

/// What serde_json refuses, the writer refuses: a map key that is a list, a `Serialize`
/// that fails. What went before the failure is left in the buffer, as documented.
#[test]
fn refusals_are_serde_jsons() {
    let by_list: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
    assert!(serde_json::to_vec(&by_list).is_err());
    assert!(matches!(to_vec(&by_list), Err(JsonError::SerdeJson(_))));

    struct Failing;
    impl Serialize for Failing {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no such thing"))
        }
    }
    let mut out = Vec::new();
    let err = write(&mut out, &vec![Some(Failing)]).expect_err("fails");
    assert_eq!(err.to_string(), "no such thing");
    assert_eq!(out, b"[");
    let failing_key: BTreeMap<String, Failing> = [("k".to_string(), Failing)].into_iter().collect();
    assert!(to_vec(&failing_key).is_err());
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,40}",
        proptest::collection::vec(
            prop_oneof![
                Just('"'),
                Just('\\'),
                Just('é'),
                Just('\u{1}'),
                Just('a'),
                Just('\u{7f}'),
                Just('\u{1f}'),
                Just('\n')
            ],
            0..40
        )
        .prop_map(|c| c.into_iter().collect()),
    ]
}

fn values() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn writes_what_serde_json_writes(value in values()) {
        prop_assert_eq!(ours(&value), serde_json_bytes(&value));
    }
}
