//! JSON text written faster than `serde_json` writes it and byte for byte the same (compact, no
//! whitespace): [`write`] for any `Serialize` value, [`push_str`] for one string. Both APIs'
//! answers are written with it, and the store's JSON bodies (events, derived records, facts),
//! whose bytes and content hashes are therefore those serde_json would give.
//!
//! Where the time goes in serde_json: every string, struct field names included, is escaped
//! byte by byte through a table lookup (`format_escaped_str_contents`), 19% of the
//! instructions of a `/v2` page of 30 containers with their shipments (docs/NOTES.md,
//! forty-seventh session). Here a string is first checked eight bytes at a time for a byte
//! JSON must escape (RFC 8259, section 7: `"`, `\` and U+0000 to U+001F) and, having none
//! (almost every string an API writes), copied as it is.
//!
//! What is written, for each serde data model type, is what `serde_json::to_writer` writes:
//! integers in decimal, floats by serde_json itself (non-finite ones as `null`), unit, `None`
//! and unit structs as `null`, unit variants as their name, newtype variants as
//! `{"variant":value}`, tuple and struct variants as `{"variant":[…]}` and
//! `{"variant":{…}}`, byte arrays as arrays of numbers, map keys that are not strings (numbers,
//! booleans, chars, unit variants) quoted, as serde_json quotes them. A `serde_json::value::
//! RawValue` is written as its text, as serde_json writes it. Not supported: serde_json's
//! `arbitrary_precision` numbers (teu does not enable that feature).

use std::fmt::Display;

use serde::ser::{self, Impossible, Serialize};

/// Why a value could not be written: what its own `Serialize` reported (a custom error), or
/// what serde_json reported for a part written by serde_json (a float, a byte array, a map
/// key that is not a string, e.g. a map as a key).
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// A `Serialize` implementation's own error (`serde::ser::Error::custom`).
    #[error("{0}")]
    Custom(String),
    /// serde_json's error for the part of the value it wrote.
    #[error(transparent)]
    SerdeJson(#[from] serde_json::Error),
}

impl ser::Error for JsonError {
    fn custom<T: Display>(msg: T) -> Self {
        JsonError::Custom(msg.to_string())
    }
}

/// Appends the JSON text of `value` to `out`: the bytes `serde_json::to_writer` writes.
///
/// # Errors
/// [`JsonError`] when `value`'s `Serialize` fails, or a map key cannot be a JSON string (as
/// serde_json refuses it); `out` then holds a partial text, which the caller cuts off.
pub fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), JsonError> {
    value.serialize(&mut Writer { out })
}

/// The JSON text of `value`, as `serde_json::to_vec` writes it.
///
/// # Errors
/// As [`write`].
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, JsonError> {
    let mut out = Vec::with_capacity(128);
    write(&mut out, value)?;
    Ok(out)
}

/// The JSON text of `value`, as `serde_json::to_string` writes it.
///
/// # Errors
/// As [`write`]; the text itself is always UTF-8 (strings are copied from `&str`, everything
/// else written is ASCII).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, JsonError> {
    String::from_utf8(to_vec(value)?).map_err(|e| JsonError::Custom(e.to_string()))
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it: `\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`, other control characters as `\u00xx` (lower-case hex); everything else,
/// `/`, DEL and non-ASCII included, as it is.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if clean(bytes) {
        out.extend_from_slice(bytes);
    } else {
        escaped(out, bytes);
    }
    out.push(b'"');
}

/// Whether `bytes` has no byte JSON escapes, checked eight bytes at a time: the words from the
/// start, then the last eight bytes (overlapping the words before them) for the rest; a string
/// shorter than a word byte by byte. Padding the last word by a copy of variable length (as
/// this did until the sixtieth session) called `memcpy` for nearly every string, most of them
/// field names and values of a few bytes.
fn clean(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 8 {
        return bytes.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    }
    let word = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let mut at = 0;
    while at + 8 <= n {
        if needs_escape(word(at)) {
            return false;
        }
        at += 8;
    }
    at == n || !needs_escape(word(n - 8))
}

