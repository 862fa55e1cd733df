//! Email submissions: RFC 5322 messages (`.eml` files or an mbox) read with the `mail-parser`
//! MIME library into [`EmailSubmission`]s whose attachments become [`Document`]s.
//!
//! Rules (teu's; the spec shows the resource fields only):
//!
//! - **Fields**: subject; body = the first text/plain part, or the first HTML part turned into
//!   text by mail-parser when the message has no plain text; `from`, `to`, `cc` = the bare
//!   addresses (lower-cased); `sent_at` = the `Date` header in UTC; `message_id`, `in_reply_to`,
//!   `references` without angle brackets; `content_type` = the top-level MIME type
//!   (`multipart/mixed`); attachments = every part mail-parser classes as an attachment.
//! - **Owner**: the account whose inbound address ([`INBOUND_DOMAIN`]) is among `To`, `Cc`,
//!   `Delivered-To` or `X-Original-To`; else, when a recipient is at [`INBOUND_DOMAIN`] but is no
//!   account's address, the message is quarantined ("unknown inbound address"); else it belongs to
//!   the account given on the command line (`--account`).
//! - **Identity**: the id is a UUID v5 of the Message-ID scoped by account, so re-ingesting a
//!   message changes nothing. A message without Message-ID gets `sha256-<hex of the raw
//!   message>@teu.invalid`.
//! - **Refused** (quarantined with a reason, the rest of the batch carries on): a message
//!   mail-parser cannot parse or that has no `From`, `Date`, `Subject` or `Message-ID` header at
//!   all ([`EmailRefusal::Malformed`]); a text part in a charset no decoder knows
//!   ([`EmailRefusal::UnknownCharset`]); an attachment above [`MAX_ATTACHMENT_BYTES`]; a zip
//!   attachment that inflates past [`MAX_ZIP_RATIO`] or [`MAX_ZIP_UNCOMPRESSED_BYTES`], has more
//!   than [`MAX_ZIP_ENTRIES`] entries or is not a readable zip ([`EmailRefusal::ZipBomb`]); a
//!   message file above [`MAX_MESSAGE_BYTES`].
//! - **Documents**: stored once per SHA-256 of their bytes per account (bytes in the database,
//!   table `documents`, column `content`), each with one `original` representation record.

use std::io::Read;

use chrono::{DateTime, Utc};
use mail_parser::{Address, HeaderValue, Message, MessageParser, MimeHeaders};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Domain of inbound addresses (`<token>@inbound.teu.local`); see [`inbound_address`].
pub const INBOUND_DOMAIN: &str = "inbound.teu.local";
/// Largest attachment accepted, in bytes (25 MiB, decoded size; the common mail-server limit).
pub const MAX_ATTACHMENT_BYTES: usize = 25 * 1024 * 1024;
/// Largest message file accepted, in bytes (64 MiB, raw MIME text as read from disk).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;
/// Largest uncompressed size of all entries of one zip attachment, in bytes (100 MiB).
pub const MAX_ZIP_UNCOMPRESSED_BYTES: u64 = 100 * 1024 * 1024;
/// Largest uncompressed/compressed ratio of a zip entry (ordinary documents compress far less).
pub const MAX_ZIP_RATIO: u64 = 100;
/// Most entries one zip attachment may have.
pub const MAX_ZIP_ENTRIES: usize = 10_000;

/// An inbound address for a new account: `<12 hex of a v4 UUID>@`[`INBOUND_DOMAIN`].
pub fn inbound_address() -> String {
    format!(
        "{}@{INBOUND_DOMAIN}",
        &Uuid::new_v4().simple().to_string()[..12]
    )
}

/// One stored email (interface.md: email_submission).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmailSubmission {
    pub id: Uuid,
    pub account_id: Uuid,
    /// The user who sent it in; teu has no users yet, so always `None` (served as null).
    pub user_id: Option<Uuid>,
    pub subject: Option<String>,
    /// Plain text body (HTML-only mail turned into text).
    pub body: Option<String>,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub message_id: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    /// Top-level MIME type, e.g. `multipart/mixed`.
    pub content_type: Option<String>,
    /// Distinct documents attached (equals `document_ids.len()`).
    pub documents_count: i64,
    /// Attached documents, in order of first appearance, each once.
    pub document_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// An attachment, stored once per content hash per account (interface.md: document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    pub id: Uuid,
    pub account_id: Uuid,
    /// File name of the first attachment seen with these bytes (`attachment-<n>` when unnamed).
    pub file_name: String,
    /// MIME type as declared by the message, e.g. `application/pdf`.
    pub media_type: String,
    /// Size of the decoded bytes.
    pub byte_size: i64,
    /// SHA-256 of the decoded bytes, lower-case hex.
    pub sha256: String,
    /// Id of its latest representation (today always the `original` one).
    pub last_document_representation_id: Uuid,
    pub created_at: DateTime<Utc>,
}

