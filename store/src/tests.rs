//! Unit tests of the store's SQL helpers.

use super::*;
use crate::db::RecordId;
use teu_domain::model::{LineDeadline, TerminalCheck};
use teu_feeds::email::ParsedEmail;

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

/// `ts` prints a time as the migrations to the native columns read it (RFC 3339, UTC, three
/// digits of milliseconds, `Z`) and as the natural keys of terminal facts name it; the texts
/// are written by hand.
#[test]
fn ts_prints_rfc3339_milliseconds() {
    for (millis, text) in [
        (0i64, "1970-01-01T00:00:00.000Z"),
        (-86_400_001, "1969-12-30T23:59:59.999Z"),
        (1_767_225_600_250, "2026-01-01T00:00:00.250Z"),
    ] {
        let t = DateTime::from_timestamp_millis(millis).unwrap();
        assert_eq!(ts(t), text);
        assert_eq!(DateTime::parse_from_rfc3339(text).unwrap(), t, "{text}");
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
        assert_eq!(cut, DateTime::parse_from_rfc3339(&ts(t)).unwrap(), "{text}");
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

/// `record_id_list`, the reader of stored member lists (`shipments.member_ids`, migration 40)
/// and aggregated id lists, on each backend (PostgreSQL when `TEU_TEST_POSTGRES_URL` is set):
/// ids one after the other read back in their order, an empty value or `NULL` as no ids, and
/// a length that is not a multiple of 16 is `Corrupt`, naming the column and the bytes.
async fn record_id_lists_read_in_order(store: &Store) {
    let (a, b) = (Uuid::from_u128(0xffff), Uuid::from_u128(1));
    let two = [a.as_bytes().as_slice(), b.as_bytes().as_slice()].concat();
    let row = db::query("SELECT $1 AS two, $2 AS none, NULL AS null_list, $3 AS short")
        .bind(two)
        .bind(Vec::<u8>::new())
        .bind(vec![1u8, 2])
        .fetch_one(store.reader())
        .await
        .unwrap();
    assert_eq!(
        record_id_list(&row, "two", "container").unwrap(),
        vec![a, b]
    );
    assert!(record_id_list(&row, "none", "container")
        .unwrap()
        .is_empty());
    assert!(record_id_list(&row, "null_list", "container")
        .unwrap()
        .is_empty());
    match record_id_list(&row, "short", "container") {
        Err(StoreError::Corrupt { what, id, detail }) => {
            assert_eq!((what, id.as_str()), ("container", "0102"));
            assert!(detail.starts_with("column short: 2 bytes"), "{detail}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

/// A store on a fresh SQLite database `file` in a temporary directory (removed when the
/// returned guard drops).
async fn temp_sqlite_store(file: &str) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", dir.path().join(file).display());
    let store = Store::connect(&url).await.expect("store");
    (dir, store)
}

#[tokio::test]
async fn record_id_lists_read_in_order_sqlite() {
    let (_dir, store) = temp_sqlite_store("ids.db").await;
    record_id_lists_read_in_order(&store).await;
}

#[tokio::test]
async fn record_id_lists_read_in_order_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_ids").await else {
        return;
    };
    record_id_lists_read_in_order(&db.store).await;
    db.drop().await.unwrap();
}

/// `authenticate` asks the database once for a key it finds and answers it from memory after
/// (`key_memo`), never for an unknown key (asked every time, so that a key issued by another
/// process works at once), and a store never answers from another store's memory.
async fn keys_are_read_once(store: &Store, url: &str) {
    let (account, key) = store.create_account("keys", false).await.unwrap();
    let statements = |f: u64| store.statement_count() - f;
    let before = store.statement_count();
    assert_eq!(
        store.authenticate(&key).await.unwrap(),
        Some(account.clone())
    );
    assert_eq!(statements(before), 1);
    let before = store.statement_count();
    for _ in 0..3 {
        assert_eq!(
            store.authenticate(&key).await.unwrap(),
            Some(account.clone())
        );
    }
    assert_eq!(statements(before), 0, "a key found is answered from memory");
    let before = store.statement_count();
    let late = "teu_issued_by_another_process";
    assert_eq!(store.authenticate(late).await.unwrap(), None);
    assert_eq!(store.authenticate(late).await.unwrap(), None);
    assert_eq!(
        statements(before),
        2,
        "an unknown key is looked up every time"
    );
    // Another process (another store on the same database) issues a key: found at once.
    let other = Store::connect(url).await.unwrap();
    let second = other.issue_key(account.id).await.unwrap();
    assert_eq!(store.authenticate(&second).await.unwrap(), Some(account));
}

#[tokio::test]
async fn keys_are_read_once_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", dir.path().join("keys.db").display());
    let store = Store::connect(&url).await.expect("store");
    keys_are_read_once(&store, &url).await;
    // A store of another database knows nothing of this one's keys.
    let (_, key) = store.create_account("elsewhere", false).await.unwrap();
    assert!(store.authenticate(&key).await.unwrap().is_some());
    let url = format!("sqlite:{}", dir.path().join("other.db").display());
    let other = Store::connect(&url).await.expect("store");
    assert_eq!(other.authenticate(&key).await.unwrap(), None);
}

#[tokio::test]
async fn keys_are_read_once_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_keys").await else {
        return;
    };
    keys_are_read_once(&db.store, &db.database.url).await;
    db.drop().await.unwrap();
}

