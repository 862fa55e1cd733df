//! DCSA Track & Trace 2.2 and 3.0 event readers.
//!
//! Field sources (DCSA T&T 2.2 OpenAPI, `TNT_v2.2.0-resolved.yaml`; T&T 3.0 `events` document):
//!
//! | EventRow field | 2.2 | 3.0 |
//! |---|---|---|
//! | event_id | `eventID` (UUID) | `eventID` (string ≤ 100) |
//! | event_type, classifier | `eventType`, `eventClassifierCode` | `eventClassification.eventTypeCode`, `.eventClassifierCode` |
//! | code | `transportEventTypeCode` / `equipmentEventTypeCode` / `shipmentEventTypeCode` | same names under `eventClassification` |
//! | event_at | `eventDateTime` | `eventDateTime` |
//! | event_created_at | `eventCreatedDateTime` (required) | `eventUpdatedDateTime` |
//! | containers (every one) | `equipmentReference` and every `references[type=EQ]` | `equipmentDetails.equipmentReference` |
//! | bills_of_lading / bookings (every one) | `documentReferences[TRD/BKG]`, `documentID`+`documentTypeCode` | `shipmentDetails.documentReference` and `additionalDocumentReferences` |
//! | references | `references[type=FF/SI/PO/CR/AAO]` | (none) |
//! | transport_call_id | `transportCall.transportCallID` | `transportDetails.transportCall.transportCallReference` |
//! | locode | `eventLocation.UNLocationCode`, else `transportCall.UNLocationCode`, else `transportCall.location.UNLocationCode` | `eventLocation.UNLocationCode` |
//! | vessel, voyages, mode | `transportCall.vessel`, `exportVoyageNumber`, `importVoyageNumber`, `modeOfTransport` | `transportDetails.transportCall.vesselTransport`, `...VoyageNumberOrReference.carrierVoyageNumber` |
//!
//! Validation (each failure quarantines the event with a JSON pointer and a reason):
//! - the event must be an object with an event type and classifier from the DCSA code lists, and
//!   the type's event code from its code list;
//! - `eventID` must be present and a string (a UUID in 2.2) and unique within the file;
//! - `eventDateTime` (and in 2.2 `eventCreatedDateTime`) must be present RFC 3339 date-times;
//! - `eventCreatedDateTime` may not lie in the future, and an actual (ACT) 2.2 event cannot have
//!   happened after it was created;
//! - UN/LOCODEs must be 2-letter ISO 3166 country + 3 characters `[A-Z2-9]` (UN/LOCODE manual §3);
//! - container numbers in the ISO 6346 shape must carry the right check digit;
//! - `VOID` applies only to a transport document (TRD);
//! - an event must name a container, bill of lading or booking, or it cannot be attached;
//! - IMO numbers must be 7 digits.
//!
//! DCSA 3.0 IOT and REEFER events are not used by teu; they are quarantined with that reason, so
//! that nothing is dropped silently.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
// An event's JSON tree borrowed from its text: strings and keys without escapes point into
// the document, objects are vectors of members in the order written (`serde_json_borrow`).
// A DCSA 3.0 event, and a 2.2 event serde does not read as fields ([`event22`]), is read as
// one of these rather than a `serde_json::Value`, which allocates every key and string and a
// B-tree per object (a sixth of a PostgreSQL worker's feed read, NOTES "Forty-third session").
use serde_json_borrow::{ObjectAsVec, Value as Tree};

mod event22;

use super::{FeedBatch, FeedError, FeedFormat, Quarantined, ReadEvent};
use event22::{Event22, Field, Nested, Object};
use teu_domain::model::{
    Classifier, ContainerNumber, EventReference, EventRow, EventType, Imo, UnLocode,
};

const TRANSPORT_CODES: [&str; 2] = ["ARRI", "DEPA"];
const EQUIPMENT_CODES: [&str; 11] = [
    "LOAD", "DISC", "GTIN", "GTOT", "STUF", "STRP", "PICK", "DROP", "INSP", "RSEA", "RMVD",
];
const SHIPMENT_CODES: [&str; 16] = [
    "RECE", "DRFT", "PENA", "PENU", "REJE", "APPR", "ISSU", "SURR", "SUBM", "VOID", "CONF", "REQS",
    "CMPL", "HOLD", "RELS", "CANC",
];
const DOCUMENT_TYPE_CODES: [&str; 12] = [
    "CBR", "BKG", "SHI", "SRM", "TRD", "ARN", "VGM", "CAS", "CUS", "DGD", "OOG", "BOL",
];

/// How far in the future an `eventCreatedDateTime` may lie (clock skew between systems).
const CREATED_SKEW: i64 = 1; // hours

/// Reads a parsed DCSA document. A JSON array is T&T 2.2, an object with `events` is T&T 3.0.
pub fn read_value(value: Value, source_file: &str) -> Result<FeedBatch, FeedError> {
    read_value_at(value, source_file, Utc::now())
}

/// Reads a DCSA document from its JSON text (`bytes`, UTF-8 without a BOM), as
/// [`read_value`] reads its parsed tree, one event at a time: each event of the list is read
/// into its fields (DCSA 2.2, module `event22`) or its tree, with its own text beside it, only while
/// it is read (`Members`). A file of 44,000 events (a chunk of `teu simulate`, 44 MB) never
/// holds every event's tree at once.
/// Text that is not JSON still gives an error and nothing of the file: the reading stops where
/// the list stops being JSON, and the document is read again the checking way, which says
/// where.
///
/// # Errors
/// [`FeedError::Json`] with the line and column where the text is not JSON;
/// [`FeedError::UnknownFormat`] when it is neither an array nor an object with an `events`
/// array.
pub fn read_json(bytes: &[u8], source_file: &str) -> Result<FeedBatch, FeedError> {
    read_json_at(bytes, source_file, Utc::now())
}

/// [`read_json`] with an explicit "now" for the future-timestamp rule.
pub fn read_json_at(
    bytes: &[u8],
    source_file: &str,
    now: DateTime<Utc>,
) -> Result<FeedBatch, FeedError> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Some((format, members, prefix)) = Members::of_document(text) {
            let items = members.map(|m| m.map(|(member, raw)| (member, compact_json(raw))));
            if let Ok(batch) = read_items(format, items, prefix, source_file, now) {
                return Ok(batch);
            }
        }
    }
    read_json_checked(bytes, source_file, now)
}

/// [`read_json_at`] in two passes: the document split into borrowed slices, one per event
/// (`serde_json::value::RawValue`, which checks the syntax of the whole document and says
/// where it is not JSON), and each slice parsed into a tree while it is read. What
/// [`Members`] gives way to.
fn read_json_checked(
    bytes: &[u8],
    source_file: &str,
    now: DateTime<Utc>,
) -> Result<FeedBatch, FeedError> {
    use serde_json::value::RawValue;
    /// A T&T 3.0 document: its `events`, whatever they are, and nothing else kept.
    #[derive(serde::Deserialize)]
    struct Document<'a> {
        #[serde(borrow)]
        events: Option<&'a RawValue>,
    }
    let json = |e: serde_json::Error| FeedError::Json {
        source_file: source_file.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let (format, items, prefix): (_, Vec<&RawValue>, _) = match first {
        Some(b'[') => (
            FeedFormat::DcsaTnt22,
            serde_json::from_slice(bytes).map_err(json)?,
            "",
        ),
        Some(b'{') => {
            let document: Document<'_> = serde_json::from_slice(bytes).map_err(json)?;
            match document.events.filter(|e| e.get().starts_with('[')) {
                Some(events) => (
                    FeedFormat::DcsaTnt30,
                    serde_json::from_str(events.get()).map_err(json)?,
                    "/events",
                ),
                None => return Err(no_events(source_file)),
            }
        }
        _ => return Err(not_a_document(source_file)),
    };
    // Each slice is valid JSON (checked above); a tree that still fails to build (nesting
    // deeper than serde_json's limit) reads as null, which the event rules refuse. The
    // payload kept is the event's own text without its insignificant whitespace.
    let trees = items.into_iter().map(|raw| {
        let text = raw.get();
        Ok::<_, std::convert::Infallible>((
            Member::Tree(serde_json::from_str(text).unwrap_or(Tree::Null)),
            compact_json(text),
        ))
    });
    Ok(read_items(format, trees, prefix, source_file, now).unwrap_or_else(|never| match never {}))
}