/// A representation of a document (interface.md: document representation). teu records the
/// `original` bytes; extracted forms (text, fields by document schema) would be further kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentRepresentation {
    pub id: Uuid,
    pub document_id: Uuid,
    /// `original`.
    pub kind: String,
    pub media_type: String,
    pub byte_size: i64,
    pub sha256: String,
    pub created_at: DateTime<Utc>,
}

/// An attachment as read from a message, before storing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedAttachment {
    pub file_name: String,
    pub media_type: String,
    pub sha256: String,
    pub bytes: Vec<u8>,
}

/// A message as read, before its owner is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEmail {
    pub subject: Option<String>,
    pub body: Option<String>,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    /// `Delivered-To` and `X-Original-To` addresses (routing only, not served).
    pub delivered_to: Vec<String>,
    pub sent_at: Option<DateTime<Utc>>,
    pub message_id: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    pub content_type: Option<String>,
    pub attachments: Vec<ParsedAttachment>,
}

impl ParsedEmail {
    /// Every recipient address (`To`, `Cc`, `Delivered-To`, `X-Original-To`), lower-cased.
    pub fn recipients(&self) -> impl Iterator<Item = &str> {
        self.to
            .iter()
            .chain(&self.cc)
            .chain(&self.delivered_to)
            .map(String::as_str)
    }
}

/// Why a message was refused. The text is the quarantine reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailRefusal {
    #[error("malformed message: {0}")]
    Malformed(String),
    #[error("text part {part} is in charset {charset:?}, which no decoder knows")]
    UnknownCharset { part: usize, charset: String },
    #[error("message is {size} bytes, above the limit of {MAX_MESSAGE_BYTES} bytes")]
    MessageTooLarge { size: usize },
    #[error("attachment {file_name:?} is {size} bytes, above the limit of {MAX_ATTACHMENT_BYTES} bytes (25 MiB)")]
    AttachmentTooLarge { file_name: String, size: usize },
    #[error("attachment {file_name:?} refused as a possible zip bomb: {detail}")]
    ZipBomb { file_name: String, detail: String },
    #[error("no account has the inbound address {0}")]
    UnknownInboundAddress(String),
}

/// Parses one RFC 5322 message (see the module documentation for the rules).
pub fn parse_message(raw: &[u8]) -> Result<ParsedEmail, EmailRefusal> {
    if raw.len() > MAX_MESSAGE_BYTES {
        return Err(EmailRefusal::MessageTooLarge { size: raw.len() });
    }
    let msg = MessageParser::default()
        .parse(raw)
        .ok_or_else(|| EmailRefusal::Malformed("the MIME parser found no message".into()))?;
    if msg.from().is_none()
        && msg.date().is_none()
        && msg.subject().is_none()
        && msg.message_id().is_none()
    {
        return Err(EmailRefusal::Malformed(
            "no From, Date, Subject or Message-ID header: not an RFC 5322 message".into(),
        ));
    }
    check_charsets(&msg)?;
    let mut attachments = Vec::new();
    for (n, part) in msg.attachments().enumerate() {
        let bytes = part.contents();
        let file_name = part
            .attachment_name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("attachment-{}", n + 1));
        if bytes.len() > MAX_ATTACHMENT_BYTES {
            return Err(EmailRefusal::AttachmentTooLarge {
                file_name,
                size: bytes.len(),
            });
        }
        let media_type = part
            .content_type()
            .map(|ct| match ct.subtype() {
                Some(sub) => format!("{}/{}", ct.ctype(), sub),
                None => ct.ctype().to_string(),
            })
            .unwrap_or_else(|| "application/octet-stream".into())
            .to_ascii_lowercase();
        if is_zip(&media_type, &file_name, bytes) {
            check_zip(bytes).map_err(|detail| EmailRefusal::ZipBomb {
                file_name: file_name.clone(),
                detail,
            })?;
        }
        attachments.push(ParsedAttachment {
            file_name,
            media_type,
            sha256: hex::encode(Sha256::digest(bytes)),
            bytes: bytes.to_vec(),
        });
    }
    let message_id = match msg.message_id() {
        Some(id) if !id.trim().is_empty() => id.trim().to_string(),
        _ => format!("sha256-{}@teu.invalid", hex::encode(Sha256::digest(raw))),
    };
    let sent_at = msg
        .date()
        .filter(|d| d.is_valid())
        .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0));
    let mut delivered_to = Vec::new();
    for name in ["Delivered-To", "X-Original-To"] {
        for v in msg.header_values(name) {
            delivered_to.extend(header_addresses(v));
        }
    }
    Ok(ParsedEmail {
        subject: msg.subject().map(str::to_string),
        body: msg.body_text(0).map(|b| b.into_owned()),
        from: addresses(msg.from()),
        to: addresses(msg.to()),
        cc: addresses(msg.cc()),
        delivered_to,
        sent_at,
        message_id,
        in_reply_to: text_list(msg.in_reply_to()).into_iter().next(),
        references: text_list(msg.references()),
        content_type: msg.content_type().map(|ct| match ct.subtype() {
            Some(sub) => format!("{}/{}", ct.ctype(), sub).to_ascii_lowercase(),
            None => ct.ctype().to_ascii_lowercase(),
        }),
        attachments,
    })
}

