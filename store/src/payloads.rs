//! How the store keeps its JSON text: `transport_events.payload` (a carrier's original text),
//! `transport_events.body` (the normalized event, JSON of [`teu_domain::model::EventRow`]), and
//! `containers.body` and `shipments.body` (the derived records), and the rows and readings of
//! `terminal_checks` and `line_deadlines`, each a zstd frame compressed with a bundled dictionary
//! of its own ([`RAW_PAYLOADS`], [`EVENT_BODIES`], [`CONTAINER_BODIES`], [`SHIPMENT_BODIES`],
//! [`TERMINAL_CHECKS`], [`LINE_DEADLINES`]; issue 16, "raw carrier payloads compressed",
//! "compact storage").
//!
//! A raw event is about 900 bytes of DCSA JSON whose field names and code values repeat in every
//! event; compressed alone, zstd halves it (no history to match against), with a dictionary
//! trained on DCSA events it shrinks about six times (926 → 158 bytes on average at 5,000
//! simulated containers; the real examples of `data/dcsa` 845 → 323). The dictionaries are
//! trained by `scripts/dictionary.sh` and never change once released: each frame names its
//! dictionary id in its header (RFC 8878, section 3.1.1.1.3), so a payload written with an older
//! dictionary still reads after a newer one is added.
//!
//! A normalized body is about 550 bytes of JSON with the same field names in every event; its
//! own dictionary (trained on bodies, not on carrier text) takes it to about a quarter.
//!
//! A derived container is about 1,560 bytes of JSON and a shipment about 1,250 (5,000 simulated
//! containers); with dictionaries trained on each, about a seventh (migration 32). A terminal
//! check keeps its original row (about 190 bytes) and its reading (350), a line deadline the
//! same, each table both columns with one dictionary of its own ([`TERMINAL_CHECKS`],
//! [`LINE_DEADLINES`], migration 32).
//!
//! Rows written before compression (raw payloads before migration 19, event bodies before
//! migration 23, record bodies and facts before migration 32) hold the text itself: `UTF-8`
//! bytes that never begin with the zstd magic number (`28 B5 2F FD`: `0xB5` cannot follow `(`
//! in UTF-8).

use std::cell::RefCell;
use std::io;
use std::sync::OnceLock;

use zstd::dict::{DecoderDictionary, EncoderDictionary};

use teu_domain::model::EventRow;

/// zstd level of new payloads: zstd's default, fast enough not to show in the store stage.
const LEVEL: i32 = 3;

/// The magic number that begins every zstd frame (RFC 8878, section 3.1.1), little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// What a column's stored frames are compressed with: the dictionary new values get, and every
/// dictionary a stored value may name. Dictionary ids are unique across codecs, so a frame
/// given to the wrong codec is refused rather than misread.
pub struct Codec {
    /// What the column holds, for error messages.
    what: &'static str,
    /// The dictionary new values are compressed with: `(id, bytes)`.
    current: (u32, &'static [u8]),
    /// Every dictionary a stored value may name, by id (the current one included).
    all: &'static [(u32, &'static [u8])],
    /// `current`, prepared for compression once per process.
    encoding: OnceLock<EncoderDictionary<'static>>,
    /// `all`, prepared for decompression once per process.
    decoding: OnceLock<Vec<(u32, DecoderDictionary<'static>)>>,
}

const RAW_1: (u32, &[u8]) = (1, include_bytes!("../dictionaries/raw-events-1.zdict"));
const BODIES_101: (u32, &[u8]) = (
    101,
    include_bytes!("../dictionaries/event-bodies-101.zdict"),
);

const EVENTS_601: (u32, &[u8]) = (
    601,
    include_bytes!("../dictionaries/stored-events-601.zdict"),
);

const CONTAINERS_201: (u32, &[u8]) = (
    201,
    include_bytes!("../dictionaries/container-bodies-201.zdict"),
);
const SHIPMENTS_301: (u32, &[u8]) = (
    301,
    include_bytes!("../dictionaries/shipment-bodies-301.zdict"),
);
const CHECKS_401: (u32, &[u8]) = (
    401,
    include_bytes!("../dictionaries/terminal-checks-401.zdict"),
);
const DEADLINES_501: (u32, &[u8]) = (
    501,
    include_bytes!("../dictionaries/line-deadlines-501.zdict"),
);