/// Appends `bytes` (a string with a byte to escape) escaped, byte by byte.
fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (at, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ],
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..at]);
        out.extend_from_slice(escape);
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Whether one of the 8 bytes of `word` is `"`, `\` or below 0x20 (a byte JSON escapes).
/// Bytes of 0x80 and above never count (UTF-8 continuation and lead bytes are written as
/// they are).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte whose high bit the subtraction sets, among bytes whose own high bit is clear:
    // exactly the bytes below the subtracted value (for below 0x20), or equal to zero (for
    // the XORs, zero where the byte was `"` or `\`).
    let below_space = word.wrapping_sub(ONES * 0x20);
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space & !word | quote | backslash) & HIGH != 0
}

/// The struct name by which serde_json's `RawValue` asks to be written as its text (its
/// `serialize` is `serialize_struct(TOKEN, 1)` with one field of that name holding the text).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Appends the text of `v` as serde_json writes it (floats, byte arrays).
fn by_serde_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), JsonError> {
    Ok(serde_json::to_writer(out, v)?)
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    fn integer<I: itoa::Integer>(&mut self, v: I) -> Result<(), JsonError> {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
        Ok(())
    }
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = JsonError;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    fn serialize_bool(self, v: bool) -> Result<(), JsonError> {
        let text: &[u8] = if v { b"true" } else { b"false" };
        self.out.extend_from_slice(text);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), JsonError> {
        self.integer(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), JsonError> {
        by_serde_json(self.out, &v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), JsonError> {
        by_serde_json(self.out, &v)
    }
    fn serialize_char(self, v: char) -> Result<(), JsonError> {
        push_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), JsonError> {
        push_str(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), JsonError> {
        by_serde_json(self.out, v)
    }
    fn serialize_none(self) -> Result<(), JsonError> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), JsonError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), JsonError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), JsonError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), JsonError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        self.out.push(b'{');
        push_str(self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'w, 'a>, JsonError> {
        Ok(Compound::open(self, b"[", b"]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'w, 'a>, JsonError> {
        Ok(Compound::open(self, b"[", b"]"))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, JsonError> {
        Ok(Compound::open(self, b"[", b"]"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, JsonError> {
        self.out.push(b'{');
        push_str(self.out, variant);
        self.out.push(b':');
        Ok(Compound::open(self, b"[", b"]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'w, 'a>, JsonError> {
        Ok(Compound::open(self, b"{", b"}"))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, JsonError> {
        if name == RAW_VALUE_TOKEN {
            let mut raw = Compound::open(self, b"", b"");
            raw.raw = true;
            return Ok(raw);
        }
        Ok(Compound::open(self, b"{", b"}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, JsonError> {
        self.out.push(b'{');
        push_str(self.out, variant);
        self.out.push(b':');
        Ok(Compound::open(self, b"{", b"}}"))
    }
}

/// A list, map or struct being written: its members separated by commas, then `close`.
/// `raw`: serde_json's `RawValue`, whose one field is its text, written as it is.
struct Compound<'w, 'a> {
    ser: &'w mut Writer<'a>,
    close: &'static [u8],
    first: bool,
    raw: bool,
}

impl<'w, 'a> Compound<'w, 'a> {
    fn open(ser: &'w mut Writer<'a>, open: &[u8], close: &'static [u8]) -> Self {
        ser.out.extend_from_slice(open);
        Compound {
            ser,
            close,
            first: true,
            raw: false,
        }
    }

    fn comma(&mut self) {
        if !self.first {
            self.ser.out.push(b',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.comma();
        value.serialize(&mut *self.ser)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), JsonError> {
        if self.raw {
            let text = Text {
                out: self.ser.out,
                raw: true,
            };
            return value.serialize(text).map_err(|e| match e {
                TextError::NotText => {
                    JsonError::Custom("a RawValue's text is not a string".to_string())
                }
                TextError::Other(e) => e,
            });
        }
        self.comma();
        push_str(self.ser.out, key);
        self.ser.out.push(b':');
        value.serialize(&mut *self.ser)
    }

    fn close(self) -> Result<(), JsonError> {
        self.ser.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// The lists: each member an element ([`Compound::element`]).
macro_rules! lists {
    ($($list:ident::$member:ident;)*) => {
        $(impl ser::$list for Compound<'_, '_> {
            type Ok = ();
            type Error = JsonError;
            fn $member<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
                self.element(value)
            }
            fn end(self) -> Result<(), JsonError> {
                self.close()
            }
        })*
    };
}

lists! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeTupleVariant::serialize_field;
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), JsonError> {
        self.comma();
        let text = Text {
            out: self.ser.out,
            raw: false,
        };
        match key.serialize(text) {
            Ok(()) => Ok(()),
            Err(TextError::NotText) => quoted_key(self.ser.out, key),
            Err(TextError::Other(e)) => Err(e),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.ser.out.push(b':');
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close()
    }
}

/// The structs: each member a named field ([`Compound::field`]).
macro_rules! structs {
    ($($kind:ident;)*) => {
        $(impl ser::$kind for Compound<'_, '_> {
            type Ok = ();
            type Error = JsonError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), JsonError> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), JsonError> {
                self.close()
            }
        })*
    };
}

structs! {
    SerializeStruct;
    SerializeStructVariant;
}

/// A map key that is not a string, written as serde_json writes it (numbers, booleans and
/// the like quoted; an error for what cannot be a key): serde_json writes a one-member map of
/// it, whose key's text is kept.
fn quoted_key<K: Serialize + ?Sized>(out: &mut Vec<u8>, key: &K) -> Result<(), JsonError> {
    struct KeyOnly<'k, K: ?Sized>(&'k K);
    impl<K: Serialize + ?Sized> Serialize for KeyOnly<'_, K> {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut map = s.serialize_map(Some(1))?;
            map.serialize_entry(self.0, &())?;
            map.end()
        }
    }
    let text = serde_json::to_vec(&KeyOnly(key))?;
    // `{KEY:null}`
    out.extend_from_slice(&text[1..text.len() - b":null}".len()]);
    Ok(())
}

/// Writes a value that is a string, and nothing else: a map key (escaped and quoted) or the
/// text of a `RawValue` (`raw`, as it is). Anything else is refused with
/// [`TextError::NotText`] before anything is written (a key then goes to [`quoted_key`]).
struct Text<'o> {
    out: &'o mut Vec<u8>,
    raw: bool,
}

/// Why [`Text`] wrote nothing: the value is not a string, or its own `Serialize` failed.
#[derive(Debug)]
enum TextError {
    NotText,
    Other(JsonError),
}

impl Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextError::NotText => f.write_str("expected a string"),
            TextError::Other(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TextError {}

impl ser::Error for TextError {
    fn custom<T: Display>(msg: T) -> Self {
        TextError::Other(<JsonError as ser::Error>::custom(msg))
    }
}

impl Text<'_> {
    fn refuse() -> TextError {
        TextError::NotText
    }
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), TextError> {
            Err(Text::refuse())
        })*
    };
}

impl ser::Serializer for Text<'_> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = Impossible<(), TextError>;
    type SerializeTuple = Impossible<(), TextError>;
    type SerializeTupleStruct = Impossible<(), TextError>;
    type SerializeTupleVariant = Impossible<(), TextError>;
    type SerializeMap = Impossible<(), TextError>;
    type SerializeStruct = Impossible<(), TextError>;
    type SerializeStructVariant = Impossible<(), TextError>;

    fn serialize_str(self, v: &str) -> Result<(), TextError> {
        if self.raw {
            self.out.extend_from_slice(v.as_bytes());
        } else {
            push_str(self.out, v);
        }
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), TextError> {
        value.serialize(self)
    }
    refuse! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), TextError> {
        Err(Text::refuse())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), TextError> {
        Err(Text::refuse())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, TextError> {
        Err(Text::refuse())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, TextError> {
        Err(Text::refuse())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, TextError> {
        Err(Text::refuse())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, TextError> {
        Err(Text::refuse())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, TextError> {
        Err(Text::refuse())
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, TextError> {
        Err(Text::refuse())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, TextError> {
        Err(Text::refuse())
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
