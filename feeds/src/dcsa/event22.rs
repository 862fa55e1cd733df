//! A DCSA Track & Trace 2.2 event as its rules read it: each field teu uses, in its place
//! (DCSA T&T 2.2 OpenAPI, `TNT_v2.2.0-resolved.yaml`), as one [`Field`]. Nothing else of the
//! event is kept.
//!
//! Two ways build one, and they must agree:
//! - [`Event22::of_tree`], from the event's tree ([`Tree`]), looking each field up by its JSON
//!   pointer: the definition;
//! - serde, straight from the event's text (an [`Object`] of [`Event22`]), without building
//!   the tree (a third of the DCSA reader's instructions, docs/NOTES.md, sixty-third session). It
//!   gives up, with a serde error, on what it cannot read the way the pointers do: a key
//!   written twice (the pointer finds the last), `seals` written as an object (the pointer
//!   `/seals/0` finds its member `"0"`), an event that is not an object, text nested deeper
//!   than serde_json's limit, and text whose tree serde_json would refuse: a string with a
//!   lone surrogate escape (`"\ud800"`) or a number beyond `f64` (`1e400`) anywhere in the
//!   event, members no field names included ([`StrictMap`] reads them in full rather than
//!   skipping them). The reader then builds the tree (or, where it cannot, refuses the event
//!   as before).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json_borrow::Value as Tree;

use super::at;

/// What an event holds at one field's place: nothing, `null`, a string (as written, not
/// trimmed), an integer within `i64` (DCSA's integer fields), or another kind of value,
/// named as the rules' error messages name it ("a boolean", "a number", "an array",
/// "an object").
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) enum Field<'a> {
    /// The member is not there (or a value on its path is not an object).
    #[default]
    Absent,
    /// JSON `null`.
    Null,
    /// A string, with its escapes read.
    Str(Cow<'a, str>),
    /// A number that is an integer from `i64::MIN` to `i64::MAX`.
    Int(i64),
    /// Any other value: its kind, as an error message says it.
    Other(&'static str),
}

impl<'a> Field<'a> {
    /// The field at `pointer` (RFC 6901, as [`at`] reads it) in `tree`, its string borrowed
    /// from the tree.
    pub(super) fn at(tree: &'a Tree<'_>, pointer: &str) -> Self {
        match at(tree, pointer) {
            None => Field::Absent,
            Some(Tree::Null) => Field::Null,
            Some(Tree::Str(s)) => Field::Str(Cow::Borrowed(s.as_ref())),
            Some(Tree::Number(n)) => n.as_i64().map_or(Field::Other("a number"), Field::Int),
            Some(Tree::Bool(_)) => Field::Other("a boolean"),
            Some(Tree::Array(_)) => Field::Other("an array"),
            Some(Tree::Object(_)) => Field::Other("an object"),
        }
    }

    /// The kind of value, as an error message names it ("null", "a string", "a number", ...);
    /// "nothing" when it is absent.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Field::Absent => "nothing",
            Field::Null => "null",
            Field::Str(_) => "a string",
            Field::Int(_) => "a number",
            Field::Other(kind) => kind,
        }
    }

    /// The string, trimmed, when it is a string that is not blank.
    pub(super) fn text(&self) -> Option<&str> {
        match self {
            Field::Str(s) => text(s),
            _ => None,
        }
    }

    /// The integer, when it is one.
    pub(super) fn int(&self) -> Option<i64> {
        match self {
            Field::Int(n) => Some(*n),
            _ => None,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for FieldVisitor<'a> {
            type Value = Field<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Field::Null)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Field::Null)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Field::Other("a boolean"))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
                Ok(Field::Int(n))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
                Ok(i64::try_from(n).map_or(Field::Other("a number"), Field::Int))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Field::Other("a number"))
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Owned(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq)?;
                Ok(Field::Other("an array"))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map)?;
                Ok(Field::Other("an object"))
            }
        }
        deserializer.deserialize_any(FieldVisitor(std::marker::PhantomData))
    }
}

/// `s` trimmed, unless it is blank: how every DCSA string teu reads is taken.
pub(super) fn text(s: &str) -> Option<&str> {
    Some(s.trim()).filter(|s| !s.is_empty())
}

/// Reads the rest of a list in full ([`Strict`]) and keeps nothing.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Strict>()?.is_some() {}
    Ok(())
}

