//! Parsing rules of [`super`] on real messages of mail-parser's own test suite
//! (`feeds/tests/email/`, licence there) and on hand-made hostile inputs.

use std::io::Write;

use super::*;

const T019: &[u8] = include_bytes!("../../tests/email/thirdparty-019.eml");
const T016: &[u8] = include_bytes!("../../tests/email/thirdparty-016.eml");
const T015: &[u8] = include_bytes!("../../tests/email/thirdparty-015.eml");

#[test]
fn thunderbird_message_with_attachments() {
    let e = parse_message(T019).unwrap();
    assert_eq!(
        e.subject.as_deref(),
        Some("30 plaintext + (HTML + embedded image) + attachment")
    );
    assert_eq!(e.from, vec!["test@example.com"]);
    assert_eq!(e.to, vec!["test@example.com"]);
    assert!(e.cc.is_empty());
    assert_eq!(
        e.message_id,
        "1e58c8f2-3a15-96e7-76b7-046cf6e1ce1e@example.com"
    );
    // Date: Sat, 30 Dec 2017 20:50:01 +0100
    assert_eq!(e.sent_at.unwrap().to_rfc3339(), "2017-12-30T19:50:01+00:00");
    assert_eq!(e.content_type.as_deref(), Some("multipart/mixed"));
    // windows-1252 quoted-printable "h=E4h=E4" decoded
    assert!(
        e.body.as_deref().unwrap().contains("Search for hähä"),
        "{:?}",
        e.body
    );
    let names: Vec<&str> = e.attachments.iter().map(|a| a.file_name.as_str()).collect();
    assert_eq!(names, vec!["kigaaldcbanejcbi.png", "attach2.png"]);
    for a in &e.attachments {
        assert_eq!(a.media_type, "image/png");
        assert!(a.bytes.starts_with(b"\x89PNG"));
        assert_eq!(a.sha256, hex::encode(Sha256::digest(&a.bytes)));
    }
}

#[test]
fn html_only_message_is_turned_into_text() {
    let e = parse_message(T016).unwrap();
    let body = e.body.unwrap();
    assert!(body.contains("Search for höhö"), "{body}");
    assert!(!body.contains("<p>"), "{body}");
}

#[test]
fn thread_headers() {
    let e = parse_message(T015).unwrap();
    assert_eq!(
        e.subject.as_deref(),
        Some("Re: (#5290765) Proxmox Shop E-Mails")
    );
    assert_eq!(
        e.message_id,
        "7da78721a8a234894af702fe25fc64a5@proxforge.de"
    );
    // The thread headers of this message are inside its forwarded (message/rfc822) part.
    assert_eq!(e.in_reply_to, None);
    let raw = message(
        "In-Reply-To: <a@x>\r\nReferences: <root@x> <a@x>\r\n",
        "reply",
    );
    let e = parse_message(&raw).unwrap();
    assert_eq!(e.in_reply_to.as_deref(), Some("a@x"));
    assert_eq!(e.references, vec!["root@x", "a@x"]);
}

fn message(extra_headers: &str, body: &str) -> Vec<u8> {
    format!(
        "From: a@example.com\r\nTo: b@example.com\r\nSubject: s\r\nMessage-ID: <m1@example.com>\r\n\
         Date: Mon, 2 Nov 2026 10:00:00 +0000\r\n{extra_headers}\r\n{body}"
    )
    .into_bytes()
}

fn with_attachment(name: &str, media: &str, bytes: &[u8]) -> Vec<u8> {
    use base64_lines as b64;
    let body = format!(
        "--X\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--X\r\nContent-Type: {media}; name=\"{name}\"\r\n\
         Content-Disposition: attachment; filename=\"{name}\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n--X--\r\n",
        b64(bytes)
    );
    message(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"X\"\r\n",
        &body,
    )
}

/// Standard base64 in 76-character lines (enough for tests; no extra dependency).
fn base64_lines(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, c) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push_str("\r\n");
        }
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn pdf_attachment_is_a_document() {
    let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";
    let e = parse_message(&with_attachment("BL.pdf", "application/pdf", pdf)).unwrap();
    assert_eq!(e.attachments.len(), 1);
    let a = &e.attachments[0];
    assert_eq!(
        (a.file_name.as_str(), a.media_type.as_str()),
        ("BL.pdf", "application/pdf")
    );
    assert_eq!(a.bytes, pdf);
}

#[test]
fn garbage_is_malformed() {
    for raw in [
        &b""[..],
        b"\x00\x01\x02 not mail at all",
        b"just some words\n",
    ] {
        match parse_message(raw) {
            Err(EmailRefusal::Malformed(_)) => {}
            other => panic!("{raw:?}: {other:?}"),
        }
    }
}

#[test]
fn unknown_charset_is_refused() {
    let raw = message(
        "Content-Type: text/plain; charset=x-no-such-charset\r\n",
        "hello",
    );
    let err = parse_message(&raw).unwrap_err();
    assert!(matches!(err, EmailRefusal::UnknownCharset { .. }), "{err}");
    assert!(err.to_string().contains("x-no-such-charset"));
}

#[test]
fn huge_attachment_is_refused() {
    let big = vec![b'a'; MAX_ATTACHMENT_BYTES + 1];
    let err = parse_message(&with_attachment(
        "big.bin",
        "application/octet-stream",
        &big,
    ))
    .unwrap_err();
    assert!(
        matches!(err, EmailRefusal::AttachmentTooLarge { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("big.bin"));
}

fn zip_of(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap();
    }
    buf.into_inner()
}

#[test]
fn zip_bomb_is_refused_and_ordinary_zip_kept() {
    let bomb = zip_of(&[("zeros.bin", vec![0u8; 20 * 1024 * 1024])]);
    let err = parse_message(&with_attachment("docs.zip", "application/zip", &bomb)).unwrap_err();
    assert!(matches!(err, EmailRefusal::ZipBomb { .. }), "{err}");
    assert!(err.to_string().contains("docs.zip"), "{err}");

    let text: Vec<u8> = (0..5000u32).flat_map(|i| i.to_le_bytes()).collect();
    let ok = zip_of(&[("invoice.txt", text)]);
    let e = parse_message(&with_attachment("docs.zip", "application/zip", &ok)).unwrap();
    assert_eq!(e.attachments.len(), 1);

    let err = parse_message(&with_attachment(
        "broken.zip",
        "application/zip",
        b"PK\x03\x04xx",
    ))
    .unwrap_err();
    assert!(err.to_string().contains("not a readable zip"), "{err}");
}

#[test]
fn missing_message_id_gets_a_content_hash() {
    let raw = b"From: a@example.com\r\nSubject: x\r\n\r\nbody".to_vec();
    let e = parse_message(&raw).unwrap();
    assert!(e.message_id.starts_with("sha256-") && e.message_id.ends_with("@teu.invalid"));
    assert_eq!(parse_message(&raw).unwrap().message_id, e.message_id);
}

#[test]
fn mbox_is_split_into_messages() {
    let mut mbox = Vec::new();
    for m in [T019, T016] {
        mbox.extend_from_slice(b"From test@example.com Sat Dec 30 20:50:01 2017\n");
        mbox.extend_from_slice(m);
        mbox.extend_from_slice(b"\n");
    }
    assert!(is_mbox(&mbox));
    let parts = split_mbox(&mbox);
    assert_eq!(parts.len(), 2);
    assert_eq!(
        parse_message(&parts[1]).unwrap().subject.as_deref(),
        Some("25 HTML + embedded image")
    );
    assert!(looks_like_message(T019));
    assert!(!looks_like_message(b"[{\"eventID\": 1}]"));
}
