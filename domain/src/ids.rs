//! Deterministic identifiers: UUID v5 of a natural key, scoped by account (`docs/DESIGN.md`, "The flow of data").
//!
//! The same feed ingested twice yields the same ids, so writes are idempotent upserts.

use sha1::{Digest, Sha1};
use uuid::Uuid;

/// Namespace for all teu ids (a fixed, random v4 chosen once).
const TEU_NAMESPACE: Uuid = Uuid::from_u128(0x6f1c_2b9e_4d3a_4e8f_9a51_c0d7_3e2b_8a14);

/// UUID v5 of `kind` and `parts`, scoped by `account`: the name is the account's 16 bytes,
/// `kind`, then each part after a unit separator (0x1f), which cannot occur in the identifiers
/// teu reads.
///
/// The SHA-1 of RFC 9562, section 5.5 (`Uuid::new_v5`'s answer, bit for bit) is RustCrypto's
/// `sha1`, which uses the CPU's SHA extensions where it has them: an ingest computes four to
/// six of these per event (its id, its raw event's, its containers' and shipments'), and
/// `uuid`'s portable SHA-1 was 7.6% of the instructions of a DCSA file's ingest (docs/NOTES.md,
/// fifty-second session).
pub fn scoped(account: Uuid, kind: &str, parts: &[&str]) -> Uuid {
    let mut hash = Sha1::new();
    hash.update(TEU_NAMESPACE.as_bytes());
    hash.update(account.as_bytes());
    hash.update(kind.as_bytes());
    for p in parts {
        hash.update([0x1f]);
        hash.update(p.as_bytes());
    }
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_sha1_bytes(bytes).into_uuid()
}

/// Id of a shipment, from its shipment key (bill of lading, or booking when that is all there is).
pub fn shipment_id(account: Uuid, shipment_key: &str) -> Uuid {
    scoped(account, "shipment", &[shipment_key])
}

/// Id of a container: its number during one shipment's journey.
pub fn container_id(account: Uuid, shipment_key: &str, number: &str) -> Uuid {
    scoped(account, "container", &[shipment_key, number])
}

/// Id of a normalized (transport) event, from the feed's `eventID`.
pub fn event_id(account: Uuid, source_event_id: &str) -> Uuid {
    scoped(account, "transport_event", &[source_event_id])
}

/// Id of the raw event a normalized event came from.
pub fn raw_event_id(account: Uuid, source_event_id: &str) -> Uuid {
    scoped(account, "raw_event", &[source_event_id])
}

/// Id of a port (reference data, the same for every account), from its UN/LOCODE.
///
/// Every `/v2` shipment names up to three ports (POL, POD, destination), so a page asks for the
/// same few ids again and again; each thread keeps the ids of the five-character codes it has
/// computed (UN/LOCODE is two letters of country and three of place, UNECE Recommendation 16),
/// at most [`PORT_IDS_KEPT`] of them, and forgets them all when that many are kept. Other text
/// is computed every time. Either way the id is [`scoped`]'s, so the answer never depends on
/// the memo.
pub fn port_id(locode: &str) -> Uuid {
    let Ok(code) = <[u8; 5]>::try_from(locode.as_bytes()) else {
        return port_id_computed(locode);
    };
    PORT_IDS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some(id) = kept.get(&code) {
            return *id;
        }
        let id = port_id_computed(locode);
        if kept.len() >= PORT_IDS_KEPT {
            kept.clear();
        }
        kept.insert(code, id);
        id
    })
}

/// How many port ids each thread keeps. An entry is 21 bytes (the code and the id) and a control
/// byte in a table of at most 32,768 buckets, so about 720 KB a thread at the cap; the bundled
/// reference data names 1,634 sea ports and 3,962 sea-route ports, UN/LOCODE about 100,000
/// places.
pub const PORT_IDS_KEPT: usize = 16_384;

thread_local! {
    /// [`port_id`]'s memo: UN/LOCODE bytes → id, hashed with foldhash (SipHash costs more than
    /// the five bytes it would guard).
    static PORT_IDS: std::cell::RefCell<foldhash::HashMap<[u8; 5], Uuid>> =
        std::cell::RefCell::new(foldhash::HashMap::default());
}

/// [`port_id`] without the memo: UUID v5 of the code.
fn port_id_computed(locode: &str) -> Uuid {
    scoped(Uuid::nil(), "port", &[locode])
}

/// Id of a vessel (public data, the same for every account), from its IMO number.
pub fn vessel_id(imo: &str) -> Uuid {
    scoped(Uuid::nil(), "vessel", &[imo])
}