/// A terminal check `available` (or not) of container `number` at terminal `terminal`
/// (`Uuid::from_u128`), checked at `at` (RFC 3339): `bulk_pg`'s test check, moved.
fn terminal_check(terminal: u128, number: &str, at: &str, available: bool) -> TerminalCheck {
    let mut check = crate::bulk_pg::tests::check(number, at, available);
    check.terminal_id = Uuid::from_u128(terminal);
    check
}

/// Every stored terminal check of `account`: (id, container number, source file, the check).
async fn stored_terminal_checks(
    store: &Store,
    account: Uuid,
) -> Vec<(Uuid, String, String, TerminalCheck)> {
    let rows = crate::db::query(
        "SELECT id, container_number, source_file, body FROM terminal_checks WHERE account_id = $1",
    )
    .bind(RecordId(account))
    .fetch_all(store.pool())
    .await
    .expect("terminal checks");
    let mut out: Vec<_> = rows
        .iter()
        .map(|r| {
            let id = record_id(r, "id", "terminal check").expect("id");
            let body =
                stored_text(r, "body", &payloads::TERMINAL_CHECKS, "check", "").expect("body");
            let check: TerminalCheck = serde_json::from_str(&body).expect("a check");
            let file: String = r.try_get("source_file").expect("source_file");
            let number: String = r.try_get("container_number").expect("number");
            (id, number, file, check)
        })
        .collect();
    out.sort_by_key(|(id, ..)| *id);
    out
}