/// Why [`Members`] stopped: the text at that point is not the rest of a well-formed event list
/// (a syntax error, or something after the list). Nothing read from it is kept; the document is
/// read again by [`read_json_checked`], which says where and what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unchecked;

/// An event of a list as [`Members`] reads it.
// One member is alive at a time, on the stack; boxing the fields (912 bytes) would cost an
// allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
enum Member<'a> {
    /// A DCSA 2.2 event's fields, read by serde straight from its text.
    Fields(Event22<'a>),
    /// Its tree.
    Tree(Tree<'a>),
}

/// The members of a JSON array, one at a time, each as its tree (or, for DCSA 2.2 events, its
/// fields) and its own text (without the whitespace around it), in one pass over the text:
/// serde_json's `StreamDeserializer` parses a member and says where it ended. Splitting the
/// array into `RawValue` slices first and parsing each slice again read every byte twice: the
/// first pass was a sixth of the DCSA reader's instructions (docs/NOTES.md, sixty-second
/// session).
///
/// A member that is JSON but whose tree cannot be built (nesting deeper than serde_json's
/// limit of 128) reads as null, as in the two-pass reader; anything else that is not a member
/// followed by `,` or the closing `]` (and only whitespace after it) ends the list with
/// `Err(Unchecked)`.
struct Members<'a> {
    /// The whole document.
    text: &'a str,
    /// Where the next member (or the whitespace before it) begins.
    at: usize,
    /// Whether the list has ended (or stopped).
    ended: bool,
    /// Whether to read each object as an [`Event22`] first (its tree when serde cannot).
    fields: bool,
}

impl<'a> Members<'a> {
    /// The members of the DCSA document `text`: a T&T 2.2 array, or a T&T 3.0 object whose
    /// `events` is an array (read as [`read_json_checked`] reads it: the object's syntax checked
    /// and its `events` member found first). `None` for anything else; the checking reader then
    /// says what is wrong.
    fn of_document(text: &'a str) -> Option<(FeedFormat, Self, &'static str)> {
        match text.bytes().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => Some((FeedFormat::DcsaTnt22, Self::of_array(text, true)?, "")),
            Some(b'{') => {
                #[derive(serde::Deserialize)]
                struct Document<'a> {
                    #[serde(borrow)]
                    events: Option<&'a serde_json::value::RawValue>,
                }
                let document: Document<'a> = serde_json::from_str(text).ok()?;
                let events = document.events?.get();
                Some((
                    FeedFormat::DcsaTnt30,
                    Self::of_array(events, false)?,
                    "/events",
                ))
            }
            _ => None,
        }
    }

    /// The members of `text`, which must begin (after whitespace) with `[`; read as
    /// [`Event22`] fields where they can be when `fields`.
    fn of_array(text: &'a str, fields: bool) -> Option<Self> {
        let at = skip_whitespace(text.as_bytes(), 0);
        if text.as_bytes().get(at) != Some(&b'[') {
            return None;
        }
        let mut members = Members {
            text,
            at: skip_whitespace(text.as_bytes(), at + 1),
            ended: false,
            fields,
        };
        if text.as_bytes().get(members.at) == Some(&b']') {
            members.ended = true;
            if !rest_is_whitespace(text.as_bytes(), members.at + 1) {
                return None;
            }
        }
        Some(members)
    }

    /// The member at `self.at`: its fields or its tree, and the length of its text. Only an
    /// object is read as fields (serde would read a list's members into a struct's fields in
    /// order).
    fn member(&self) -> Result<(Member<'a>, usize), Unchecked> {
        let rest = &self.text[self.at..];
        if self.fields && rest.starts_with('{') {
            let mut events =
                serde_json::Deserializer::from_str(rest).into_iter::<Object<Event22<'a>>>();
            if let Some(Ok(Object(event))) = events.next() {
                return Ok((Member::Fields(event), events.byte_offset()));
            }
        }
        let mut trees = serde_json::Deserializer::from_str(rest).into_iter::<Tree<'a>>();
        if let Some(Ok(tree)) = trees.next() {
            return Ok((Member::Tree(tree), trees.byte_offset()));
        }
        let mut raws =
            serde_json::Deserializer::from_str(rest).into_iter::<&serde_json::value::RawValue>();
        match raws.next() {
            Some(Ok(_)) => Ok((Member::Tree(Tree::Null), raws.byte_offset())),
            _ => Err(Unchecked),
        }
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<(Member<'a>, &'a str), Unchecked>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        let stop = |members: &mut Self| {
            members.ended = true;
            Some(Err(Unchecked))
        };
        let Ok((member, len)) = self.member() else {
            return stop(self);
        };
        let text = &self.text[self.at..self.at + len];
        let bytes = self.text.as_bytes();
        let after = skip_whitespace(bytes, self.at + len);
        match bytes.get(after) {
            Some(b',') => self.at = skip_whitespace(bytes, after + 1),
            Some(b']') if rest_is_whitespace(bytes, after + 1) => self.ended = true,
            _ => return stop(self),
        }
        Some(Ok((member, text)))
    }
}

/// The first position at or after `at` that is not JSON whitespace (RFC 8259, section 2).
fn skip_whitespace(bytes: &[u8], at: usize) -> usize {
    at + bytes
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count()
}

/// Whether everything from `at` on is JSON whitespace.
fn rest_is_whitespace(bytes: &[u8], at: usize) -> bool {
    skip_whitespace(bytes, at) >= bytes.len()
}

/// `text`, one valid JSON value, without the whitespace outside its strings (RFC 8259,
/// section 2: space, tab, line feed and carriage return around the structural characters):
/// the same value, members in the order written, in as few bytes as the text allows. Escapes
/// and numbers are kept as written. Never fails: text that is not JSON (the readers give it
/// only text `serde_json` has parsed) comes back with whitespace removed outside its
/// quote-delimited runs (an unclosed string running to the end), all of it or, where no
/// whitespace touches a structural character, none.
///
/// Text already compact is copied as it is, found so without following its strings
/// (`touches_structure`): most of a feed's events (`teu simulate` writes one per line)
/// hold spaces only inside names, and scanning their strings was 3% of a worker's
/// instructions (docs/NOTES.md, sixty-third session).
pub fn compact_json(text: &str) -> String {
    if !touches_structure(text) {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    // `run` begins the bytes not yet copied. Every byte skipped is ASCII whitespace, so each
    // copied run begins and ends on a character boundary.
    let (mut run, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // A string, to its closing quote: the first quote no backslash escapes.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                        Some(at) if bytes[i + at] == b'\\' => i = (i + at + 2).min(bytes.len()),
                        Some(at) => {
                            i += at + 1;
                            break;
                        }
                        None => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                out.push_str(&text[run..i]);
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[run..]);
    out
}

/// Whether any whitespace byte of `text` is its first or last byte or stands next to a
/// structural character (`{ } [ ] , :`). In JSON text, whitespace outside strings always
/// does (RFC 8259, section 2): between two tokens one is a structural character, as two
/// values are never adjacent. So a JSON text for which this is false has no whitespace
/// outside its strings. Whitespace inside strings (`"King of the Seas"`) seldom touches one;
/// when it does, the text is scanned string by string.
fn touches_structure(text: &str) -> bool {
    let bytes = text.as_bytes();
    let structural = |i: usize| matches!(bytes[i], b'{' | b'}' | b'[' | b']' | b',' | b':');
    let touches =
        |i: usize| i == 0 || i + 1 == bytes.len() || structural(i - 1) || structural(i + 1);
    memchr::memchr3_iter(b' ', b'\n', b'\t', bytes)
        .chain(memchr::memchr_iter(b'\r', bytes))
        .any(touches)
}

/// The error of a JSON object without an `events` array.
fn no_events(source_file: &str) -> FeedError {
    FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail: "JSON object without an \"events\" array (DCSA T&T 3.0 expected)".into(),
    }
}

