//! Unit tests of the store's SQL helpers.

use super::*;

#[test]
fn placeholders_and_redaction() {
    assert_eq!(values_placeholders(2, 2), "($1, $2), ($3, $4)");
    assert_eq!(in_list(2, 3), "$2, $3, $4");
    assert_eq!(
        anonymous_parameters(&values_placeholders(2, 2)).as_deref(),
        Some("(?, ?), (?, ?)")
    );
    assert_eq!(
        anonymous_parameters("a = $1 AND b IN ($2, $3) AND c ->> '$.x' = $4").as_deref(),
        Some("a = ? AND b IN (?, ?) AND c ->> '$.x' = ?")
    );
    // Repeated or out-of-order numbers cannot be bound by position.
    assert_eq!(anonymous_parameters("a = $1 OR b = $1"), None);
    assert_eq!(anonymous_parameters("a = $2 AND b = $1"), None);
    assert_eq!(anonymous_parameters("a = $10"), None);
    assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
    assert_eq!(redact("sqlite:teu.db"), "sqlite:teu.db");
}

/// A stored timestamp reads back as the time `ts` wrote (whole seconds and milliseconds); an
/// RFC 3339 text with an offset (written by hand, or by an older teu) reads as chrono's strict
/// parser reads it; anything else is `Corrupt`, naming the record and the text.
#[test]
fn stored_timestamps_read_back() {
    for millis in [0i64, 1_764_000_000_000, 1_764_000_000_250, -86_400_001] {
        let t = DateTime::from_timestamp_millis(millis).unwrap();
        assert_eq!(parse_ts(&ts(t), "container").unwrap(), t, "{}", ts(t));
    }
    let offset = "2026-09-26T03:18:00.5+02:00";
    assert_eq!(
        parse_ts(offset, "container").unwrap(),
        DateTime::parse_from_rfc3339(offset)
            .unwrap()
            .with_timezone(&Utc)
    );
    match parse_ts("2026-09-26 01:18", "shipment") {
        Err(StoreError::Corrupt { what, id, .. }) => {
            assert_eq!((what, id.as_str()), ("shipment", "2026-09-26 01:18"))
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

/// `db::to_millisecond` keeps of a time what the store's text form keeps (`ts`, RFC 3339 to
/// the millisecond, sub-millisecond digits dropped, not rounded) and what SQLite's integer
/// milliseconds keep: the PostgreSQL event insert binds it where it bound the text before.
#[test]
fn times_cut_to_the_millisecond_as_the_text_form_cuts_them() {
    // Each time with the instant it must keep, written by hand (UTC, milliseconds).
    for (text, kept) in [
        ("2026-11-01T10:00:00.123789Z", "2026-11-01T10:00:00.123Z"),
        ("2026-11-01T10:00:00.999999999Z", "2026-11-01T10:00:00.999Z"),
        ("2026-11-01T10:00:00Z", "2026-11-01T10:00:00.000Z"),
        ("1969-12-31T23:59:59.999500Z", "1969-12-31T23:59:59.999Z"),
        (
            "2026-10-31T09:00:00.987654+02:00",
            "2026-10-31T07:00:00.987Z",
        ),
    ] {
        let t = DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc);
        let cut = crate::db::to_millisecond(t);
        assert_eq!(cut, parse_ts(&ts(t), "event").unwrap(), "{text}");
        assert_eq!(cut.timestamp_millis(), t.timestamp_millis(), "{text}");
        assert_eq!(cut.timestamp_subsec_nanos() % 1_000_000, 0, "{text}");
        assert_eq!(
            cut,
            DateTime::parse_from_rfc3339(kept).unwrap(),
            "{text} keeps {kept}"
        );
    }
    let t = DateTime::parse_from_rfc3339("2026-11-01T10:00:00.123789Z").unwrap();
    assert_eq!(
        ts(crate::db::to_millisecond(t.with_timezone(&Utc))),
        "2026-11-01T10:00:00.123Z"
    );
}

/// `record_ids` on PostgreSQL (when `TEU_TEST_POSTGRES_URL` is set): a `bytea[]` of ids reads
/// back in the array's order, an empty array or `NULL` as no ids, and an element that is not
/// 16 bytes is `Corrupt`, naming the column and the element's index.
#[tokio::test]
async fn postgres_record_id_arrays_read_in_order() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_ids").await else {
        return;
    };
    let (a, b) = (Uuid::from_u128(0xffff), Uuid::from_u128(1));
    let row = db::query(
        "SELECT ARRAY[$1::bytea, $2::bytea] AS two, ARRAY[]::bytea[] AS none, \
         NULL::bytea[] AS null_list, ARRAY[$1::bytea, '\\x0102'::bytea] AS short",
    )
    .bind(a.as_bytes().as_slice())
    .bind(b.as_bytes().as_slice())
    .fetch_one(db.store.reader())
    .await
    .unwrap();
    assert_eq!(record_ids(&row, "two", "container").unwrap(), vec![a, b]);
    assert!(record_ids(&row, "none", "container").unwrap().is_empty());
    assert!(record_ids(&row, "null_list", "container")
        .unwrap()
        .is_empty());
    match record_ids(&row, "short", "container") {
        Err(StoreError::Corrupt { what, id, detail }) => {
            assert_eq!((what, id.as_str()), ("container", "0102"));
            assert!(detail.starts_with("column short, element 1:"), "{detail}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    db.drop().await.unwrap();
}