/// A terminal check is stored once per account, terminal, container and time to the
/// millisecond (what its id is made of, `teu_domain::ids::scoped`), on either backend's key
/// (SQLite keys the table by those values since migration 41, PostgreSQL by `id`): checks
/// that differ in any one of them are kept apart; the same check later in a file, or in a
/// later file, replaces the stored reading and keeps the file that first stored it.
async fn terminal_checks_are_stored_once_per_check(store: &Store) {
    let (account, _) = store
        .create_account("checked", false)
        .await
        .expect("account");
    let (other, _) = store.create_account("other", false).await.expect("account");
    let (account, other) = (account.id, other.id);
    let at = "2026-03-01T10:00:00.123Z";
    let file = |available: bool| -> Vec<(usize, TerminalCheck, String)> {
        [
            (7, "MSKU1000016", at),
            (8, "MSKU1000016", at),                         // another terminal
            (7, "MSKU1000016", "2026-03-01T10:00:00.124Z"), // a millisecond later
            (7, "APZU4812090", at),                         // another container
            (7, "APZU4812090", at),                         // the same check again
        ]
        .iter()
        .enumerate()
        .map(|(i, &(terminal, number, at))| {
            // The repeated row reads otherwise: the later one is the check's reading.
            let available = if i == 4 { !available } else { available };
            let check = terminal_check(terminal, number, at, available);
            (i, check, format!("{number},{at},{available}"))
        })
        .collect()
    };
    let expected_ids = |account: Uuid| -> Vec<Uuid> {
        let mut ids: Vec<Uuid> = file(true)[..4]
            .iter()
            .map(|(_, c, _)| {
                teu_domain::ids::scoped(
                    account,
                    "terminal_check",
                    &[
                        &c.terminal_id.to_string(),
                        &c.container_number,
                        &ts(c.checked_at),
                    ],
                )
            })
            .collect();
        ids.sort();
        ids
    };
    store
        .upsert_terminal_checks(account, "terminal-00001.csv", &file(true))
        .await
        .expect("first file");
    store
        .upsert_terminal_checks(other, "terminal-00001.csv", &file(true))
        .await
        .expect("the other account's file");
    let first = stored_terminal_checks(store, account).await;
    let ids: Vec<Uuid> = first.iter().map(|(id, ..)| *id).collect();
    assert_eq!(ids, expected_ids(account), "one row per check: {first:?}");
    for (i, (_, check, _)) in file(true).iter().enumerate().take(4) {
        let stored = first
            .iter()
            .find(|(_, number, _, c)| {
                number == check.container_number.as_str()
                    && c.terminal_id == check.terminal_id
                    && c.checked_at == check.checked_at
            })
            .expect("the check's row");
        let mut want = check.clone();
        if i == 3 {
            want.available_for_pickup = Some(false); // the repeated row's reading
        }
        assert_eq!(stored.3, want, "check {i}");
        assert_eq!(stored.2, "terminal-00001.csv");
    }
    let others = stored_terminal_checks(store, other).await;
    assert_eq!(
        others.iter().map(|(id, ..)| *id).collect::<Vec<_>>(),
        expected_ids(other),
        "the other account's checks are its own"
    );

    // The same checks in a later file, read otherwise: the readings are replaced, the rows
    // and their first file kept.
    store
        .upsert_terminal_checks(account, "terminal-00002.csv", &file(false))
        .await
        .expect("second file");
    let second = stored_terminal_checks(store, account).await;
    assert_eq!(second.len(), 4, "{second:?}");
    for (old, new) in first.iter().zip(&second) {
        assert_eq!((old.0, &old.1, &old.2), (new.0, &new.1, &new.2));
        assert_eq!(
            new.3.available_for_pickup,
            old.3.available_for_pickup.map(|a| !a),
            "the reading of {} replaced",
            new.1
        );
    }
    // What the derivation reads of a container: its three checks, none of the other's.
    let (checks, _) = store
        .terminal_facts(account, &["MSKU1000016".to_string()], &[])
        .await
        .expect("terminal facts");
    assert_eq!(checks.len(), 3, "{checks:?}");
    assert!(checks
        .iter()
        .all(|c| c.container_number.as_str() == "MSKU1000016"));
}

#[tokio::test]
async fn terminal_checks_are_stored_once_per_check_sqlite() {
    let (_dir, store) = temp_sqlite_store("checks.db").await;
    terminal_checks_are_stored_once_per_check(&store).await;
}

#[tokio::test]
async fn terminal_checks_are_stored_once_per_check_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_checks").await else {
        return;
    };
    terminal_checks_are_stored_once_per_check(&db.store).await;
    db.drop().await.expect("drop");
}