/// Appends `id` as text to `out`: hyphenated in lower case (RFC 9562, section 4: `8-4-4-4-12`
/// hex digits, what `Uuid`'s `Display` writes), 36 ASCII bytes.
///
/// A `/v2` page of 30 containers prints about 1,900 ids (its relationships), a GraphQL page
/// about 1,300 (its events' ids); `uuid`'s own encoder took about 125 instructions an id, 7%
/// of a `/v2` page's (docs/NOTES.md, seventy-first session). Bytes, not a `&str`: a UTF-8 check
/// of 36 bytes took about 90 instructions more.
///
/// Encoded by `uuid-simd` with the CPU's vector instructions (AVX2, SSE4.1 or NEON, chosen once
/// at run time; a portable fallback elsewhere).
#[inline]
pub fn push_text(out: &mut Vec<u8>, id: &Uuid) {
    let mut buffer = [0u8; 36];
    out.extend_from_slice(uuid_simd::format_hyphenated(
        id.as_bytes(),
        uuid_simd::Out::from_mut(&mut buffer),
        uuid_simd::AsciiCase::Lower,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// [`push_text`] appends what `Uuid`'s `Display` writes, for any 128 bits.
        #[test]
        fn text_is_what_display_writes(bits in proptest::prelude::any::<u128>()) {
            let id = Uuid::from_u128(bits);
            let mut out = b"[".to_vec();
            push_text(&mut out, &id);
            proptest::prop_assert_eq!(out, format!("[{id}").into_bytes());
        }
    }

    /// The edges, against text written by hand (RFC 9562, section 4: lower-case hex digits,
    /// hyphens after the 8th, 12th, 16th and 20th).
    #[test]
    fn text_of_hand_written_ids() {
        for (bits, written) in [
            (0, "00000000-0000-0000-0000-000000000000"),
            (u128::MAX, "ffffffff-ffff-ffff-ffff-ffffffffffff"),
            (
                0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
                "01234567-89ab-cdef-fedc-ba9876543210",
            ),
        ] {
            let mut out = Vec::new();
            push_text(&mut out, &Uuid::from_u128(bits));
            assert_eq!(out, written.as_bytes());
        }
    }

    proptest::proptest! {
        /// `scoped` is UUID v5 (RFC 9562, section 5.5) of the name it documents, as the `uuid`
        /// crate computes it: any account, kind and parts, empty and non-ASCII ones included.
        #[test]
        fn scoped_is_uuid_v5_of_its_name(
            account in proptest::prelude::any::<u128>(),
            kind in ".{0,20}",
            parts in proptest::collection::vec(".{0,80}", 0..4),
        ) {
            let account = Uuid::from_u128(account);
            let mut name = account.as_bytes().to_vec();
            name.extend_from_slice(kind.as_bytes());
            for p in &parts {
                name.push(0x1f);
                name.extend_from_slice(p.as_bytes());
            }
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(
                scoped(account, &kind, &parts),
                Uuid::new_v5(&TEU_NAMESPACE, &name)
            );
        }
    }

    #[test]
    fn ids_are_stable_and_scoped_by_account() {
        let a = Uuid::from_u128(1);
        let b = Uuid::from_u128(2);
        assert_eq!(shipment_id(a, "MEDU1234567"), shipment_id(a, "MEDU1234567"));
        assert_ne!(shipment_id(a, "MEDU1234567"), shipment_id(b, "MEDU1234567"));
        assert_ne!(container_id(a, "X", "AB"), container_id(a, "XA", "B"));
        assert_eq!(shipment_id(a, "K").get_version_num(), 5);
    }

    /// The memo answers what the computation does: the first and every later call, codes of
    /// other lengths, and past the point where the memo is emptied.
    #[test]
    fn port_ids_are_the_uuid_v5_of_the_code_memo_or_not() {
        let direct = |code: &str| {
            let mut name = Uuid::nil().as_bytes().to_vec();
            name.extend_from_slice(b"port\x1f");
            name.extend_from_slice(code.as_bytes());
            Uuid::new_v5(&TEU_NAMESPACE, &name)
        };
        for code in [
            "NLRTM", "CNSHA", "USLAX", "NLRTM", "", "NLRT", "NLRTMX", "ÅÅX",
        ] {
            assert_eq!(port_id(code), direct(code), "{code:?}");
            assert_eq!(port_id(code), direct(code), "{code:?} again");
        }
        let codes: Vec<String> = (0..PORT_IDS_KEPT + 10).map(|i| format!("{i:05}")).collect();
        for code in codes.iter().chain(codes.iter().take(20)) {
            assert_eq!(port_id(code), direct(code), "{code}");
        }
        assert_ne!(port_id("NLRTM"), port_id("NLRTN"));
    }
}