/// Splits an mbox (mboxrd/mboxo, `From ` separator lines) into messages with mail-parser's
/// reader.
pub fn split_mbox(raw: &[u8]) -> Vec<Vec<u8>> {
    mail_parser::mailbox::mbox::MessageIterator::new(raw)
        .filter_map(|m| m.ok())
        .map(|m| m.unwrap_contents())
        .collect()
}

/// Whether `raw` looks like an mbox (first line starts with `From `).
pub fn is_mbox(raw: &[u8]) -> bool {
    raw.starts_with(b"From ")
}

/// Whether `raw` looks like one RFC 5322 message: its first line is a header field
/// (`Name: value`, a name of ASCII letters, digits and `-`).
pub fn looks_like_message(raw: &[u8]) -> bool {
    let line = raw.split(|b| *b == b'\n').next().unwrap_or_default();
    match line.iter().position(|b| *b == b':') {
        Some(colon) if colon > 0 => line[..colon]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-'),
        _ => false,
    }
}

fn addresses(a: Option<&Address<'_>>) -> Vec<String> {
    a.map(|a| {
        a.iter()
            .filter_map(|x| x.address())
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

fn header_addresses(v: &HeaderValue<'_>) -> Vec<String> {
    match v {
        HeaderValue::Address(a) => addresses(Some(a)),
        HeaderValue::Text(t) => vec![t.trim().trim_matches(['<', '>']).to_ascii_lowercase()],
        _ => Vec::new(),
    }
}

fn text_list(v: &HeaderValue<'_>) -> Vec<String> {
    match v {
        HeaderValue::Text(t) => vec![t.to_string()],
        HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Refuses text parts whose declared charset no decoder knows (mail-parser would otherwise
/// pass the bytes through as they are).
fn check_charsets(msg: &Message<'_>) -> Result<(), EmailRefusal> {
    for (i, part) in msg.parts.iter().enumerate() {
        let Some(ct) = part.content_type() else {
            continue;
        };
        if !ct.ctype().eq_ignore_ascii_case("text") {
            continue;
        }
        if let Some(charset) = ct.attribute("charset") {
            if encoding_rs::Encoding::for_label(charset.trim().as_bytes()).is_none()
                && !charset.eq_ignore_ascii_case("us-ascii")
                && !charset.eq_ignore_ascii_case("utf7")
                && !charset.eq_ignore_ascii_case("utf-7")
            {
                return Err(EmailRefusal::UnknownCharset {
                    part: i,
                    charset: charset.to_string(),
                });
            }
        }
    }
    Ok(())
}

fn is_zip(media_type: &str, file_name: &str, bytes: &[u8]) -> bool {
    media_type == "application/zip"
        || media_type == "application/x-zip-compressed"
        || file_name.to_ascii_lowercase().ends_with(".zip")
        || bytes.starts_with(b"PK\x03\x04")
}

/// Zip-bomb check: entry count, declared sizes and ratios from the central directory, then every
/// entry inflated with a cap (declared sizes can lie). Returns what is wrong.
fn check_zip(bytes: &[u8]) -> Result<(), String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a readable zip archive: {e}"))?;
    if archive.len() > MAX_ZIP_ENTRIES {
        return Err(format!(
            "{} entries, above the limit of {MAX_ZIP_ENTRIES}",
            archive.len()
        ));
    }
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| format!("entry {i} cannot be read: {e}"))?;
        let name = entry.name().to_string();
        let compressed = entry.compressed_size().max(1);
        let declared = entry.size();
        if declared / compressed > MAX_ZIP_RATIO {
            return Err(format!(
                "entry {name:?} declares {declared} bytes from {compressed} (ratio above {MAX_ZIP_RATIO})"
            ));
        }
        let budget = (compressed.saturating_mul(MAX_ZIP_RATIO))
            .min(MAX_ZIP_UNCOMPRESSED_BYTES - total.min(MAX_ZIP_UNCOMPRESSED_BYTES));
        let read = std::io::copy(&mut (&mut entry).take(budget + 1), &mut std::io::sink())
            .map_err(|e| format!("entry {name:?} cannot be inflated: {e}"))?;
        if read > budget {
            return Err(format!(
                "entry {name:?} inflates past {budget} bytes (ratio {MAX_ZIP_RATIO}, total {MAX_ZIP_UNCOMPRESSED_BYTES} bytes)"
            ));
        }
        total += read;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