/// The error of JSON that is neither an array nor an object.
fn not_a_document(source_file: &str) -> FeedError {
    FeedError::UnknownFormat {
        source_file: source_file.to_string(),
        detail: "expected a JSON array or object".into(),
    }
}

/// [`read_value`] with an explicit "now" for the future-timestamp rule.
pub fn read_value_at(
    value: Value,
    source_file: &str,
    now: DateTime<Utc>,
) -> Result<FeedBatch, FeedError> {
    let (format, items, prefix) = match value {
        Value::Array(items) => (FeedFormat::DcsaTnt22, items, ""),
        Value::Object(mut obj) => match obj.remove("events") {
            Some(Value::Array(items)) => (FeedFormat::DcsaTnt30, items, "/events"),
            _ => return Err(no_events(source_file)),
        },
        _ => return Err(not_a_document(source_file)),
    };
    // The payload kept is the tree written out (members in key order: the tree has no other).
    let trees = items.iter().map(|item| {
        Ok::<_, std::convert::Infallible>((
            Member::Tree(Tree::from(item)),
            serde_json::to_string(item).unwrap_or_default(),
        ))
    });
    Ok(read_items(format, trees, prefix, source_file, now).unwrap_or_else(|never| match never {}))
}

/// Reads the events of a document of `format` (the members of its event list at `prefix`, a
/// JSON pointer, each with its JSON text) one by one: each becomes a [`ReadEvent`] with its
/// text, or a [`Quarantined`] row saying where and why. An event read as fields that breaks a
/// rule is read again from its tree, which says which rule it breaks first. Stops with the
/// list's error when it gives one (nothing read is kept): [`Unchecked`] from [`Members`], none
/// from a list already split.
fn read_items<'a, E>(
    format: FeedFormat,
    items: impl Iterator<Item = Result<(Member<'a>, String), E>>,
    prefix: &str,
    source_file: &str,
    now: DateTime<Utc>,
) -> Result<FeedBatch, E> {
    let mut batch = FeedBatch {
        source_file: source_file.to_string(),
        format,
        rows_read: 0,
        events: Vec::with_capacity(items.size_hint().0),
        checks: Vec::new(),
        deadlines: Vec::new(),
        positions: Vec::new(),
        quarantined: Vec::new(),
    };
    // Each event's id, to the index of the event that first used it; hashed by foldhash
    // (randomly seeded per process), as `store::events::key_lists` hashes the feed's keys.
    let mut seen: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
    for (index, item) in items.enumerate() {
        let (item, raw) = item?;
        batch.rows_read = index + 1;
        let parsed = match &item {
            Member::Tree(tree) if format == FeedFormat::DcsaTnt22 => parse_v22(tree, now),
            Member::Tree(tree) => parse_v30(tree, now),
            Member::Fields(event) => rules_v22(event, now).or_else(|_| {
                let tree = serde_json::from_str(&raw).unwrap_or(Tree::Null);
                parse_v22(&tree, now)
            }),
        };
        let result = parsed.and_then(|row| match seen.get(&row.event_id) {
            Some(first) => Err(Problem::new(
                "/eventID",
                format!(
                    "duplicate eventID {:?}: already used by the event at index {first}",
                    row.event_id
                ),
            )),
            None => {
                seen.insert(row.event_id.clone(), index);
                Ok(row)
            }
        });
        match result {
            Ok(row) => batch.events.push(ReadEvent { index, row, raw }),
            Err(p) => batch.quarantined.push(Quarantined::row(
                source_file,
                index,
                &format!("{prefix}/{index}{}", p.pointer),
                p.reason,
                Some(raw),
            )),
        }
    }
    Ok(batch)
}

/// A validation failure inside one event: pointer relative to the event, and the reason.
#[derive(Debug)]
struct Problem {
    pointer: String,
    reason: String,
}

