//! How `raw_events.payload` keeps a carrier's original text: a zstd frame compressed with a
//! bundled dictionary (issue 16, "raw carrier payloads compressed").
//!
//! A raw event is about 900 bytes of DCSA JSON whose field names and code values repeat in every
//! event; compressed alone, zstd halves it (no history to match against), with a dictionary
//! trained on DCSA events it shrinks about six times (926 → 158 bytes on average at 5,000
//! simulated containers; the real examples of `data/dcsa` 845 → 323). The dictionaries are
//! trained by `scripts/raw-dictionary.sh` and never change once released: each frame names its
//! dictionary id in its header (RFC 8878, section 3.1.1.1.3), so a payload written with an older
//! dictionary still reads after a newer one is added.
//!
//! Rows written before compression (migration 19) hold the text itself: `UTF-8` bytes that
//! never begin with the zstd magic number (`28 B5 2F FD`: `0xB5` cannot follow `(` in UTF-8).

use std::io;

use crate::NewEvent;

/// zstd level of new payloads: zstd's default, fast enough not to show in the store stage.
const LEVEL: i32 = 3;

/// The magic number that begins every zstd frame (RFC 8878, section 3.1.1), little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The dictionary new payloads are compressed with: `(id, bytes)`.
const CURRENT: (u32, &[u8]) = (1, include_bytes!("../dictionaries/raw-events-1.zdict"));

/// Every dictionary a stored payload may name, by id.
const DICTIONARIES: &[(u32, &[u8])] = &[CURRENT];

/// Compresses raw payloads with the current dictionary. Build one per batch: loading the
/// dictionary costs more than compressing one payload.
pub(crate) struct PayloadEncoder {
    compressor: zstd::bulk::Compressor<'static>,
}

impl PayloadEncoder {
    /// An encoder with the current dictionary.
    ///
    /// # Errors
    /// An [`io::Error`] when zstd refuses the bundled dictionary (a corrupt build).
    pub(crate) fn new() -> io::Result<Self> {
        Ok(Self {
            compressor: zstd::bulk::Compressor::with_dictionary(LEVEL, CURRENT.1)?,
        })
    }

    /// The stored form of `raw`: one zstd frame naming the current dictionary.
    ///
    /// # Errors
    /// An [`io::Error`] from zstd (out of memory).
    pub(crate) fn encode(&mut self, raw: &str) -> io::Result<Vec<u8>> {
        self.compressor.compress(raw.as_bytes())
    }
}

/// An event to store with its raw payload already encoded ([`PayloadEncoder::encode`]); reads
/// as the [`NewEvent`] it wraps.
pub(crate) struct EncodedEvent<'a, 'b> {
    pub(crate) new: &'a NewEvent<'b>,
    /// The stored form of `new.raw`.
    pub(crate) payload: Vec<u8>,
}

impl<'a, 'b> std::ops::Deref for EncodedEvent<'a, 'b> {
    type Target = NewEvent<'b>;

    fn deref(&self) -> &NewEvent<'b> {
        self.new
    }
}

/// The carrier's text of a stored payload: a zstd frame (decompressed with the dictionary its
/// header names) or, for rows written before compression, the text itself.
///
/// # Errors
/// A message saying what is wrong: a frame naming a dictionary this build does not bundle, a
/// frame that does not decompress, or text that is not UTF-8.
pub(crate) fn decode(stored: &[u8]) -> Result<String, String> {
    let bytes = if stored.starts_with(&ZSTD_MAGIC) {
        let id = zstd::zstd_safe::get_dict_id_from_frame(stored).map_or(0, u32::from);
        let dictionary = DICTIONARIES
            .iter()
            .find(|(d, _)| *d == id)
            .map(|(_, bytes)| *bytes)
            .ok_or_else(|| format!("compressed with dictionary {id}, which this build lacks"))?;
        let size = zstd::zstd_safe::get_frame_content_size(stored)
            .ok()
            .flatten()
            .ok_or("a zstd frame without its content size")?;
        let mut decompressor = zstd::bulk::Decompressor::with_dictionary(dictionary)
            .map_err(|e| format!("dictionary {id}: {e}"))?;
        decompressor
            .decompress(stored, usize::try_from(size).map_err(|e| e.to_string())?)
            .map_err(|e| format!("zstd: {e}"))?
    } else {
        stored.to_vec()
    };
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
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
        let mut encoder = PayloadEncoder::new().expect("dictionary");
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
            assert_eq!(decode(&stored).expect("decode"), raw);
        }
    }

    /// A payload stored as text before compression reads as it is.
    #[test]
    fn text_of_older_rows_reads_as_is() {
        let raw = r#"{"eventID":"0d2b3f3e","eventType":"TRANSPORT"}"#;
        assert_eq!(decode(raw.as_bytes()).expect("text"), raw);
        assert!(decode(&[0xFF, 0xFE]).is_err());
    }

    /// A frame naming a dictionary this build lacks is refused, not misread.
    #[test]
    fn unknown_dictionary_is_an_error() {
        let plain = zstd::bulk::compress(b"{}", 3).expect("compress");
        // A frame without a dictionary names id 0, which no bundled dictionary has.
        assert!(decode(&plain).unwrap_err().contains("dictionary 0"));
    }
}
