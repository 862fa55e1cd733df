//! Plain fields written as JSON text: [`PlainFields`], what an object served by
//! [`super::InPlace`] writes of itself without making a response value.
//!
//! A field of an object resolved by async-graphql becomes a `Value` (a `String` copied from
//! the object for every string and timestamp, a `Name` allocated for every enum value) that
//! the response writer walks and drops again. The fields here (scalars, enums and lists of
//! them, no arguments, no selection) are written straight into the object's JSON text
//! instead, with the same bytes: strings escaped as serde_json escapes them
//! ([`teu_domain::json::push_str`]), numbers as serde_json writes `async_graphql::Number`,
//! enums by their GraphQL names, `DateTime` as its scalar's text (RFC 3339 in UTC, `/v2`'s
//! text), `null` for `None`. Tested against async-graphql's own resolution of every field of
//! every container and shipment of a feed (`tests::records`).

use async_graphql::resolver_utils::EnumType;
use async_graphql::ID;
use teu_domain::json::push_str;

use super::shipment::LineTrackingStoppedReason;
use super::{ContainerStatus, DateTime};

/// An object that writes some of its fields' values as JSON text itself.
pub(crate) trait PlainFields {
    /// Appends the JSON value of the field named `name` (its GraphQL name) to `out` and
    /// returns true, when it is a field this object writes: one with no arguments whose
    /// value is a scalar, an enum or a list of them. Any other name returns false and writes
    /// nothing; the caller then resolves the field as async-graphql does.
    fn write_field(&self, name: &str, out: &mut Vec<u8>) -> bool;
}

/// A value written as the JSON text async-graphql's response value of it serializes to.
pub(crate) trait WriteJson {
    /// Appends the JSON text of `self` to `out`.
    fn write_json(&self, out: &mut Vec<u8>);
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) {
        push_str(out, self);
    }
}

impl WriteJson for ID {
    fn write_json(&self, out: &mut Vec<u8>) {
        push_str(out, self);
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
}

impl WriteJson for i32 {
    /// The digits serde_json writes (`teu_domain::json`, which cannot fail on an integer).
    fn write_json(&self, out: &mut Vec<u8>) {
        if teu_domain::json::write(out, self).is_err() {
            out.extend_from_slice(b"null");
        }
    }
}

impl WriteJson for f64 {
    /// async-graphql makes a float a `Number` (`null` when not finite), which serde_json
    /// writes by ryu; `teu_domain::json` writes an `f64` with the same bytes.
    fn write_json(&self, out: &mut Vec<u8>) {
        if teu_domain::json::write(out, self).is_err() {
            out.extend_from_slice(b"null");
        }
    }
}

impl WriteJson for DateTime {
    fn write_json(&self, out: &mut Vec<u8>) {
        teu_domain::time::with_v2_text(&self.0, |text| push_str(out, text));
    }
}

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.write_json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write_json(out);
        }
        out.push(b']');
    }
}

/// The GraphQL name of enum value `value`, as its derived `Enum` lists it.
fn enum_name<E: EnumType + PartialEq + 'static>(value: &E) -> &'static str {
    E::items()
        .iter()
        .find(|item| item.value == *value)
        .map_or("", |item| item.name)
}

impl WriteJson for ContainerStatus {
    fn write_json(&self, out: &mut Vec<u8>) {
        push_str(out, enum_name(self));
    }
}

impl WriteJson for LineTrackingStoppedReason {
    fn write_json(&self, out: &mut Vec<u8>) {
        push_str(out, enum_name(self));
    }
}

/// Implements [`PlainFields`] for an object from a list of its plain fields, each as
/// `"graphqlName" => rust_field`. A field left out of the list is still served, by
/// async-graphql; a name written wrong is never matched and so served the same way.
macro_rules! plain_fields {
    ($ty:ty { $($name:literal => $field:ident),* $(,)? }) => {
        impl $crate::types::text::PlainFields for $ty {
            fn write_field(&self, name: &str, out: &mut Vec<u8>) -> bool {
                use $crate::types::text::WriteJson;
                match name {
                    $($name => self.$field.write_json(out),)*
                    _ => return false,
                }
                true
            }
        }
    };
}
pub(crate) use plain_fields;

#[cfg(test)]
mod tests {
    use async_graphql::{ScalarType, Value};
    use proptest::prelude::*;

    use super::*;

    /// The bytes serde_json writes for async-graphql's response value of `value`.
    fn of_value(value: Value) -> Vec<u8> {
        serde_json::to_vec(&value).expect("a value serializes")
    }

    fn text<T: WriteJson>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        value.write_json(&mut out);
        out
    }

    proptest! {
        #[test]
        fn scalars_are_written_as_their_values(
            s in any::<String>(),
            n in any::<i32>(),
            f in any::<f64>(),
            b in any::<bool>(),
            millis in -62_135_596_800_000i64..253_402_300_799_999,
        ) {
            prop_assert_eq!(text(&s), of_value(Value::String(s.clone())));
            prop_assert_eq!(text(&ID(s.clone())), of_value(ID(s.clone()).to_value()));
            prop_assert_eq!(text(&n), of_value(n.to_value()));
            prop_assert_eq!(text(&f), of_value(f.to_value()));
            prop_assert_eq!(text(&b), of_value(b.to_value()));
            let t = DateTime(chrono::DateTime::from_timestamp_millis(millis).expect("in range"));
            prop_assert_eq!(text(&t), of_value(t.to_value()));
            prop_assert_eq!(text(&Some(t)), of_value(t.to_value()));
            prop_assert_eq!(text(&None::<DateTime>), of_value(Value::Null));
            prop_assert_eq!(
                text(&vec![s.clone(), String::new()]),
                of_value(Value::List(vec![Value::String(s), Value::String(String::new())]))
            );
        }
    }

    #[test]
    fn enums_are_written_by_their_graphql_names() {
        use async_graphql::resolver_utils::enum_value;
        for item in ContainerStatus::items() {
            assert_eq!(text(&item.value), of_value(enum_value(item.value)));
        }
        for item in LineTrackingStoppedReason::items() {
            assert_eq!(text(&item.value), of_value(enum_value(item.value)));
        }
        assert_eq!(text(&ContainerStatus::OnShip), b"\"ON_SHIP\"");
    }
}