/// A derivation waits for another connection's write lock (a delivery worker's, in another
/// process) instead of failing: its transaction reads the scope's stored rows before its first
/// write, and on SQLite a deferred transaction that meets the lock at that write fails at once
/// with `SQLITE_BUSY` ("database is locked"; seen once in a CI run of
/// `tests/webhooks.rs`), while `BEGIN IMMEDIATE` waits the busy timeout for it.
#[tokio::test]
async fn a_derivation_waits_for_another_writer_sqlite() {
    use sqlx::Connection;
    let (dir, store) = temp_sqlite_store("busy.db").await;
    let (account, _) = store.create_account("busy", false).await.expect("account");
    let url = format!("sqlite:{}", dir.path().join("busy.db").display());
    let mut other = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("connect");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .expect("the other writer's lock");
    let release = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        sqlx::query("COMMIT")
            .execute(&mut other)
            .await
            .expect("commit");
        other
    });
    let bl = "MAEU123456789";
    let number = "MSKU1234565";
    let shipment = crate::bulk_pg::tests::shipment(account.id, bl);
    let container = crate::bulk_pg::tests::container(account.id, bl, number, None);
    let scope = DerivationScope {
        shipment_keys: vec![bl.to_string()],
        containers: vec![number.to_string()],
    };
    let changes = store
        .upsert_derived(account.id, &[shipment], &[container], &[], &scope, &[])
        .await
        .expect("the derivation waits for the lock, then writes");
    assert_eq!((changes.shipments.len(), changes.containers.len()), (1, 1));
    release
        .await
        .expect("released")
        .close()
        .await
        .expect("close");
}

/// A message with `Message-ID: <message_id>` and one attachment per `(name, bytes)`, as
/// `teu_feeds::email::parse_message` reads it (the attachment's SHA-256 is of its bytes).
fn parsed_email(message_id: &str, attachments: &[(&str, &[u8])]) -> ParsedEmail {
    let mut text = format!(
        "From: Ops <ops@forwarder.example>\r\nTo: Desk <desk@consignee.example>\r\n\
         Subject: documents\r\nMessage-ID: <{message_id}>\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
         --B\r\nContent-Type: text/plain\r\n\r\nAttached.\r\n"
    );
    for (name, bytes) in attachments {
        text.push_str(&format!(
            "--B\r\nContent-Type: application/pdf; name=\"{name}\"\r\n\
             Content-Disposition: attachment; filename=\"{name}\"\r\n\r\n{}\r\n",
            String::from_utf8_lossy(bytes)
        ));
    }
    text.push_str("--B--\r\n");
    teu_feeds::email::parse_message(text.as_bytes()).expect("a well-formed message")
}

/// The `(document_id, position)` rows of `email_documents` for one submission, by position.
async fn email_document_rows(store: &Store, submission: Uuid) -> Vec<(String, i64)> {
    crate::db::query(
        "SELECT document_id, position FROM email_documents WHERE email_submission_id = $1 \
         ORDER BY position",
    )
    .bind(RecordId(submission))
    .fetch_all(store.pool())
    .await
    .expect("links")
    .iter()
    .map(|r| {
        (
            record_id(r, "document_id", "document")
                .expect("id")
                .to_string(),
            r.try_get("position").expect("position"),
        )
    })
    .collect()
}