/// Reads the rest of an object in full ([`Strict`]) and keeps nothing.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Strict, Strict>()?.is_some() {}
    Ok(())
}

/// A value on a field's path that is read by its shape: a list or an object gives what
/// [`Shaped::of_list`] and [`Shaped::of_object`] make of it, any other value (a string, a
/// number, a boolean, `null`) the default, where a pointer through it finds nothing.
pub(super) trait Shaped<'de>: Default {
    /// What a list gives: by default nothing (a pointer's name that is not an index finds
    /// nothing in a list).
    fn of_list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        drain_seq(seq)?;
        Ok(Self::default())
    }
    /// What an object gives: by default nothing.
    fn of_object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        drain_map(map)?;
        Ok(Self::default())
    }
}

/// Reads any JSON value as a [`Shaped`] `T`.
struct ShapedVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Shaped<'de>> Visitor<'de> for ShapedVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::of_list(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::of_object(map)
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<T, E> {
        Ok(T::default())
    }
}

/// Deserializes a [`Shaped`] type from any JSON value.
fn shaped<'de, T: Shaped<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_any(ShapedVisitor(std::marker::PhantomData))
}

/// An object on a field's path: its fields when it is an object, every field
/// [`Field::Absent`] when it is anything else.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Nested<T>(pub(super) T);

impl<'de, T: Deserialize<'de> + Default> Shaped<'de> for Nested<T> {
    fn of_object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        strict_fields(map).map(Nested)
    }
}

/// An event: its fields when it is an object, refused otherwise. Members the fields do not
/// name are read in full ([`StrictMap`]), so that serde takes an event only when its tree
/// could be built.
#[derive(Debug, PartialEq)]
pub(super) struct Object<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                strict_fields(map).map(Object)
            }
        }
        deserializer.deserialize_any(ObjectVisitor(std::marker::PhantomData))
    }
}

/// The fields `T` (a struct of this module) reads from an object's members, the members it
/// does not name read in full ([`StrictMap`]).
fn strict_fields<'de, T: Deserialize<'de>, A: MapAccess<'de>>(map: A) -> Result<T, A::Error> {
    T::deserialize(de::value::MapAccessDeserializer::new(StrictMap(map)))
}

/// An object's members, whose values, when a struct skips them (serde's `IgnoredAny`), are
/// read in full rather than skipped: serde_json skips a string without checking its `\u`
/// escapes (a lone surrogate) and a number without its range (`1e400`), both of which it
/// refuses when it reads them, as building the event's tree does.
struct StrictMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for StrictMap<A> {
    type Error = A::Error;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(StrictSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A value of a [`StrictMap`]: given to its seed through [`StrictDeserializer`].
struct StrictSeed<V>(V);

impl<'de, V: de::DeserializeSeed<'de>> de::DeserializeSeed<'de> for StrictSeed<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.deserialize(StrictDeserializer(deserializer))
    }
}

/// A deserializer that reads a value asked to be skipped ([`Strict`]), and reads everything
/// else as any value (every type of this module reads by `deserialize_any`).
struct StrictDeserializer<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for StrictDeserializer<D> {
    type Error = D::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        Strict::deserialize(self.0)?;
        visitor.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

/// Any JSON value, read in full and kept as nothing: every string (its escapes checked), every
/// number (its range checked), every member.
struct Strict;

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrictVisitor;
        impl<'de> Visitor<'de> for StrictVisitor {
            type Value = Strict;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Strict, A::Error> {
                drain_seq(seq).map(|()| Strict)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Strict, A::Error> {
                drain_map(map).map(|()| Strict)
            }
        }
        deserializer.deserialize_any(StrictVisitor)
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Nested<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        shaped(deserializer)
    }
}

/// A list on a field's path, each member read as `T`: the members when it is a list, none
/// when it is anything else (the rules read only lists).
#[derive(Debug, PartialEq)]
pub(super) struct List<T>(pub(super) Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Shaped<'de> for List<T> {
    fn of_list<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(List(items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        shaped(deserializer)
    }
}

/// The first member of `seals`, the only one teu reads (`/seals/0/sealNumber`). A list gives
/// its first member (when it is an object); `seals` written as an object is refused (the
/// pointer would look for its member `"0"`), and anything else has no seal.
#[derive(Debug, Default, PartialEq)]
pub(super) struct FirstSeal<'a>(pub(super) Seal<'a>);