impl Problem {
    fn new(pointer: &str, reason: impl Into<String>) -> Self {
        Problem {
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }
}

type Parsed = Result<EventRow, Problem>;

/// Looks up a JSON pointer (RFC 6901, without `~` escapes, which DCSA field names never need)
/// without allocating: `serde_json::Value::pointer` unescapes every token, which showed up as a
/// tenth of the reader's time in profiles. The tokens are the bytes after each `/` (`""` is the
/// whole value), split as bytes: `str::split('/')` took about 100 instructions a token, 4% of
/// a DCSA file's ingest (docs/NOTES.md, sixtieth session).
fn at<'t, 'a>(v: &'t Tree<'a>, pointer: &str) -> Option<&'t Tree<'a>> {
    let mut cur = v;
    for token in pointer.as_bytes().split(|&b| b == b'/').skip(1) {
        cur = match cur {
            Tree::Object(map) => member(map, token)?,
            Tree::Array(items) => {
                items.get(std::str::from_utf8(token).ok()?.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// The member `key` (the bytes of its name) of `object`; of a key written twice, the last, as
/// `serde_json` reads it (RFC 8259, section 4, leaves duplicate names to the reader).
fn member<'t, 'a>(object: &'t ObjectAsVec<'a>, key: &[u8]) -> Option<&'t Tree<'a>> {
    object
        .as_vec()
        .iter()
        .rev()
        .find(|(k, _)| k.as_bytes() == key)
        .map(|(_, v)| v)
}

/// The non-blank string at `pointer` in `v`, trimmed.
fn str_at<'t>(v: &'t Tree<'_>, pointer: &str) -> Option<&'t str> {
    at(v, pointer)
        .and_then(Tree::as_str)
        .and_then(event22::text)
}

/// The field's non-blank string, trimmed and owned.
fn string(field: &Field<'_>) -> Option<String> {
    field.text().map(str::to_string)
}

/// The DCSA facility type code of the first of `fields` that has one, upper-cased; the
/// deprecated `COYA` (container yard) reads as `OFFD` (off-dock storage), as the DCSA 2.2
/// `facilityTypeCodeTRN` description says. Unknown codes are kept as given.
fn facility_type(fields: &[&Field<'_>]) -> Option<String> {
    let code = fields.iter().find_map(|f| f.text())?.to_ascii_uppercase();
    match code.as_str() {
        "COYA" => Some("OFFD".to_string()),
        _ => Some(code),
    }
}

/// A required string (`field`, found at `pointer`); a clear problem when it is missing, blank
/// or not a string.
fn required<'f>(field: &'f Field<'_>, pointer: &str) -> Result<&'f str, Problem> {
    match field {
        Field::Absent | Field::Null => Err(Problem::new(
            pointer,
            format!("{} is missing", name(pointer)),
        )),
        Field::Str(s) => event22::text(s)
            .ok_or_else(|| Problem::new(pointer, format!("{} is empty", name(pointer)))),
        other => Err(Problem::new(
            pointer,
            format!("{} must be a string, found {}", name(pointer), other.kind()),
        )),
    }
}

/// The field's name: the last token of its pointer.
fn name(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or(pointer)
}

fn json_kind(v: &Tree<'_>) -> &'static str {
    match v {
        Tree::Null => "null",
        Tree::Bool(_) => "a boolean",
        Tree::Number(_) => "a number",
        Tree::Str(_) => "a string",
        Tree::Array(_) => "an array",
        Tree::Object(_) => "an object",
    }
}

/// A required RFC 3339 date-time, in UTC.
fn date_time(field: &Field<'_>, pointer: &str) -> Result<DateTime<Utc>, Problem> {
    let s = required(field, pointer)?;
    DateTime::parse_from_rfc3339(s)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|e| {
            Problem::new(
                pointer,
                format!("{} {s:?} is not an RFC 3339 date-time: {e}", name(pointer)),
            )
        })
}

/// An RFC 3339 date-time, in UTC, when the field is there and not null.
fn optional_date_time(field: &Field<'_>, pointer: &str) -> Result<Option<DateTime<Utc>>, Problem> {
    match field {
        Field::Absent | Field::Null => Ok(None),
        _ => date_time(field, pointer).map(Some),
    }
}

/// A required code from `list` (a DCSA code list).
fn code_in(list: &[&str], field: &Field<'_>, pointer: &str) -> Result<String, Problem> {
    let s = required(field, pointer)?;
    if list.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(Problem::new(
            pointer,
            format!("{} {s:?} is not one of {}", name(pointer), list.join(", ")),
        ))
    }
}

/// Validates a UN/LOCODE by the rule of [`UnLocode::parse`] (ISO 3166-1 alpha-2 country and
/// 3 characters from `[A-Z2-9]`); the error says which part is wrong.
pub fn validate_locode(code: &str) -> Result<(), String> {
    UnLocode::parse(code).map(|_| ()).map_err(|e| e.to_string())
}

/// Validates an IMO ship identification number by the rule of [`Imo::parse`]: 7 digits. The
/// IMO check digit is not enforced: real feeds (the DCSA 3.0 sample among them) carry numbers
/// that fail it, and a wrong IMO is no reason to lose the event.
pub fn validate_imo(imo: &str) -> Result<(), String> {
    Imo::parse(imo).map(|_| ()).map_err(|e| e.to_string())
}

/// Container number (`field`, at `pointer`), by the rule of [`ContainerNumber::parse`]:
/// normalized; ISO 6346 shaped numbers must pass the check digit.
fn container(field: &Field<'_>, pointer: &str) -> Result<Option<String>, Problem> {
    let Some(raw) = field.text() else {
        return Ok(None);
    };
    ContainerNumber::parse(raw)
        .map(|n| Some(n.into_string()))
        .map_err(|e| Problem::new(pointer, e.to_string()))
}

/// The UN/LOCODE of the first of `fields` (each with its pointer) that has a string.
fn locode(fields: &[(&Field<'_>, &str)]) -> Result<Option<UnLocode>, Problem> {
    for (field, pointer) in fields {
        if let Some(code) = field.text() {
            return UnLocode::parse(code)
                .map(Some)
                .map_err(|e| Problem::new(pointer, e.to_string()));
        }
    }
    Ok(None)
}

/// An IMO number, when the field has a string.
fn imo(field: &Field<'_>, pointer: &str) -> Result<Option<Imo>, Problem> {
    match field.text() {
        None => Ok(None),
        Some(s) => Imo::parse(s)
            .map(Some)
            .map_err(|e| Problem::new(pointer, e.to_string())),
    }
}

/// Last check after parsing: the event must name something to attach it to.
fn finish(row: EventRow) -> Parsed {
    if !row.names_anything() {
        return Err(Problem::new(
            "",
            "event names no container (equipmentReference or EQ reference), bill of lading (TRD) or booking (BKG)",
        ));
    }
    Ok(row)
}

/// Applies one document reference (type code, value) to the row: a transport document
/// (`TRD`, `BOL`) joins its bills of lading, a booking (`BKG`, `CBR`) its bookings; each value
/// once, in the order the feed gives them.
fn apply_document(row: &mut EventRow, type_code: &str, value: &str) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    let set = match type_code {
        "TRD" | "BOL" => &mut row.bills_of_lading,
        "BKG" | "CBR" => &mut row.bookings,
        _ => return,
    };
    push_once(set, value.to_string());
}

/// Adds `value` to `set` unless it is already there (sets are small: a linear scan).
fn push_once(set: &mut Vec<String>, value: String) {
    if !set.contains(&value) {
        set.push(value);
    }
}

/// The DCSA 2.2 `references` of an event: every `EQ` reference joins the row's containers
/// (checked like `equipmentReference`), the other types (FF, SI, PO, CR, AAO) its references.
fn apply_references(e: &Event22<'_>, row: &mut EventRow) -> Result<(), Problem> {
    for (i, Nested(r)) in e.references.0.iter().enumerate() {
        match r.kind.text() {
            Some("EQ") => {
                // The pointer is written only for a refusal.
                let number = container(&r.value, "").map_err(|p| Problem {
                    pointer: format!("/references/{i}/referenceValue"),
                    reason: p.reason,
                })?;
                if let Some(c) = number {
                    push_once(&mut row.containers, c);
                }
            }
            Some(kind) => {
                if let Some(value) = r.value.text() {
                    let reference = EventReference {
                        kind: kind.to_string(),
                        value: value.to_string(),
                    };
                    if !row.references.contains(&reference) {
                        row.references.push(reference);
                    }
                }
            }
            None => {}
        }
    }
    Ok(())
}

/// Reads a DCSA 2.2 event from its tree: it must be an object with an `eventType` or an
/// `eventID`, and then its fields ([`Event22::of_tree`]) must pass [`rules_v22`].
fn parse_v22(e: &Tree<'_>, now: DateTime<Utc>) -> Parsed {
    if !e.is_object() {
        return Err(Problem::new(
            "",
            format!("event must be an object, found {}", json_kind(e)),
        ));
    }
    if at(e, "/eventType").is_none() && at(e, "/eventID").is_none() {
        // In key order, each once, whichever order the text gives them.
        let mut keys: Vec<&str> = e
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        keys.sort_unstable();
        keys.dedup();
        return Err(Problem::new(
            "",
            format!(
                "not a DCSA T&T 2.2 event: no eventType or eventID (found keys: {})",
                keys.join(", ")
            ),
        ));
    }
    rules_v22(&Event22::of_tree(e), now)
}

/// The DCSA 2.2 event `e` as an [`EventRow`], or the first rule it breaks (module docs). The
/// first problem of an event read by serde is not its answer: [`parse_v22`] reads its tree,
/// which may find a problem earlier.
fn rules_v22(e: &Event22<'_>, now: DateTime<Utc>) -> Parsed {
    let type_str = required(&e.event_type, "/eventType")?;
    let event_type = EventType::parse(type_str).ok_or_else(|| {
        Problem::new(
            "/eventType",
            format!("eventType {type_str:?} is not TRANSPORT, EQUIPMENT or SHIPMENT"),
        )
    })?;
    let classifier = classifier(&e.event_classifier_code, "/eventClassifierCode")?;
    let code = match event_type {
        EventType::Transport => code_in(
            &TRANSPORT_CODES,
            &e.transport_event_type_code,
            "/transportEventTypeCode",
        )?,
        EventType::Equipment => code_in(
            &EQUIPMENT_CODES,
            &e.equipment_event_type_code,
            "/equipmentEventTypeCode",
        )?,
        EventType::Shipment => code_in(
            &SHIPMENT_CODES,
            &e.shipment_event_type_code,
            "/shipmentEventTypeCode",
        )?,
    };
    let created_at = date_time(&e.event_created_date_time, "/eventCreatedDateTime")?;
    let event_at = date_time(&e.event_date_time, "/eventDateTime")?;
    if created_at > now + Duration::hours(CREATED_SKEW) {
        return Err(Problem::new(
            "/eventCreatedDateTime",
            format!("eventCreatedDateTime {created_at} lies in the future"),
        ));
    }
    if classifier == Classifier::Act && event_at > created_at + Duration::hours(CREATED_SKEW) {
        return Err(Problem::new(
            "/eventDateTime",
            format!("actual (ACT) event dated {event_at} is after its eventCreatedDateTime {created_at}"),
        ));
    }
    let event_id = required(&e.event_id, "/eventID")?;
    if uuid::Uuid::parse_str(event_id).is_err() {
        return Err(Problem::new(
            "/eventID",
            format!("eventID {event_id:?} is not a UUID (DCSA T&T 2.2 eventID has format uuid)"),
        ));
    }
    let (Nested(tc), Nested(place)) = (&e.transport_call, &e.event_location);
    let (Nested(vessel), Nested(tc_location)) = (&tc.vessel, &tc.location);
    let mut row = EventRow {
        event_id: event_id.to_string(),
        event_type,
        classifier,
        code,
        event_at,
        event_created_at: Some(created_at),
        containers: container(&e.equipment_reference, "/equipmentReference")?
            .into_iter()
            .collect(),
        bills_of_lading: Vec::new(),
        bookings: Vec::new(),
        references: Vec::new(),
        transport_call_id: string(&tc.transport_call_id),
        locode: locode(&[
            (&place.un_location_code, "/eventLocation/UNLocationCode"),
            (&tc.un_location_code, "/transportCall/UNLocationCode"),
            (
                &tc_location.un_location_code,
                "/transportCall/location/UNLocationCode",
            ),
        ])?,
        location_name: string(&place.location_name),
        facility_code: string(&place.facility_code).or_else(|| string(&tc.facility_code)),
        facility_type: facility_type(&[&place.facility_type_code, &tc.facility_type_code]),
        mode_of_transport: string(&tc.mode_of_transport),
        transport_call_sequence: tc.transport_call_sequence_number.int(),
        vessel_imo: imo(&vessel.imo_number, "/transportCall/vessel/vesselIMONumber")?,
        vessel_name: string(&vessel.name),
        export_voyage: string(&tc.export_voyage_number),
        import_voyage: string(&tc.import_voyage_number),
        carrier_scac: string(&vessel.operator_carrier_code),
        iso_equipment_code: string(&e.iso_equipment_code),
        empty: empty_indicator(&e.empty_indicator_code, "/emptyIndicatorCode")?,
        seal_number: string(&e.seals.0.number),
        delay_reason: string(&e.delay_reason_code),
        remark: string(&e.change_remark).or_else(|| string(&e.reason)),
    };
    for (i, Nested(r)) in e.document_references.0.iter().enumerate() {
        if let (Some(t), Some(v)) = (r.kind.text(), r.value.text()) {
            if !DOCUMENT_TYPE_CODES.contains(&t) {
                return Err(Problem::new(
                    &format!("/documentReferences/{i}/documentReferenceType"),
                    format!("document reference type {t:?} is not a DCSA document type code"),
                ));
            }
            apply_document(&mut row, t, v);
        }
    }
    if event_type == EventType::Shipment {
        let doc_type = code_in(
            &DOCUMENT_TYPE_CODES,
            &e.document_type_code,
            "/documentTypeCode",
        )?;
        let doc_id = required(&e.document_id, "/documentID")?;
        if row.code == "VOID" && doc_type != "TRD" {
            return Err(Problem::new(
                "/shipmentEventTypeCode",
                format!("shipment event VOID applies only to a transport document (TRD), not to {doc_type}"),
            ));
        }
        // The document an event is about names the shipment first.
        let set = match doc_type.as_str() {
            "TRD" | "BOL" => Some(&mut row.bills_of_lading),
            "BKG" | "CBR" => Some(&mut row.bookings),
            _ => None,
        };
        if let Some(set) = set {
            set.retain(|d| d != doc_id);
            set.insert(0, doc_id.to_string());
        }
    }
    apply_references(e, &mut row)?;
    finish(row)
}

/// The event classifier code (DCSA: ACT, EST, PLN, REQ).
fn classifier(field: &Field<'_>, pointer: &str) -> Result<Classifier, Problem> {
    let s = required(field, pointer)?;
    Classifier::parse(s).ok_or_else(|| {
        Problem::new(
            pointer,
            format!("eventClassifierCode {s:?} is not ACT, EST, PLN or REQ"),
        )
    })
}

/// The empty indicator code: `EMPTY` is empty, `LADEN` is not, nothing is unknown.
fn empty_indicator(field: &Field<'_>, pointer: &str) -> Result<Option<bool>, Problem> {
    match field.text() {
        None => Ok(None),
        Some("EMPTY") => Ok(Some(true)),
        Some("LADEN") => Ok(Some(false)),
        Some(other) => Err(Problem::new(
            pointer,
            format!("emptyIndicatorCode {other:?} is not EMPTY or LADEN"),
        )),
    }
}

/// Reads a DCSA 3.0 event from its tree (module docs).
fn parse_v30(e: &Tree<'_>, now: DateTime<Utc>) -> Parsed {
    if !e.is_object() {
        return Err(Problem::new(
            "",
            format!("event must be an object, found {}", json_kind(e)),
        ));
    }
    let f = |pointer: &str| Field::at(e, pointer);
    let id = f("/eventID");
    let event_id = required(&id, "/eventID")?;
    if event_id.len() > 100 {
        return Err(Problem::new(
            "/eventID",
            "eventID is longer than 100 characters",
        ));
    }
    let type_pointer = "/eventClassification/eventTypeCode";
    let type_field = f(type_pointer);
    let type_str = required(&type_field, type_pointer)?;
    if matches!(type_str, "IOT" | "REEFER") {
        let reason = format!(
            "{type_str} events are not used by teu (only TRANSPORT, EQUIPMENT and SHIPMENT)"
        );
        return Err(Problem::new(type_pointer, reason));
    }
    let event_type = EventType::parse(type_str).ok_or_else(|| {
        Problem::new(
            type_pointer,
            format!(
                "eventTypeCode {type_str:?} is not TRANSPORT, EQUIPMENT, SHIPMENT, IOT or REEFER"
            ),
        )
    })?;
    let classifier_pointer = "/eventClassification/eventClassifierCode";
    let classifier = classifier(&f(classifier_pointer), classifier_pointer)?;
    let (list, code_pointer) = match event_type {
        EventType::Transport => (
            &TRANSPORT_CODES[..],
            "/eventClassification/transportEventTypeCode",
        ),
        EventType::Equipment => (
            &EQUIPMENT_CODES[..],
            "/eventClassification/equipmentEventTypeCode",
        ),
        EventType::Shipment => (
            &SHIPMENT_CODES[..],
            "/eventClassification/shipmentEventTypeCode",
        ),
    };
    let code = code_in(list, &f(code_pointer), code_pointer)?;
    let tc = |name: &str| f(&format!("/transportDetails/transportCall{name}"));
    let routing = |name: &str| f(&format!("/eventRouting/originatingParty/{name}"));
    let imo_pointer = "/transportDetails/transportCall/vesselTransport/vesselIMONumber";
    let mut row = EventRow {
        event_id: event_id.to_string(),
        event_type,
        classifier,
        code,
        event_at: date_time(&f("/eventDateTime"), "/eventDateTime")?,
        event_created_at: optional_date_time(&f("/eventUpdatedDateTime"), "/eventUpdatedDateTime")?,
        containers: container(
            &f("/equipmentDetails/equipmentReference"),
            "/equipmentDetails/equipmentReference",
        )?
        .into_iter()
        .collect(),
        bills_of_lading: Vec::new(),
        bookings: Vec::new(),
        references: Vec::new(),
        transport_call_id: string(&tc("/transportCallReference")),
        locode: locode(&[(
            &f("/eventLocation/UNLocationCode"),
            "/eventLocation/UNLocationCode",
        )])?,
        location_name: string(&f("/eventLocation/locationName")),
        facility_code: string(&f("/eventLocation/facility/facilityCode")),
        facility_type: facility_type(&[
            &f("/eventLocation/facilityTypeCode"),
            &tc("/facilityTypeCode"),
        ]),
        mode_of_transport: string(&tc("/modeOfTransport")),
        transport_call_sequence: tc("/transportCallSequenceNumber").int(),
        vessel_imo: imo(&f(imo_pointer), imo_pointer)?,
        vessel_name: string(&tc("/vesselTransport/vesselName")),
        export_voyage: string(&tc("/exportVoyageNumberOrReference/carrierVoyageNumber")),
        import_voyage: string(&tc("/importVoyageNumberOrReference/carrierVoyageNumber")),
        carrier_scac: string(&routing("partyCode"))
            .filter(|_| routing("codeListProvider").text() == Some("NMFTA")),
        iso_equipment_code: string(&f("/equipmentDetails/ISOEquipmentCode")),
        empty: empty_indicator(
            &f("/equipmentDetails/emptyIndicatorCode"),
            "/equipmentDetails/emptyIndicatorCode",
        )?,
        seal_number: string(&f("/equipmentDetails/seals/0/number")),
        delay_reason: string(&f("/delayReason/delayReasonCode")),
        remark: string(&f("/changeRemark")),
    };
    if let (Some(t), Some(v)) = (
        str_at(e, "/shipmentDetails/documentReference/typeCode"),
        str_at(e, "/shipmentDetails/documentReference/reference"),
    ) {
        apply_document(&mut row, t, v);
    }
    if let Some(refs) =
        at(e, "/shipmentDetails/additionalDocumentReferences").and_then(Tree::as_array)
    {
        for r in refs {
            if let (Some(t), Some(v)) = (str_at(r, "/typeCode"), str_at(r, "/reference")) {
                apply_document(&mut row, t, v);
            }
        }
    }
    if let Some(updated) = row.event_created_at {
        if updated > now + Duration::hours(CREATED_SKEW) {
            return Err(Problem::new(
                "/eventUpdatedDateTime",
                format!("eventUpdatedDateTime {updated} lies in the future"),
            ));
        }
    }
    finish(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> FeedBatch {
        let path = format!("{}/../data/dcsa/{name}", env!("CARGO_MANIFEST_DIR"));
        crate::read_file(std::path::Path::new(&path)).expect(name)
    }

    /// [`compact_json`] drops the whitespace between tokens and nothing inside strings: an
    /// escaped quote does not end a string, an escaped backslash before a quote does.
    #[test]
    fn compact_json_keeps_strings_as_written() {
        let cases = [
            (
                "{ \"a\" : [ 1 , 2.50 ],\n\t\"b c\": \"x  y\\\" z\" }",
                r#"{"a":[1,2.50],"b c":"x  y\" z"}"#,
            ),
            (
                "{\"k\": \"a\\\\\" , \"j\" :\r\n null}",
                r#"{"k":"a\\","j":null}"#,
            ),
            (" [ \"Ålesund  ø\" ,true ] ", r#"["Ålesund  ø",true]"#),
            ("{}", "{}"),
        ];
        for (text, want) in cases {
            assert_eq!(compact_json(text), want, "{text:?}");
            let value = |t: &str| serde_json::from_str::<Value>(t).expect(t);
            assert_eq!(value(&compact_json(text)), value(text));
        }
    }

    /// Any JSON value up to four levels deep: nulls, booleans, integers, finite floats and
    /// strings holding spaces, quotes, backslashes, control characters, JSON's own punctuation
    /// and characters outside ASCII; arrays and objects of up to five members.
    fn json_values() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let text = || {
            proptest::string::string_regex("[ a-z\"\\\\\t\n\r\u{e5}\u{4e2d}:,{}\\[\\]]{0,12}")
                .expect("regex")
        };
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map(text(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Any JSON value written out pretty (`serde_json::to_string_pretty`: newlines and
    /// indentation between every token) compacts to the value written out plain (the same
    /// members in the same order), whatever its strings hold: spaces, quotes, backslashes,
    /// control characters, characters outside ASCII.
    #[test]
    fn compact_json_of_pretty_json_is_plain_json() {
        use proptest::prelude::*;
        proptest!(|(value in json_values())| {
            let pretty = serde_json::to_string_pretty(&value).expect("pretty");
            let plain = serde_json::to_string(&value).expect("plain");
            prop_assert_eq!(compact_json(&pretty), plain.clone());
            prop_assert_eq!(compact_json(&plain), plain);
        });
    }

    /// Whitespace put anywhere a JSON text stays the same value (between two tokens, as
    /// `serde_json` judges it) touches a structural character or an end of the text, so
    /// [`touches_structure`] finds it and the text is scanned; plain JSON whose strings hold
    /// spaces only between other characters is copied without a scan.
    #[test]
    fn whitespace_between_tokens_touches_structure() {
        use proptest::prelude::*;
        let (between, all) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        proptest!(|(value in json_values(), at in 0.0..=1.0f64, gap in "[ \t\r\n]{1,3}")| {
            let plain = serde_json::to_string(&value).expect("plain");
            let p = (plain.len() as f64 * at) as usize;
            prop_assume!(plain.is_char_boundary(p));
            all.set(all.get() + 1);
            let spaced = format!("{}{gap}{}", &plain[..p], &plain[p..]);
            if serde_json::from_str::<Value>(&spaced).ok().as_ref() == Some(&value) {
                between.set(between.get() + 1);
                prop_assert!(touches_structure(&spaced), "{:?}", spaced);
                prop_assert_eq!(compact_json(&spaced), plain);
            }
        });
        assert!(
            between.get() * 5 > all.get(),
            "{} of {}",
            between.get(),
            all.get()
        );
        let event = r#"{"vesselName":"King of the Seas","n":[1,2],"o":{"a":null}}"#;
        assert!(!touches_structure(event));
        assert_eq!(compact_json(event), event);
        for spaced in [
            r#"{"a": 1}"#,
            r#"{"a" :1}"#,
            r#"[1 ,2]"#,
            r#"[1, 2]"#,
            "{\"a\":1\n}",
            " 1",
            "1\t",
            r#"{"a":"x, y"}"#,
        ] {
            assert!(touches_structure(spaced), "{spaced:?}");
        }
    }

    /// Reading the text event by event ([`read_json_at`]) gives what reading its whole tree
    /// ([`read_value_at`]) gives, for every real DCSA file: the same events, rows and payloads
    /// (the same JSON value: the text keeps its members in the order written, the tree in key
    /// order), the same refusals with the same pointers, or the same error.
    #[test]
    fn reading_event_by_event_matches_the_whole_tree() {
        let now = "2026-11-27T00:00:00Z"
            .parse::<DateTime<Utc>>()
            .expect("time");
        let mut files: Vec<_> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/dcsa"))
                .expect("data/dcsa")
                .map(|e| e.expect("entry").path())
                .collect();
        files.sort();
        assert!(files.len() >= 7);
        let (mut events, mut refused) = (0, 0);
        for path in &files {
            let bytes = std::fs::read(path).expect("file");
            let name = path.display().to_string();
            let tree = match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => read_value_at(v, &name, now).map_err(|e| e.to_string()),
                Err(e) => Err(FeedError::Json {
                    source_file: name.clone(),
                    line: e.line(),
                    column: e.column(),
                    message: e.to_string(),
                }
                .to_string()),
            };
            let one_by_one = read_json_at(&bytes, &name, now).map_err(|e| e.to_string());
            match (tree, one_by_one) {
                (Ok(a), Ok(b)) => {
                    assert_eq!((a.format, a.rows_read), (b.format, b.rows_read), "{name}");
                    assert_eq!(a.events.len(), b.events.len(), "{name}");
                    let value = |text: &str| serde_json::from_str::<Value>(text).expect("payload");
                    for (x, y) in a.events.iter().zip(&b.events) {
                        assert_eq!(
                            (x.index, &x.row, value(&x.raw)),
                            (y.index, &y.row, value(&y.raw)),
                            "{name}"
                        );
                        assert_eq!(y.raw, compact_json(&y.raw), "{name}: compact");
                    }
                    let refusal = |q: &Quarantined| {
                        let payload = q.payload.as_deref().map(value);
                        (q.index, q.pointer.clone(), q.reason.clone(), payload)
                    };
                    assert_eq!(
                        a.quarantined.iter().map(refusal).collect::<Vec<_>>(),
                        b.quarantined.iter().map(refusal).collect::<Vec<_>>(),
                        "{name}"
                    );
                    (events, refused) = (events + b.events.len(), refused + b.quarantined.len());
                }
                (a, b) => assert_eq!(a.err(), b.err(), "{name}"),
            }
        }
        assert!(
            events > 10 && refused > 10,
            "{events} events, {refused} refused"
        );
        // Not a document: the line and column of bad JSON, and an object without events.
        let bad = b"[{\"eventID\": \"a\"},\n {\"eventID\": 1,}]";
        let want = serde_json::from_slice::<Value>(bad).unwrap_err();
        match read_json_at(bad, "bad.json", now) {
            Err(FeedError::Json { line, column, .. }) => {
                assert_eq!((line, column), (want.line(), want.column()));
                assert_eq!(line, 2);
            }
            other => panic!("{other:?}"),
        }
        let err = read_json_at(br#"{"events": {"a": 1}}"#, "obj.json", now).unwrap_err();
        assert!(matches!(err, FeedError::UnknownFormat { .. }), "{err}");
    }

    /// The members of an array as the two-pass reader splits them (`RawValue` slices, each
    /// parsed into a tree; null when it cannot be), or `None` when the text is not an array.
    fn split_checked(text: &str) -> Option<Vec<(Tree<'_>, &str)>> {
        let raws: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).ok()?;
        Some(
            raws.into_iter()
                .map(|raw| {
                    let tree = serde_json::from_str(raw.get()).unwrap_or(Tree::Null);
                    (tree, raw.get())
                })
                .collect(),
        )
    }

    /// The one-pass members ([`Members`]) of a list, as trees, or `None` when it stops
    /// anywhere.
    fn split_once(text: &str) -> Option<Vec<(Tree<'_>, &str)>> {
        Members::of_array(text, false)?
            .map(|m| match m {
                Ok((Member::Tree(tree), raw)) => Ok((tree, raw)),
                _ => Err(Unchecked),
            })
            .collect::<Result<Vec<_>, _>>()
            .ok()
    }

    /// [`Members`] gives each member's tree and text exactly as the two-pass split does, for any
    /// array of JSON values written plain or pretty (whitespace and newlines between every
    /// token), and for lists with whitespace around them or none at all.
    #[test]
    fn members_are_the_checked_split() {
        use proptest::prelude::*;
        proptest!(|(items in proptest::collection::vec(json_values(), 0..8), pad in "[ \t\r\n]{0,3}")| {
            let list = Value::Array(items);
            for text in [
                serde_json::to_string(&list).expect("plain"),
                serde_json::to_string_pretty(&list).expect("pretty"),
                format!("{pad}{}{pad}", serde_json::to_string_pretty(&list).expect("pretty")),
            ] {
                let once = split_once(&text);
                prop_assert!(once.is_some(), "{}", text);
                prop_assert_eq!(once, split_checked(&text));
            }
        });
    }

    /// A member too deeply nested for a tree is null in both readers; text that is not a
    /// well-formed list stops [`Members`] (the checking reader then says where), and lists
    /// that are fine outside the members (whitespace anywhere between tokens) do not.
    #[test]
    fn members_stop_where_the_list_is_not_json() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let text = format!("[ {{\"a\": 1}} ,\n{deep} ]");
        let once = split_once(&text).expect("a list");
        assert_eq!(once, split_checked(&text).expect("a list"));
        assert_eq!(once[1], (Tree::Null, deep.as_str()));
        for fine in ["[]", " [ ] ", "[1]", "\n[\n1\n,\t2 ]\r\n", "[\"]\", \",\"]"] {
            assert_eq!(split_once(fine), split_checked(fine), "{fine:?}");
            assert!(split_once(fine).is_some(), "{fine:?}");
        }
        for broken in [
            "",
            "[",
            "[1",
            "[1,",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[1]]",
            "[1] x",
            "[{\"a\":}]",
            "[\"open]",
            "{}",
            "[1]\n[2]",
            "[tru]",
            "[1,,2]",
        ] {
            assert_eq!(split_once(broken), None, "{broken:?}");
            assert_eq!(split_checked(broken), None, "{broken:?}");
        }
        // A whole document that stops is read by the checking reader: the same error.
        let now = Utc::now();
        let bad = b"[{\"eventID\": \"a\"},\n {\"eventID\": 1}}]";
        let want = serde_json::from_slice::<Value>(bad).unwrap_err();
        match read_json_at(bad, "bad.json", now) {
            Err(FeedError::Json { line, column, .. }) => {
                assert_eq!((line, column), (want.line(), want.column()));
            }
            other => panic!("{other:?}"),
        }
    }

    /// Every event of the real DCSA 2.2 sample is read by serde as its fields, none through
    /// its tree; the 3.0 sample's events are trees.
    #[test]
    fn the_real_samples_are_read_the_fast_way() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/dcsa");
        for (name, format, events, fields) in [
            ("tnt-220-response.json", FeedFormat::DcsaTnt22, 7, true),
            ("tnt-300-response.json", FeedFormat::DcsaTnt30, 5, false),
        ] {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).expect(name);
            let (found, members, _) = Members::of_document(&text).expect(name);
            assert_eq!(found, format, "{name}");
            let members: Vec<_> = members.collect::<Result<_, _>>().expect(name);
            assert_eq!(members.len(), events, "{name}");
            for (member, _) in &members {
                assert_eq!(matches!(member, Member::Fields(_)), fields, "{name}");
            }
        }
    }

    #[test]
    fn reads_the_real_22_sample_completely() {
        let b = read("tnt-220-response.json");
        assert_eq!(b.format, FeedFormat::DcsaTnt22);
        assert_eq!(b.rows_read, 7);
        assert!(b.quarantined.is_empty(), "{:?}", b.quarantined);
        let first = &b.events[0].row;
        assert_eq!(first.code, "ARRI");
        assert_eq!(first.event_at.to_rfc3339(), "2021-01-09T13:12:56+00:00");
        assert_eq!(first.locode.as_deref(), Some("FRPAR"));
        assert_eq!(first.vessel_imo.as_deref(), Some("9321483"));
        assert_eq!(first.bills_of_lading, vec!["reserved-HHL123".to_string()]);
        assert_eq!(first.bookings, vec!["ABC123123123".to_string()]);
        assert_eq!(first.containers, vec!["APZU4812090".to_string()]);
        assert_eq!(first.facility_type.as_deref(), Some("POTE"));
        assert!(b.events.iter().all(|e| e.row.containers == ["APZU4812090"]));
    }

    #[test]
    fn an_event_names_every_container_and_document_it_references() {
        // The 2.2 sample's first event (a vessel arrival) with two more EQ references, a
        // repeated one, a second TRD and a booking given twice: DCSA 2.2 `references` and
        // `documentReferences` are arrays, and the event applies to each entry.
        let path = format!(
            "{}/../data/dcsa/tnt-220-response.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut events: Value = serde_json::from_str(&text).unwrap();
        let e = &mut events[0];
        let refs = e["references"].as_array_mut().unwrap();
        refs.push(serde_json::json!({"referenceType": "EQ", "referenceValue": "MSKU2935385"}));
        refs.push(serde_json::json!({"referenceType": "EQ", "referenceValue": "msku 351781 5"}));
        refs.push(serde_json::json!({"referenceType": "EQ", "referenceValue": "MSKU2935385"}));
        refs.push(serde_json::json!({"referenceType": "PO", "referenceValue": " PO-77 "}));
        let docs = e["documentReferences"].as_array_mut().unwrap();
        docs.push(serde_json::json!({"documentReferenceType": "TRD", "documentReferenceValue": "MAEU463986809"}));
        docs.push(serde_json::json!({"documentReferenceType": "BKG", "documentReferenceValue": "ABC123123123"}));
        let batch = read_value_at(Value::Array(vec![e.clone()]), "multi.json", Utc::now()).unwrap();
        assert!(batch.quarantined.is_empty(), "{:?}", batch.quarantined);
        let row = &batch.events[0].row;
        assert_eq!(
            row.containers,
            ["APZU4812090", "MSKU2935385", "MSKU3517815"]
        );
        assert_eq!(row.bills_of_lading, ["reserved-HHL123", "MAEU463986809"]);
        assert_eq!(row.bookings, ["ABC123123123"]);
        assert_eq!(
            row.transport_call_id.as_deref(),
            Some("123e4567-e89b-12d3-a456-426614174000")
        );
        let kinds: Vec<(&str, &str)> = row
            .references
            .iter()
            .map(|r| (r.kind.as_str(), r.value.as_str()))
            .collect();
        assert_eq!(kinds, [("FF", "string"), ("PO", "PO-77")]);

        // A bad check digit in the second EQ reference quarantines the event with its pointer.
        let refs = e["references"].as_array_mut().unwrap();
        refs.push(serde_json::json!({"referenceType": "EQ", "referenceValue": "MSKU2935386"}));
        let batch = read_value_at(Value::Array(vec![e.clone()]), "multi.json", Utc::now()).unwrap();
        assert_eq!(batch.quarantined.len(), 1);
        assert_eq!(
            batch.quarantined[0].pointer,
            "/0/references/6/referenceValue"
        );
    }

    #[test]
    fn stored_bodies_with_one_container_read_back_as_sets() {
        let old = r#"{"event_id":"e1","event_type":"TRANSPORT","classifier":"ACT","code":"ARRI",
            "event_at":"2021-01-09T13:12:56Z","container_number":"APZU4812090",
            "bill_of_lading":"B1","booking":"K1"}"#;
        let row: EventRow = serde_json::from_str(old).unwrap();
        assert_eq!(row.containers, ["APZU4812090"]);
        assert_eq!(row.bills_of_lading, ["B1"]);
        assert_eq!(row.bookings, ["K1"]);
        let again: EventRow = serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
        assert_eq!(again, row);
    }

    /// `at` finds what serde_json's `Value::pointer` finds, for pointers of every shape the
    /// reader could be given: the whole value, empty tokens, array indexes, misses.
    #[test]
    fn pointers_find_what_serde_json_finds() {
        let value: Value = serde_json::from_str(
            r#"{"a":{"b":{"c":"deep"},"":{"x":1}},"arr":[{"k":"v0"},{"k":"v1"}],"":"empty","s":"t"}"#,
        )
        .unwrap();
        let tree = Tree::from(&value);
        for pointer in [
            "",
            "/",
            "/a",
            "/a/b",
            "/a/b/c",
            "/a//x",
            "/arr",
            "/arr/0/k",
            "/arr/1/k",
            "/arr/2",
            "/arr/x",
            "/s",
            "/s/t",
            "/missing",
            "/a/b/c/d",
            "/arr/1/k/",
        ] {
            let ours = at(&tree, pointer).map(|t| serde_json::Value::from(t.clone()));
            assert_eq!(ours.as_ref(), value.pointer(pointer), "{pointer:?}");
        }
        // Text before the first `/` is not a token, as `str::split` then `skip(1)` read it.
        assert_eq!(
            at(&tree, "s").map(|t| serde_json::Value::from(t.clone())),
            Some(value.clone())
        );
        assert!(at(&tree, "x/s").is_some_and(|t| t.as_str() == Some("t")));
    }

    #[test]
    fn wrong_files_quarantine_each_bad_event_with_a_pointer() {
        let b = read("tnt-220-response-wrong-date-times.json");
        assert_eq!(b.rows_read, 7);
        let reasons: Vec<(String, String)> = b
            .quarantined
            .iter()
            .map(|q| (q.pointer.clone(), q.reason.clone()))
            .collect();
        assert_eq!(b.quarantined.len(), 7, "{reasons:?}");
        let expect = [
            ("/0/eventID", "eventID is missing"),
            ("/1/eventCreatedDateTime", "eventCreatedDateTime is missing"),
            ("/2/eventDateTime", "eventDateTime is missing"),
            ("/3/eventCreatedDateTime", "not an RFC 3339 date-time"),
            ("/4/eventDateTime", "not an RFC 3339 date-time"),
            ("/5/eventDateTime", "after its eventCreatedDateTime"),
            ("/6/eventCreatedDateTime", "lies in the future"),
        ];
        for ((p, r), (ep, er)) in reasons.iter().zip(expect) {
            assert_eq!(p, ep);
            assert!(r.contains(er), "{p}: {r}");
        }

        let b = read("tnt-220-response-wrong-event-ids.json");
        let by_index: Vec<usize> = b.quarantined.iter().filter_map(|q| q.index).collect();
        // 0: a number, 1: not a UUID, 3 and 6: duplicates of 2 and 5.
        assert_eq!(by_index, vec![0, 1, 3, 6], "{:?}", b.quarantined);
        assert!(b.quarantined[0]
            .reason
            .contains("must be a string, found a number"));
        assert!(b.quarantined[2].reason.contains("duplicate eventID"));
        assert_eq!(b.events.len(), 3);

        let b = read("tnt-220-response-wrong-structure.json");
        assert_eq!((b.rows_read, b.quarantined.len()), (2, 2));
        assert!(b.quarantined[0].reason.contains("someEvents"));

        let b = read("tnt-220-response-wrong-attribute-values.json");
        assert_eq!(b.events.len(), 0);
        let q: Vec<&str> = b.quarantined.iter().map(|q| q.pointer.as_str()).collect();
        assert_eq!(
            q,
            vec![
                "/0/eventID",
                "/1/shipmentEventTypeCode",
                "/2/equipmentReference"
            ]
        );
    }

    #[test]
    fn date_time_rules() {
        let now = DateTime::parse_from_rfc3339("2026-11-21T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let base = serde_json::json!({
            "eventID": "3cecb101-7a1a-43a4-9d62-e88a131651e3",
            "eventCreatedDateTime": "2021-01-01T14:12:56Z",
            "eventType": "SHIPMENT", "eventClassifierCode": "ACT",
            "eventDateTime": "2019-11-12T07:41:00+08:30",
            "shipmentEventTypeCode": "DRFT", "documentID": "HHL123", "documentTypeCode": "TRD"
        });
        let mut future = base.clone();
        future["eventCreatedDateTime"] = "2099-01-01T14:12:56Z".into();
        let mut before = base.clone();
        before["eventCreatedDateTime"] = "1999-01-01T14:12:56Z".into();
        let mut bad = base.clone();
        bad["eventDateTime"] = "2019/11/12 07:41:00 +08:30".into();
        let b = read_value_at(
            serde_json::json!([base, future, before, bad]),
            "t.json",
            now,
        )
        .unwrap();
        assert_eq!(b.events.len(), 1);
        let r: Vec<&str> = b.quarantined.iter().map(|q| q.reason.as_str()).collect();
        assert!(r[0].contains("future"), "{r:?}");
        assert!(r[1].contains("after its eventCreatedDateTime"), "{r:?}");
        assert!(r[2].contains("not an RFC 3339"), "{r:?}");
        assert_eq!(b.quarantined[2].pointer, "/3/eventDateTime");
    }

    #[test]
    fn reads_the_real_30_samples() {
        let b = read("tnt-300-response.json");
        assert_eq!(b.format, FeedFormat::DcsaTnt30);
        assert_eq!((b.rows_read, b.events.len()), (5, 3));
        assert!(b
            .quarantined
            .iter()
            .all(|q| q.reason.contains("not used by teu")));
        let depa = &b.events[1].row;
        assert_eq!(depa.code, "DEPA");
        assert_eq!(depa.vessel_imo.as_deref(), Some("7654321"));
        assert_eq!(depa.bill_of_lading(), Some("HHL71800000"));
        assert_eq!(depa.booking(), Some("ABC709951"));
        assert_eq!(depa.export_voyage.as_deref(), Some("V002E"));
        assert_eq!(depa.facility_type.as_deref(), Some("POTE"));
        // The next page's equipment event happens at an off-dock yard (DCSA `OFFD`).
        let next = read("tnt-300-response-nextpage.json");
        let off_dock = next
            .events
            .iter()
            .find(|e| e.row.event_id == "evt-resp-equip-002")
            .expect("the sample's equipment event");
        assert_eq!(off_dock.row.facility_type.as_deref(), Some("OFFD"));
    }

    #[test]
    fn locode_and_imo_rules() {
        assert!(validate_locode("NLRTM").is_ok());
        assert!(validate_locode("XYABC").unwrap_err().contains("ISO 3166"));
        assert!(validate_locode("NLRT1").is_err());
        assert!(validate_imo("9321483").is_ok());
        assert!(validate_imo("932148").is_err());
        assert!(validate_imo("93214A3").is_err());
    }
}