/// `Store::save_emails` stores a list of messages in one call as one message at a time would:
/// a Message-ID once per account (a second copy in the same list, or a later call, changes
/// nothing and reports "not new"), the same Message-ID apart in another account, a document
/// once per SHA-256 per account (shared by messages, repeated in one message, or in one list),
/// each submission's documents in order of first appearance.
async fn emails_are_stored_once_per_message(store: &Store) {
    let (a, _) = store
        .create_account("mail-a", false)
        .await
        .expect("account");
    let (b, _) = store
        .create_account("mail-b", false)
        .await
        .expect("account");
    let (x, y): (&[u8], &[u8]) = (b"%PDF-1.4 bill of lading", b"%PDF-1.4 arrival notice");
    let m1 = parsed_email("m1@forwarder.example", &[("bl.pdf", x)]);
    let m2 = parsed_email(
        "m2@forwarder.example",
        &[("an.pdf", y), ("bl-copy.pdf", x), ("an-again.pdf", y)],
    );
    let m1_edited = parsed_email("m1@forwarder.example", &[("other.pdf", y)]);
    let m3 = parsed_email("m3@forwarder.example", &[("bl.pdf", x)]);
    let email = |account, email, source_file| NewEmail {
        account,
        email,
        source_file,
    };
    let new = store
        .save_emails(&[
            email(a.id, &m1, "one.eml"),
            email(a.id, &m2, "two.eml"),
            email(a.id, &m1_edited, "one-again.eml"),
            email(b.id, &m1, "b-one.eml"),
            email(b.id, &m3, "b-three.eml"),
        ])
        .await
        .expect("saved");
    assert_eq!(new, [true, true, false, true, true]);

    let id = |account: Uuid, m: &ParsedEmail| {
        teu_domain::ids::scoped(account, "email_submission", &[&m.message_id])
    };
    let document = |account: Uuid, bytes: &[u8]| {
        use sha2::Digest;
        let sha = format!("{:x}", sha2::Sha256::digest(bytes));
        teu_domain::ids::scoped(account, "document", &[&sha])
    };
    let (a1, a2) = (
        store
            .email_submission(a.id, id(a.id, &m1))
            .await
            .expect("read"),
        store
            .email_submission(a.id, id(a.id, &m2))
            .await
            .expect("read"),
    );
    let (a1, a2) = (a1.expect("m1 in a"), a2.expect("m2 in a"));
    // The first copy of m1 is the one kept.
    assert_eq!(a1.document_ids, [document(a.id, x)]);
    assert_eq!(a2.document_ids, [document(a.id, y), document(a.id, x)]);
    assert_eq!(a2.documents_count, 2);
    assert_eq!(
        email_document_rows(store, a2.id).await,
        [
            (document(a.id, y).to_string(), 0),
            (document(a.id, x).to_string(), 1)
        ]
    );
    let mut docs = store
        .documents_by_ids(a.id, &[document(a.id, x), document(a.id, y)])
        .await
        .expect("documents");
    docs.sort_by_key(|d| d.id == document(a.id, y));
    // Each document under the name it first came with.
    let names: Vec<_> = docs
        .iter()
        .map(|d| (d.file_name.as_str(), d.byte_size))
        .collect();
    assert_eq!(
        names,
        [("bl.pdf", x.len() as i64), ("an.pdf", y.len() as i64)]
    );
    assert_eq!(
        store
            .document_content(a.id, document(a.id, y))
            .await
            .expect("content"),
        Some(y.to_vec())
    );
    let (listed, total) = store
        .list_email_submissions(a.id, 0, 30)
        .await
        .expect("list");
    assert_eq!(total, 2);
    assert_eq!(listed.len(), 2);
    // The other account: its own submission ids and documents for the same Message-ID and bytes.
    let (b_listed, b_total) = store
        .list_email_submissions(b.id, 0, 30)
        .await
        .expect("list");
    assert_eq!(b_total, 2);
    assert!(b_listed.iter().all(|s| s.account_id == b.id));
    let b1 = store
        .email_submission(b.id, id(b.id, &m1))
        .await
        .expect("read");
    assert_eq!(b1.expect("m1 in b").document_ids, [document(b.id, x)]);
    assert_ne!(document(b.id, x), document(a.id, x));

    // A later call: m2 is stored already (nothing of it changes), m4 is new.
    let m4 = parsed_email("m4@forwarder.example", &[("bl.pdf", x)]);
    let new = store
        .save_emails(&[
            email(a.id, &m2, "two-again.eml"),
            email(a.id, &m4, "four.eml"),
        ])
        .await
        .expect("saved");
    assert_eq!(new, [false, true]);
    let a2_again = store.email_submission(a.id, a2.id).await.expect("read");
    assert_eq!(a2_again.as_ref(), Some(&a2));
    let a4 = store
        .email_submission(a.id, id(a.id, &m4))
        .await
        .expect("read");
    assert_eq!(a4.expect("m4 in a").document_ids, [document(a.id, x)]);
    assert_eq!(
        store
            .list_email_submissions(a.id, 0, 30)
            .await
            .expect("list")
            .1,
        3
    );
    assert_eq!(
        store.save_emails(&[]).await.expect("nothing"),
        Vec::<bool>::new()
    );
}