/// `transport_events.payload`: carriers' original text (`scripts/dictionary.sh raw N`, ids 1–100).
pub static RAW_PAYLOADS: Codec = Codec {
    what: "raw event payload",
    current: RAW_1,
    all: &[RAW_1],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `transport_events.body`: normalized events as JSON (`scripts/dictionary.sh bodies N`, ids
/// 101 to 200).
pub static EVENT_BODIES: Codec = Codec {
    what: "transport event body",
    current: BODIES_101,
    all: &[BODIES_101],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `transport_events.body` in the one-frame layout: the normalized event's JSON, a newline, and
/// the carrier's payload text, in one frame (`scripts/dictionary.sh events N`, ids 601 to 700).
/// It came without a schema migration: the dictionary a row's `body` frame names tells its
/// layout ([`decode_event`]), so rows written before keep theirs until they are replaced. The
/// payload repeats much of the body (ids, times, codes, references), which one frame matches
/// against: 295 bytes as two frames, about 220 as one (5,000 simulated containers). JSON
/// written by `serde_json` has no raw newline, so the first one ends the body.
pub static EVENTS: Codec = Codec {
    what: "stored event",
    current: EVENTS_601,
    all: &[EVENTS_601],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `containers.body`: derived containers as JSON (`scripts/dictionary.sh containers N`, ids 201
/// to 300; migration 32).
pub static CONTAINER_BODIES: Codec = Codec {
    what: "container body",
    current: CONTAINERS_201,
    all: &[CONTAINERS_201],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `shipments.body`: derived shipments as JSON (`scripts/dictionary.sh shipments N`, ids 301 to
/// 400; migration 32).
pub static SHIPMENT_BODIES: Codec = Codec {
    what: "shipment body",
    current: SHIPMENTS_301,
    all: &[SHIPMENTS_301],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `terminal_checks.raw` and `terminal_checks.body`: a terminal availability check's original
/// row and its reading as JSON (`scripts/dictionary.sh checks N`, ids 401 to 500; migration
/// 32).
pub static TERMINAL_CHECKS: Codec = Codec {
    what: "terminal check",
    current: CHECKS_401,
    all: &[CHECKS_401],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

/// `line_deadlines.raw` and `line_deadlines.body`: a shipping line's deadline row and its
/// reading as JSON (`scripts/dictionary.sh deadlines N`, ids 501 to 600; migration 32).
pub static LINE_DEADLINES: Codec = Codec {
    what: "line deadline",
    current: DEADLINES_501,
    all: &[DEADLINES_501],
    encoding: OnceLock::new(),
    decoding: OnceLock::new(),
};

thread_local! {
    /// One decompression context per thread, pointed at the frame's prepared dictionary on
    /// each call (a fresh context per value cost more than decompressing it).
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// Compresses values of one column with its codec's current dictionary. Build one per batch:
/// loading the dictionary costs more than compressing one value.
///
/// Each value is compressed into one scratch buffer kept by the encoder and copied out at its
/// own length: a frame from zstd's `compress` keeps the capacity of the input's compression
/// bound (about 1.5 KB for a 200-byte event frame), which an ingest holds, page by page, from
/// the read until the store (docs/NOTES.md, forty-sixth and forty-seventh sessions).
pub(crate) struct Encoder {
    compressor: zstd::bulk::Compressor<'static>,
    /// Where zstd writes each frame before it is copied out.
    frame: Vec<u8>,
    /// Where [`Encoder::encode_joined`] joins a body and its payload.
    text: Vec<u8>,
}

impl Encoder {
    /// An encoder with `codec`'s current dictionary.
    ///
    /// # Errors
    /// An [`io::Error`] when zstd refuses the bundled dictionary (a corrupt build).
    pub(crate) fn new(codec: &'static Codec) -> io::Result<Self> {
        let dictionary = codec
            .encoding
            .get_or_init(|| EncoderDictionary::copy(codec.current.1, LEVEL));
        Ok(Self {
            compressor: zstd::bulk::Compressor::with_prepared_dictionary(dictionary)?,
            frame: Vec::new(),
            text: Vec::new(),
        })
    }

    /// The stored form of `text`: one zstd frame naming the current dictionary, allocated at
    /// its own length.
    ///
    /// # Errors
    /// An [`io::Error`] from zstd (out of memory).
    pub(crate) fn encode(&mut self, text: &str) -> io::Result<Vec<u8>> {
        Self::compress(&mut self.compressor, &mut self.frame, text.as_bytes())
    }

    fn compress(
        compressor: &mut zstd::bulk::Compressor<'static>,
        frame: &mut Vec<u8>,
        source: &[u8],
    ) -> io::Result<Vec<u8>> {
        frame.clear();
        frame.reserve(zstd::zstd_safe::compress_bound(source.len()));
        compressor.compress_to_buffer(source, frame)?;
        Ok(frame.as_slice().to_vec())
    }

    /// The stored form of a body written by `write_body`, followed, when `payload` is given,
    /// by a newline and the payload (the one-frame layout of [`EVENTS`]): both written into
    /// the encoder's own buffer, not into a string of their own.
    ///
    /// # Errors
    /// An [`io::Error`] from zstd (out of memory).
    fn encode_joined(
        &mut self,
        write_body: impl FnOnce(&mut Vec<u8>),
        payload: Option<&str>,
    ) -> io::Result<Vec<u8>> {
        self.text.clear();
        write_body(&mut self.text);
        if let Some(payload) = payload {
            self.text.push(b'\n');
            self.text.extend_from_slice(payload.as_bytes());
        }
        Self::compress(&mut self.compressor, &mut self.frame, &self.text)
    }
}

/// An event in its stored form: one zstd frame of [`EVENTS`] holding its normalized body and its
/// carrier's payload (the one-frame layout), made by [`encode_events`] before the store is touched,
/// so a caller can make it on another thread (`teu ingest` does, while the file before is stored)
/// and hand it in with the event ([`crate::NewEvent::forms`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventForms {
    /// `transport_events.body`: the frame of [`encode_event`].
    pub(crate) stored: Vec<u8>,
}

/// The stored forms of events given as (carrier payload text, normalized event): one encoder
/// for the whole list (loading a dictionary costs more than compressing a value). Each event's
/// body is its JSON as `serde_json` writes it, written by `teu_domain::json` ([`EventRow`]'s
/// serialization cannot fail: it holds strings, numbers and nulls; were it to, the body would
/// be empty, as before).
///
/// # Errors
/// An [`io::Error`] from zstd (a corrupt bundled dictionary, out of memory).
pub fn encode_events<'a>(
    events: impl IntoIterator<Item = (&'a str, &'a EventRow)>,
) -> io::Result<Vec<EventForms>> {
    let mut encoder = Encoder::new(&EVENTS)?;
    events
        .into_iter()
        .map(|(raw, event)| {
            let stored = encoder.encode_joined(
                |text| {
                    if teu_domain::json::write(text, event).is_err() {
                        text.clear();
                    }
                },
                Some(raw),
            )?;
            Ok(EventForms { stored })
        })
        .collect()
}

/// The stored form of an event (`encoder` of [`EVENTS`]): its normalized `body` (JSON on one
/// line), then, when the carrier's `payload` is known, a newline and the payload.
///
/// # Errors
/// An [`io::Error`] from zstd (out of memory).
pub(crate) fn encode_event(
    encoder: &mut Encoder,
    body: &str,
    payload: Option<&str>,
) -> io::Result<Vec<u8>> {
    encoder.encode_joined(|text| text.extend_from_slice(body.as_bytes()), payload)
}

/// A `transport_events` row's normalized body and carrier payload, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The normalized event: JSON of [`EventRow`].
    pub body: String,
    /// The carrier's original text, when one was stored.
    pub payload: Option<String>,
}

/// Decodes a `transport_events` row from its `body` and `payload` columns, as either layout stored
/// them: in the one-frame layout `body` is a frame of [`EVENTS`] holding both and `payload` is
/// NULL; before, `body` is a frame of [`EVENT_BODIES`] (or, before migration 23, the text) and
/// `payload` a frame of [`RAW_PAYLOADS`] (or the text; NULL when none was kept).
///
/// # Errors
/// A message saying which column is wrong and how ([`Codec::decode`]).
pub fn decode_event(body: &[u8], payload: Option<&[u8]>) -> Result<StoredEvent, String> {
    if EVENTS.names(body) {
        let mut text = EVENTS.decode(body)?;
        let payload = text.find('\n').map(|at| {
            let payload = text[at + 1..].to_string();
            text.truncate(at);
            payload
        });
        return Ok(StoredEvent {
            body: text,
            payload,
        });
    }
    Ok(StoredEvent {
        body: EVENT_BODIES.decode(body)?,
        payload: payload.map(|p| RAW_PAYLOADS.decode(p)).transpose()?,
    })
}

/// The normalized body of a stored event (the `body` column, in either layout of
/// [`decode_event`]), without keeping its payload.
///
/// # Errors
/// As [`decode_event`].
pub fn decode_event_body(body: &[u8]) -> Result<String, String> {
    if EVENTS.names(body) {
        let mut text = EVENTS.decode(body)?;
        if let Some(at) = text.find('\n') {
            text.truncate(at);
        }
        return Ok(text);
    }
    EVENT_BODIES.decode(body)
}

impl Codec {
    /// Whether `stored` is a zstd frame naming one of this codec's dictionaries.
    pub fn names(&self, stored: &[u8]) -> bool {
        stored.starts_with(&ZSTD_MAGIC) && {
            let id = zstd::zstd_safe::get_dict_id_from_frame(stored).map_or(0, u32::from);
            self.all.iter().any(|(d, _)| *d == id)
        }
    }

    /// The text of a stored value: a zstd frame (decompressed with the dictionary its header
    /// names) or, for rows written before compression, the text itself.
    ///
    /// # Errors
    /// A message saying what is wrong: a frame naming a dictionary this codec does not bundle
    /// (another column's, or a newer build's), a frame that does not decompress, or text that
    /// is not UTF-8.
    pub fn decode(&'static self, stored: &[u8]) -> Result<String, String> {
        let bytes = if stored.starts_with(&ZSTD_MAGIC) {
            let id = zstd::zstd_safe::get_dict_id_from_frame(stored).map_or(0, u32::from);
            let dictionary = self
                .decoding
                .get_or_init(|| {
                    self.all
                        .iter()
                        .map(|(id, bytes)| (*id, DecoderDictionary::copy(bytes)))
                        .collect()
                })
                .iter()
                .find(|(d, _)| *d == id)
                .map(|(_, prepared)| prepared)
                .ok_or_else(|| {
                    format!(
                        "{} compressed with dictionary {id}, which this build lacks",
                        self.what
                    )
                })?;
            let size = zstd::zstd_safe::get_frame_content_size(stored)
                .ok()
                .flatten()
                .ok_or("a zstd frame without its content size")?;
            let size = usize::try_from(size).map_err(|e| e.to_string())?;
            DECOMPRESSOR.with_borrow_mut(|slot| {
                let decompressor = match slot {
                    Some(d) => d,
                    None => slot
                        .insert(zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?),
                };
                decompressor
                    .set_prepared_dictionary(dictionary)
                    .map_err(|e| format!("dictionary {id}: {e}"))?;
                decompressor
                    .decompress(stored, size)
                    .map_err(|e| format!("zstd: {e}"))
            })?
        } else {
            stored.to_vec()
        };
        String::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bundled real DCSA event survives the round trip, and compresses.
    #[test]
    fn real_dcsa_events_round_trip_smaller() {
        let text = include_str!("../../data/dcsa/tnt-220-response.json");
        let events: Vec<serde_json::Value> = serde_json::from_str(text).expect("DCSA array");
        assert!(events.len() > 5);
        let mut encoder = Encoder::new(&RAW_PAYLOADS).expect("dictionary");
        for event in events {
            let raw = event.to_string();
            let stored = encoder.encode(&raw).expect("compress");
            assert!(stored.starts_with(&ZSTD_MAGIC));
            assert!(
                stored.len() * 2 < raw.len(),
                "{} of {}",
                stored.len(),
                raw.len()
            );
            assert_eq!(RAW_PAYLOADS.decode(&stored).expect("decode"), raw);
        }
    }

    /// A payload stored as text before compression reads as it is.
    #[test]
    fn text_of_older_rows_reads_as_is() {
        let raw = r#"{"eventID":"0d2b3f3e","eventType":"TRANSPORT"}"#;
        assert_eq!(RAW_PAYLOADS.decode(raw.as_bytes()).expect("text"), raw);
        assert!(RAW_PAYLOADS.decode(&[0xFF, 0xFE]).is_err());
    }

    /// A frame naming a dictionary this build lacks is refused, not misread.
    #[test]
    fn unknown_dictionary_is_an_error() {
        let plain = zstd::bulk::compress(b"{}", 3).expect("compress");
        // A frame without a dictionary names id 0, which no bundled dictionary has.
        assert!(RAW_PAYLOADS
            .decode(&plain)
            .unwrap_err()
            .contains("dictionary 0"));
    }

    /// The normalized bodies of the real DCSA examples, as the store writes them (JSON of each
    /// read event), survive the round trip, each smaller and all at under half their size; a body's frame is not a
    /// raw payload's, and each codec refuses the other's.
    #[test]
    fn real_event_bodies_round_trip_smaller() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/dcsa/tnt-220-response.json"
        );
        let batch = teu_feeds::read_file(std::path::Path::new(path)).expect("DCSA file");
        assert!(batch.events.len() > 5);
        let mut bodies = Encoder::new(&EVENT_BODIES).expect("dictionary");
        let mut raws = Encoder::new(&RAW_PAYLOADS).expect("dictionary");
        let (mut text, mut frames) = (0, 0);
        for event in &batch.events {
            let body = serde_json::to_string(&event.row).expect("JSON");
            let stored = bodies.encode(&body).expect("compress");
            assert!(stored.starts_with(&ZSTD_MAGIC));
            assert!(
                stored.len() < body.len(),
                "{} of {}",
                stored.len(),
                body.len()
            );
            (text, frames) = (text + body.len(), frames + stored.len());
            assert_eq!(EVENT_BODIES.decode(&stored).expect("decode"), body);
            assert!(RAW_PAYLOADS
                .decode(&stored)
                .unwrap_err()
                .contains("dictionary 101"));
            let raw = raws.encode(&event.raw).expect("compress");
            assert!(EVENT_BODIES
                .decode(&raw)
                .unwrap_err()
                .contains("dictionary 1,"));
        }
        assert!(frames * 2 < text, "{frames} of {text}");
    }

    /// The events of the bundled DCSA 2.2 example (`data/dcsa/tnt-220-response.json`, real
    /// carrier events) and their stored forms ([`encode_events`]).
    fn example_events() -> (teu_feeds::FeedBatch, Vec<EventForms>) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/dcsa/tnt-220-response.json"
        );
        let batch = teu_feeds::read_file(std::path::Path::new(path)).expect("DCSA file");
        assert!(batch.events.len() > 5);
        let forms =
            encode_events(batch.events.iter().map(|e| (e.raw.as_str(), &e.row))).expect("compress");
        (batch, forms)
    }

    /// The frames made through the encoder's scratch buffers are the bytes zstd's own
    /// `compress` makes of the same text (body, newline, carrier payload), each allocated at
    /// its own length rather than at the compression bound `compress` leaves, for every event
    /// of the bundled DCSA 2.2 example.
    #[test]
    fn frames_are_zstds_own_bytes_at_their_own_length() {
        let (batch, forms) = example_events();
        let dictionary = EVENTS.encoding.get().expect("prepared by encode_events");
        let mut direct =
            zstd::bulk::Compressor::with_prepared_dictionary(dictionary).expect("dictionary");
        for (event, form) in batch.events.iter().zip(&forms) {
            let body = serde_json::to_string(&event.row).expect("JSON");
            let frame = direct
                .compress(format!("{body}\n{}", event.raw).as_bytes())
                .expect("compress");
            assert_eq!(form.stored, frame);
            assert!(frame.capacity() > 2 * frame.len(), "zstd keeps the bound");
            assert_eq!(form.stored.capacity(), form.stored.len());
        }
    }

    /// Every real DCSA event of the bundled examples, stored as one frame of its body and
    /// payload ([`EVENTS`]), decodes to both; the body alone reads the same; the frame is
    /// smaller than the two frames of the layout before; an event stored without a payload reads
    /// with none; the older layout still reads.
    #[test]
    fn real_events_stored_as_one_frame() {
        let (batch, forms) = example_events();
        let mut bodies = Encoder::new(&EVENT_BODIES).expect("dictionary");
        let mut raws = Encoder::new(&RAW_PAYLOADS).expect("dictionary");
        let (mut one, mut two) = (0, 0);
        for (event, form) in batch.events.iter().zip(&forms) {
            let body = serde_json::to_string(&event.row).expect("JSON");
            assert!(EVENTS.names(&form.stored) && !EVENT_BODIES.names(&form.stored));
            let stored = decode_event(&form.stored, None).expect("decode");
            assert_eq!(stored.body, body);
            assert_eq!(stored.payload.as_deref(), Some(event.raw.as_str()));
            assert_eq!(decode_event_body(&form.stored).expect("body"), body);
            let (body_frame, raw_frame) = (
                bodies.encode(&body).expect("compress"),
                raws.encode(&event.raw).expect("compress"),
            );
            let older = decode_event(&body_frame, Some(&raw_frame)).expect("older layout");
            assert_eq!(
                (older.body.as_str(), older.payload.as_deref()),
                (body.as_str(), Some(event.raw.as_str()))
            );
            (one, two) = (
                one + form.stored.len(),
                two + body_frame.len() + raw_frame.len(),
            );
        }
        assert!(one < two, "one frame {one} bytes, two frames {two}");
        let mut encoder = Encoder::new(&EVENTS).expect("dictionary");
        let alone = encode_event(&mut encoder, "{\"event_id\":\"x\"}", None).expect("compress");
        let stored = decode_event(&alone, None).expect("decode");
        assert_eq!(
            (stored.body.as_str(), stored.payload),
            ("{\"event_id\":\"x\"}", None)
        );
        assert!(EVENT_BODIES
            .decode(&alone)
            .unwrap_err()
            .contains("dictionary 601"));
    }
}