impl<'de: 'a, 'a> Shaped<'de> for FirstSeal<'a> {
    fn of_list<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let first = seq.next_element::<Nested<Seal<'a>>>()?;
        drain_seq(seq)?;
        Ok(FirstSeal(first.map(|n| n.0).unwrap_or_default()))
    }
    fn of_object<A: MapAccess<'de>>(_: A) -> Result<Self, A::Error> {
        Err(de::Error::custom(
            "seals written as an object: read by its tree",
        ))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for FirstSeal<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        shaped(deserializer)
    }
}

/// A seal (DCSA `Seal`): its number.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct Seal<'a> {
    #[serde(rename = "sealNumber", borrow)]
    pub(super) number: Field<'a>,
}

/// A DCSA 2.2 event's fields that teu reads (module docs). Names are the DCSA attribute names
/// in Rust's case; `transportCall` and its `vessel` and `location` are [`Nested`].
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct Event22<'a> {
    #[serde(rename = "eventID", borrow)]
    pub(super) event_id: Field<'a>,
    #[serde(rename = "eventType", borrow)]
    pub(super) event_type: Field<'a>,
    #[serde(rename = "eventClassifierCode", borrow)]
    pub(super) event_classifier_code: Field<'a>,
    #[serde(rename = "transportEventTypeCode", borrow)]
    pub(super) transport_event_type_code: Field<'a>,
    #[serde(rename = "equipmentEventTypeCode", borrow)]
    pub(super) equipment_event_type_code: Field<'a>,
    #[serde(rename = "shipmentEventTypeCode", borrow)]
    pub(super) shipment_event_type_code: Field<'a>,
    #[serde(rename = "eventCreatedDateTime", borrow)]
    pub(super) event_created_date_time: Field<'a>,
    #[serde(rename = "eventDateTime", borrow)]
    pub(super) event_date_time: Field<'a>,
    #[serde(rename = "equipmentReference", borrow)]
    pub(super) equipment_reference: Field<'a>,
    #[serde(rename = "ISOEquipmentCode", borrow)]
    pub(super) iso_equipment_code: Field<'a>,
    #[serde(rename = "emptyIndicatorCode", borrow)]
    pub(super) empty_indicator_code: Field<'a>,
    #[serde(rename = "delayReasonCode", borrow)]
    pub(super) delay_reason_code: Field<'a>,
    #[serde(rename = "changeRemark", borrow)]
    pub(super) change_remark: Field<'a>,
    #[serde(borrow)]
    pub(super) reason: Field<'a>,
    #[serde(rename = "documentTypeCode", borrow)]
    pub(super) document_type_code: Field<'a>,
    #[serde(rename = "documentID", borrow)]
    pub(super) document_id: Field<'a>,
    #[serde(borrow)]
    pub(super) seals: FirstSeal<'a>,
    #[serde(rename = "eventLocation", borrow)]
    pub(super) event_location: Nested<Location<'a>>,
    #[serde(rename = "transportCall", borrow)]
    pub(super) transport_call: Nested<TransportCall<'a>>,
    #[serde(rename = "documentReferences", borrow)]
    pub(super) document_references: List<Nested<DocumentReference<'a>>>,
    #[serde(borrow)]
    pub(super) references: List<Nested<Reference<'a>>>,
}

/// A DCSA 2.2 `Location` (an event's `eventLocation`, a transport call's `location`).
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct Location<'a> {
    #[serde(rename = "UNLocationCode", borrow)]
    pub(super) un_location_code: Field<'a>,
    #[serde(rename = "locationName", borrow)]
    pub(super) location_name: Field<'a>,
    #[serde(rename = "facilityCode", borrow)]
    pub(super) facility_code: Field<'a>,
    #[serde(rename = "facilityTypeCode", borrow)]
    pub(super) facility_type_code: Field<'a>,
}