#[tokio::test]
async fn emails_are_stored_once_per_message_sqlite() {
    let (_dir, store) = temp_sqlite_store("emails.db").await;
    emails_are_stored_once_per_message(&store).await;
}

#[tokio::test]
async fn emails_are_stored_once_per_message_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_emails").await else {
        return;
    };
    emails_are_stored_once_per_message(&db.store).await;
    db.drop().await.expect("drop");
}

/// A line deadline of container `container` (else of every container of `bill_of_lading`),
/// issued at `issued` with the line's last free day `lfd` (RFC 3339).
fn line_deadline(
    container: Option<&str>,
    bill_of_lading: Option<&str>,
    issued: &str,
    lfd: &str,
) -> LineDeadline {
    serde_json::from_value(serde_json::json!({
        "container_number": container, "bill_of_lading": bill_of_lading,
        "pickup_lfd_line": lfd, "issued_at": issued,
    }))
    .expect("a line deadline")
}

/// Every stored line deadline of `account`: (id, container number, bill of lading, source
/// file, raw text, the deadline), by id.
async fn stored_line_deadlines(
    store: &Store,
    account: Uuid,
) -> Vec<(
    Uuid,
    Option<String>,
    Option<String>,
    String,
    String,
    LineDeadline,
)> {
    let rows = crate::db::query(
        "SELECT id, container_number, bill_of_lading, source_file, raw, body FROM line_deadlines \
         WHERE account_id = $1",
    )
    .bind(RecordId(account))
    .fetch_all(store.pool())
    .await
    .expect("line deadlines");
    let mut out: Vec<_> = rows
        .iter()
        .map(|r| {
            let id = record_id(r, "id", "line deadline").expect("id");
            let codec = &payloads::LINE_DEADLINES;
            let body = stored_text(r, "body", codec, "deadline", "").expect("body");
            let raw = stored_text(r, "raw", codec, "deadline", "").expect("raw");
            (
                id,
                r.try_get("container_number").expect("container_number"),
                r.try_get("bill_of_lading").expect("bill_of_lading"),
                r.try_get("source_file").expect("source_file"),
                raw,
                serde_json::from_str(&body).expect("a deadline"),
            )
        })
        .collect();
    out.sort_by_key(|row| row.0);
    out
}

