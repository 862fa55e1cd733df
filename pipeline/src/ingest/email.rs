//! The ingest of message files: an `.eml` (one RFC 5322 message) or an mbox (many), each
//! message parsed by [`crate::email`] and stored for its owner (the account of its inbound
//! address) with [`Store::save_email`].

use std::collections::HashMap;
use std::path::Path;

use super::{FileSummary, IngestError};
use crate::email::{
    is_mbox, looks_like_message, parse_message, split_mbox, EmailRefusal, ParsedEmail,
    INBOUND_DOMAIN,
};
use crate::feeds::{FeedError, FeedFormat, Quarantined};
use crate::model::Account;
use crate::store::{Result, Store};

/// Whether `path` should be read as email: extension `.eml` or `.mbox`, or content that starts
/// like an mbox or an RFC 5322 header (and not like JSON).
pub fn is_email_file(path: &Path, head: &[u8]) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if matches!(ext.as_deref(), Some("eml") | Some("mbox")) {
        return true;
    }
    if ext.as_deref() == Some("json") {
        return false;
    }
    is_mbox(head) || looks_like_message(head)
}

/// Reads an `.eml` file (one message) or an mbox (many) and stores each message for its owner
/// (module documentation of [`crate::email`]). Refused messages are quarantined under
/// `default_account` with pointer `/messages/<n>` and the reason; the others are kept.
pub async fn ingest_email_bytes(
    store: &Store,
    default_account: &Account,
    bytes: &[u8],
    source_file: &str,
) -> std::result::Result<FileSummary, IngestError> {
    let (format, messages) = if is_mbox(bytes) {
        (FeedFormat::Mbox, split_mbox(bytes))
    } else {
        (FeedFormat::Email, vec![bytes.to_vec()])
    };
    let mut accepted = 0;
    let mut quarantined = Vec::new();
    let mut owners: HashMap<String, Option<Account>> = HashMap::new();
    for (index, raw) in messages.iter().enumerate() {
        let outcome = match parse_message(raw) {
            Ok(email) => match owner(store, default_account, &email, &mut owners).await? {
                Ok(account) => {
                    store.save_email(account.id, &email, source_file).await?;
                    Ok(())
                }
                Err(refusal) => Err(refusal),
            },
            Err(refusal) => Err(refusal),
        };
        match outcome {
            Ok(()) => accepted += 1,
            Err(refusal) => quarantined.push(Quarantined {
                source_file: source_file.to_string(),
                index: Some(index),
                pointer: format!("/messages/{index}"),
                reason: refusal.to_string(),
                payload: None,
            }),
        }
    }
    store
        .insert_quarantine(default_account.id, &quarantined)
        .await?;
    Ok(FileSummary {
        file: source_file.to_string(),
        format,
        rows_read: messages.len(),
        accepted,
        positions: 0,
        quarantined,
        shipments: 0,
        containers: 0,
        waiting: 0,
        timings: Default::default(),
    })
}

/// Reads `path` and ingests it with [`ingest_email_bytes`].
pub async fn ingest_email_file(
    store: &Store,
    default_account: &Account,
    path: &Path,
) -> std::result::Result<FileSummary, IngestError> {
    let bytes = std::fs::read(path).map_err(|source| FeedError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    ingest_email_bytes(store, default_account, &bytes, &path.display().to_string()).await
}

/// The owner of a message: the account of an inbound-address recipient, a refusal for an
/// unknown inbound address, else `default_account`.
async fn owner(
    store: &Store,
    default_account: &Account,
    email: &ParsedEmail,
    cache: &mut HashMap<String, Option<Account>>,
) -> Result<std::result::Result<Account, EmailRefusal>> {
    let suffix = format!("@{INBOUND_DOMAIN}");
    let mut unknown = None;
    for r in email.recipients() {
        if !r.ends_with(&suffix) {
            continue;
        }
        if !cache.contains_key(r) {
            let a = store.account_by_inbound_address(r).await?;
            cache.insert(r.to_string(), a);
        }
        match cache.get(r) {
            Some(Some(a)) => return Ok(Ok(a.clone())),
            _ => unknown = unknown.or(Some(r.to_string())),
        }
    }
    Ok(match unknown {
        Some(address) => Err(EmailRefusal::UnknownInboundAddress(address)),
        None => Ok(default_account.clone()),
    })
}