/// A DCSA 2.2 `TransportCall`.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct TransportCall<'a> {
    #[serde(rename = "transportCallID", borrow)]
    pub(super) transport_call_id: Field<'a>,
    #[serde(rename = "UNLocationCode", borrow)]
    pub(super) un_location_code: Field<'a>,
    #[serde(borrow)]
    pub(super) location: Nested<Location<'a>>,
    #[serde(rename = "facilityCode", borrow)]
    pub(super) facility_code: Field<'a>,
    #[serde(rename = "facilityTypeCode", borrow)]
    pub(super) facility_type_code: Field<'a>,
    #[serde(rename = "modeOfTransport", borrow)]
    pub(super) mode_of_transport: Field<'a>,
    #[serde(rename = "transportCallSequenceNumber", borrow)]
    pub(super) transport_call_sequence_number: Field<'a>,
    #[serde(borrow)]
    pub(super) vessel: Nested<Vessel<'a>>,
    #[serde(rename = "exportVoyageNumber", borrow)]
    pub(super) export_voyage_number: Field<'a>,
    #[serde(rename = "importVoyageNumber", borrow)]
    pub(super) import_voyage_number: Field<'a>,
}

/// A DCSA 2.2 `Vessel`.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct Vessel<'a> {
    #[serde(rename = "vesselIMONumber", borrow)]
    pub(super) imo_number: Field<'a>,
    #[serde(rename = "vesselName", borrow)]
    pub(super) name: Field<'a>,
    #[serde(rename = "vesselOperatorCarrierCode", borrow)]
    pub(super) operator_carrier_code: Field<'a>,
}

/// A DCSA 2.2 `DocumentReference`.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct DocumentReference<'a> {
    #[serde(rename = "documentReferenceType", borrow)]
    pub(super) kind: Field<'a>,
    #[serde(rename = "documentReferenceValue", borrow)]
    pub(super) value: Field<'a>,
}

/// A DCSA 2.2 `Reference`.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(super) struct Reference<'a> {
    #[serde(rename = "referenceType", borrow)]
    pub(super) kind: Field<'a>,
    #[serde(rename = "referenceValue", borrow)]
    pub(super) value: Field<'a>,
}