/// A line deadline is stored once per account, container number (else bill of lading),
/// `issued_at` and line LFD, what its id is made of, on either backend's key (SQLite keys the
/// table by account, that number and id since migration 42, PostgreSQL by `id`): deadlines
/// that differ in one of them are kept apart, the same deadline later in a file counts once,
/// and a later file's version replaces the stored body and keeps the first file. What the
/// derivation reads (`Store::terminal_facts`) is a container's own deadlines and, for a bill
/// of lading, those that name no container.
async fn line_deadlines_are_stored_once_per_deadline(store: &Store) {
    let (account, _) = store.create_account("lined", false).await.expect("account");
    let (other, _) = store.create_account("other", false).await.expect("account");
    let (account, other) = (account.id, other.id);
    let (bl, issued, lfd) = (
        "MAEU240000001",
        "2026-03-01T10:00:00.123Z",
        "2026-03-09T05:00:00Z",
    );
    let container = "MSKU1000016";
    let rows = [
        line_deadline(None, Some(bl), issued, lfd),
        line_deadline(None, Some(bl), issued, "2026-03-10T05:00:00Z"), // another LFD
        line_deadline(None, Some(bl), "2026-03-01T10:00:00.124Z", lfd), // a millisecond later
        line_deadline(Some(container), Some(bl), issued, lfd),         // the container's own
        line_deadline(None, Some("MAEU240000002"), issued, lfd),       // another bill of lading
        line_deadline(None, Some(bl), issued, lfd),                    // the first again
    ];
    let file: Vec<(usize, LineDeadline, String)> = rows
        .iter()
        .enumerate()
        .map(|(i, d)| (i, d.clone(), format!("row {i}")))
        .collect();
    let expected_ids = |account: Uuid| -> Vec<Uuid> {
        let mut ids: Vec<Uuid> = rows[..5]
            .iter()
            .map(|d| {
                let key = d.container_number.as_ref().map_or_else(
                    || d.bill_of_lading.clone().unwrap_or_default(),
                    |c| c.to_string(),
                );
                teu_domain::ids::scoped(
                    account,
                    "line_deadline",
                    &[&key, &ts(d.issued_at), &ts(d.pickup_lfd_line)],
                )
            })
            .collect();
        ids.sort();
        ids
    };
    for id in [account, other] {
        store
            .upsert_line_deadlines(id, "line-deadlines-00001.csv", &file)
            .await
            .expect("first file");
    }
    let first = stored_line_deadlines(store, account).await;
    let ids: Vec<Uuid> = first.iter().map(|row| row.0).collect();
    assert_eq!(
        ids,
        expected_ids(account),
        "one row per deadline: {first:?}"
    );
    for (i, d) in rows[..5].iter().enumerate() {
        let stored = first
            .iter()
            .find(|row| &row.5 == d)
            .unwrap_or_else(|| panic!("deadline {i} stored: {first:?}"));
        let number = d.container_number.as_ref().map(ToString::to_string);
        assert_eq!(
            (&stored.1, &stored.2),
            (&number, &d.bill_of_lading),
            "deadline {i}"
        );
        // The repeated first row is the later one of the file.
        let raw = if i == 0 {
            "row 5".to_string()
        } else {
            format!("row {i}")
        };
        assert_eq!(
            (stored.3.as_str(), stored.4.as_str()),
            ("line-deadlines-00001.csv", raw.as_str())
        );
    }
    let others: Vec<Uuid> = stored_line_deadlines(store, other)
        .await
        .iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(
        others,
        expected_ids(other),
        "the other account's deadlines are its own"
    );

    // The container's deadline again, naming another bill of lading (not part of its id): the
    // body and raw text replaced, the row and its first file kept.
    let moved = line_deadline(Some(container), Some("MAEU240000009"), issued, lfd);
    store
        .upsert_line_deadlines(
            account,
            "line-deadlines-00002.csv",
            &[(0, moved.clone(), "moved".into())],
        )
        .await
        .expect("second file");
    let second = stored_line_deadlines(store, account).await;
    assert_eq!(second.len(), 5, "{second:?}");
    let row = second
        .iter()
        .find(|row| row.5 == moved)
        .expect("the replaced deadline");
    assert_eq!(
        (row.3.as_str(), row.4.as_str()),
        ("line-deadlines-00001.csv", "moved")
    );

    // What the derivation reads: the container's own deadline, and the bill of lading's three
    // that name no container; nothing of the other bill of lading or account.
    let (_, mut read) = store
        .terminal_facts(account, &[container.to_string()], &[bl.to_string()])
        .await
        .expect("terminal facts");
    read.sort_by_key(|d| (d.container_number.is_some(), d.issued_at, d.pickup_lfd_line));
    let mut want = vec![rows[0].clone(), rows[1].clone(), rows[2].clone(), moved];
    want.sort_by_key(|d| (d.container_number.is_some(), d.issued_at, d.pickup_lfd_line));
    assert_eq!(read, want);
}