impl<'a> Event22<'a> {
    /// The event's fields looked up in its tree by their JSON pointers: what the rules read
    /// when serde could not read the text itself, and what it must read when it can.
    pub(super) fn of_tree(e: &'a Tree<'_>) -> Self {
        let f = |pointer: &str| Field::at(e, pointer);
        let location = |prefix: &str| {
            Nested(Location {
                un_location_code: f(&format!("{prefix}/UNLocationCode")),
                location_name: f(&format!("{prefix}/locationName")),
                facility_code: f(&format!("{prefix}/facilityCode")),
                facility_type_code: f(&format!("{prefix}/facilityTypeCode")),
            })
        };
        let list = |pointer: &str| match at(e, pointer) {
            Some(Tree::Array(items)) => items.as_slice(),
            _ => &[],
        };
        Event22 {
            event_id: f("/eventID"),
            event_type: f("/eventType"),
            event_classifier_code: f("/eventClassifierCode"),
            transport_event_type_code: f("/transportEventTypeCode"),
            equipment_event_type_code: f("/equipmentEventTypeCode"),
            shipment_event_type_code: f("/shipmentEventTypeCode"),
            event_created_date_time: f("/eventCreatedDateTime"),
            event_date_time: f("/eventDateTime"),
            equipment_reference: f("/equipmentReference"),
            iso_equipment_code: f("/ISOEquipmentCode"),
            empty_indicator_code: f("/emptyIndicatorCode"),
            delay_reason_code: f("/delayReasonCode"),
            change_remark: f("/changeRemark"),
            reason: f("/reason"),
            document_type_code: f("/documentTypeCode"),
            document_id: f("/documentID"),
            seals: FirstSeal(Seal {
                number: f("/seals/0/sealNumber"),
            }),
            event_location: location("/eventLocation"),
            transport_call: Nested(TransportCall {
                transport_call_id: f("/transportCall/transportCallID"),
                un_location_code: f("/transportCall/UNLocationCode"),
                location: location("/transportCall/location"),
                facility_code: f("/transportCall/facilityCode"),
                facility_type_code: f("/transportCall/facilityTypeCode"),
                mode_of_transport: f("/transportCall/modeOfTransport"),
                transport_call_sequence_number: f("/transportCall/transportCallSequenceNumber"),
                vessel: Nested(Vessel {
                    imo_number: f("/transportCall/vessel/vesselIMONumber"),
                    name: f("/transportCall/vessel/vesselName"),
                    operator_carrier_code: f("/transportCall/vessel/vesselOperatorCarrierCode"),
                }),
                export_voyage_number: f("/transportCall/exportVoyageNumber"),
                import_voyage_number: f("/transportCall/importVoyageNumber"),
            }),
            document_references: List(
                list("/documentReferences")
                    .iter()
                    .map(|r| {
                        Nested(DocumentReference {
                            kind: Field::at(r, "/documentReferenceType"),
                            value: Field::at(r, "/documentReferenceValue"),
                        })
                    })
                    .collect(),
            ),
            references: List(
                list("/references")
                    .iter()
                    .map(|r| {
                        Nested(Reference {
                            kind: Field::at(r, "/referenceType"),
                            value: Field::at(r, "/referenceValue"),
                        })
                    })
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A JSON value written by hand, so that an object can name a key twice (serde_json's
    /// `Value` cannot) and write a key with its first character escaped (`\u0065ventID`).
    #[derive(Debug, Clone)]
    enum Json {
        Null,
        Bool(bool),
        Int(i64),
        Big(u64),
        Float(f64),
        Str(String),
        /// JSON text as written: escapes and numbers a tree may refuse.
        Raw(&'static str),
        List(Vec<Json>),
        Object(Vec<(&'static str, bool, Json)>),
    }

    impl Json {
        fn write(&self, out: &mut String) {
            let quoted = |s: &str| serde_json::to_string(s).expect("a string");
            match self {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Int(n) => out.push_str(&n.to_string()),
                Json::Big(n) => out.push_str(&n.to_string()),
                Json::Float(f) => out.push_str(&serde_json::to_string(f).expect("finite")),
                Json::Str(s) => out.push_str(&quoted(s)),
                Json::Raw(text) => out.push_str(text),
                Json::List(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        item.write(out);
                    }
                    out.push(']');
                }
                Json::Object(members) => {
                    out.push('{');
                    for (i, (key, escaped, value)) in members.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        match key.chars().next() {
                            Some(first) if *escaped => out.push_str(&format!(
                                "\"\\u{:04x}{}",
                                u32::from(first),
                                &quoted(&key[first.len_utf8()..])[1..]
                            )),
                            _ => out.push_str(&quoted(key)),
                        }
                        out.push_str(": ");
                        value.write(out);
                    }
                    out.push('}');
                }
            }
        }
    }

    /// The event `text` read by serde, as the reader reads it.
    fn fields_of(text: &str) -> Result<Event22<'_>, serde_json::Error> {
        serde_json::from_str::<Object<Event22>>(text).map(|o| o.0)
    }

    /// Every name [`Event22`] reads, at any level, and one it does not.
    const KEYS: [&str; 42] = [
        "eventID",
        "eventType",
        "eventClassifierCode",
        "transportEventTypeCode",
        "equipmentEventTypeCode",
        "shipmentEventTypeCode",
        "eventCreatedDateTime",
        "eventDateTime",
        "equipmentReference",
        "ISOEquipmentCode",
        "emptyIndicatorCode",
        "delayReasonCode",
        "changeRemark",
        "reason",
        "documentTypeCode",
        "documentID",
        "seals",
        "sealNumber",
        "0",
        "eventLocation",
        "transportCall",
        "UNLocationCode",
        "locationName",
        "facilityCode",
        "facilityTypeCode",
        "transportCallID",
        "location",
        "modeOfTransport",
        "transportCallSequenceNumber",
        "vessel",
        "vesselIMONumber",
        "vesselName",
        "vesselOperatorCarrierCode",
        "exportVoyageNumber",
        "importVoyageNumber",
        "documentReferences",
        "documentReferenceType",
        "documentReferenceValue",
        "references",
        "referenceType",
        "referenceValue",
        "carrierServiceCode",
    ];

    /// Values written as JSON allows but a tree may not take: escapes (a lone surrogate, which
    /// serde_json refuses in a string it reads and not in one it skips), numbers beyond `f64`
    /// (likewise), and ordinary ones.
    const RAW: [&str; 10] = [
        r#""\ud800""#,
        r#""a\udc00b""#,
        r#""\ud83d\ude00""#,
        r#""\u0041\n""#,
        "1e400",
        "-1E+999",
        "1e-400",
        "-0",
        "2.5E3",
        "18446744073709551616",
    ];

    /// Objects built from [`KEYS`] (a name sometimes twice, sometimes escaped) holding any
    /// kind of value, objects and lists of them up to four levels deep.
    fn events() -> impl Strategy<Value = Json> {
        let leaf = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            any::<i64>().prop_map(Json::Int),
            (i64::MAX as u64..=u64::MAX).prop_map(Json::Big),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Json::Float),
            "[ a-zA-Z0-9\"\\\\\u{e5}-]{0,6}".prop_map(Json::Str),
            proptest::sample::select(&RAW[..]).prop_map(Json::Raw),
        ];
        let member = |value: BoxedStrategy<Json>| {
            (
                proptest::sample::select(&KEYS[..]),
                proptest::bool::weighted(0.1),
                value,
            )
        };
        let value = leaf
            .prop_recursive(4, 48, 8, move |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(Json::List),
                    proptest::collection::vec(member(inner), 0..6).prop_map(Json::Object),
                ]
            })
            .boxed();
        proptest::collection::vec(member(value), 0..10).prop_map(Json::Object)
    }

    /// Whenever serde reads an event's text as [`Event22`], its tree can be built (serde_json
    /// takes every string and number of it, read or skipped) and serde reads what the JSON
    /// pointers find in the tree ([`Event22::of_tree`]): every field, nested object and list,
    /// whatever kind of value each name holds, with names escaped, and with names written
    /// twice (serde gives up; the pointers find the last). Most events are read by serde.
    #[test]
    fn serde_reads_what_the_pointers_find() {
        let (read, all) = (AtomicUsize::new(0), AtomicUsize::new(0));
        proptest!(ProptestConfig::with_cases(2000), |(event in events())| {
            let mut text = String::new();
            event.write(&mut text);
            all.fetch_add(1, Ordering::Relaxed);
            let tree = serde_json::from_str::<Tree>(&text);
            let fields = fields_of(&text);
            if let Ok(fields) = fields {
                read.fetch_add(1, Ordering::Relaxed);
                // serde reads an event only when its tree can be built.
                let tree = tree.map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
                prop_assert_eq!(fields, Event22::of_tree(&tree), "{}", text);
            }
        });
        let (read, all) = (read.into_inner(), all.into_inner());
        assert!(read * 2 > all, "serde read {read} of {all} events");
    }

    /// The cases serde gives up on, each against what the pointers find there.
    #[test]
    fn serde_gives_way_where_the_pointers_differ() {
        for text in [
            // A name twice: the pointer finds the last.
            r#"{"eventID": "a", "eventID": "b"}"#,
            // `/seals/0` finds the member "0" of an object.
            r#"{"seals": {"0": {"sealNumber": "S1"}}}"#,
            // What serde_json skips but refuses to read, as the tree does: a lone surrogate,
            // a number beyond `f64`, in members no field names, at any depth.
            r#"{"eventID": "x", "carrierServiceCode": "\ud800"}"#,
            r#"{"transportCall": {"vessel": {"vesselFlag": [1e400]}}}"#,
            r#"{"references": [{"x": {"y": "a\udc00"}}]}"#,
        ] {
            assert!(fields_of(text).is_err(), "{text}");
        }
        for text in [
            r#"{"eventID": "x", "carrierServiceCode": "\ud800"}"#,
            r#"{"transportCall": {"vessel": {"vesselFlag": [1e400]}}}"#,
        ] {
            assert!(serde_json::from_str::<Tree>(text).is_err(), "{text}");
        }
        let tree: Tree =
            serde_json::from_str(r#"{"seals": {"0": {"sealNumber": "S1"}}}"#).expect("JSON");
        assert_eq!(Event22::of_tree(&tree).seals.0.number.text(), Some("S1"));
        // Values on a path that are not objects hold nothing, as through a pointer.
        for text in [
            r#"{"transportCall": "x", "seals": 1, "references": {"a": 1}}"#,
            r#"{"transportCall": [{"vessel": {}}], "seals": [[1]], "references": null}"#,
        ] {
            let tree: Tree = serde_json::from_str(text).expect("JSON");
            let fields = fields_of(text).expect(text);
            assert_eq!(fields, Event22::of_tree(&tree), "{text}");
            assert_eq!(fields, Event22::default(), "{text}");
        }
    }
}