#[tokio::test]
async fn line_deadlines_are_stored_once_per_deadline_sqlite() {
    let (_dir, store) = temp_sqlite_store("deadlines.db").await;
    line_deadlines_are_stored_once_per_deadline(&store).await;
}

#[tokio::test]
async fn line_deadlines_are_stored_once_per_deadline_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_deadlines").await else {
        return;
    };
    line_deadlines_are_stored_once_per_deadline(&db.store).await;
    db.drop().await.expect("drop");
}

/// Each stored row of `table` as `(id, xmin, xmax)` (PostgreSQL's system columns: the
/// transaction that wrote the row version, and the one that last locked or deleted it), by id.
async fn row_versions(pg: &sqlx::PgPool, table: &str) -> Vec<(Vec<u8>, String, String)> {
    sqlx::query_as(&format!(
        "SELECT id, xmin::text, xmax::text FROM {table} ORDER BY id"
    ))
    .fetch_all(pg)
    .await
    .expect("row versions")
}

/// A derivation on PostgreSQL leaves out of its writes every record whose stored content is
/// its own already (`Passes::postgres`): no new row version and no row lock (the
/// upsert's `ON CONFLICT DO UPDATE … WHERE` locks every conflicting row, updated or not,
/// which sets its `xmax`), and it reports none of them as changed. A record that did change
/// is updated, and only its row gets a new version.
#[tokio::test]
async fn unchanged_records_are_not_written_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_unchanged").await else {
        return;
    };
    let store = &db.store;
    let db::Pool::Postgres(pg) = store.writer() else {
        panic!("a PostgreSQL store");
    };
    let (account, _) = store.create_account("same", false).await.expect("account");
    let a = account.id;
    let bl = "MAEU123456789";
    let mut boxes = vec![
        crate::bulk_pg::tests::container(a, bl, "MSKU1000016", Some("NLRTM")),
        crate::bulk_pg::tests::container(a, bl, "MSKU1000021", Some("NLRTM")),
    ];
    let shipments = [crate::bulk_pg::tests::shipment(a, bl)];
    let scope = DerivationScope {
        shipment_keys: vec![bl.to_string()],
        containers: boxes.iter().map(|c| c.number.to_string()).collect(),
    };
    let derive = |boxes: Vec<Container>| {
        let (shipments, scope) = (&shipments, &scope);
        async move {
            let changes = store
                .upsert_derived(a, shipments, &boxes, &[], scope, &[])
                .await
                .expect("a derivation");
            (changes.shipments.len(), changes.containers)
        }
    };
    assert_eq!(derive(boxes.clone()).await.0, 1, "the shipment is new");
    let versions = |table: &'static str| row_versions(pg, table);
    let (shipments_before, boxes_before) =
        (versions("shipments").await, versions("containers").await);
    assert_eq!((shipments_before.len(), boxes_before.len()), (1, 2));

    assert_eq!(derive(boxes.clone()).await, (0, vec![]), "nothing changed");
    assert_eq!(
        versions("shipments").await,
        shipments_before,
        "the shipment untouched"
    );
    assert_eq!(
        versions("containers").await,
        boxes_before,
        "the boxes untouched"
    );

    boxes[1].current_status = teu_domain::model::ContainerStatus::Available;
    assert_eq!(derive(boxes.clone()).await, (0, vec![boxes[1].id]));
    assert_eq!(
        versions("shipments").await,
        shipments_before,
        "the shipment untouched"
    );
    let after = versions("containers").await;
    for (old, new) in boxes_before.iter().zip(&after) {
        if old.0 == boxes[1].id.as_bytes() {
            assert_ne!(old.1, new.1, "the changed box has a new row version");
        } else {
            assert_eq!(old, new, "the other box untouched");
        }
    }
    db.drop().await.expect("drop");
}
