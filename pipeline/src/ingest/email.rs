//! The ingest of message files: an `.eml` (one RFC 5322 message) or an mbox (many), each
//! message parsed by [`crate::email`] and stored for its owner (the account of its inbound
//! address) with [`Store::save_emails`], several files' messages in one transaction.

use std::collections::HashMap;
use std::path::Path;

use super::{FileSummary, IngestError};
use crate::email::{
    is_mbox, looks_like_message, parse_message, split_mbox, EmailRefusal, ParsedEmail,
    INBOUND_DOMAIN,
};
use crate::feeds::{FeedError, FeedFormat, Quarantined};
use crate::model::Account;
use crate::store::{NewEmail, Result, Store};
use uuid::Uuid;

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

/// An email file read for [`ingest_email_files`]: its name (reported, and kept as each
/// submission's `source_file`) and its bytes.
#[derive(Debug)]
pub struct EmailFile {
    pub source_file: String,
    pub bytes: Vec<u8>,
}

/// Reads an `.eml` file (one message) or an mbox (many) and stores each message for its owner
/// (module documentation of [`crate::email`]): [`ingest_email_files`] of one file.
pub async fn ingest_email_bytes(
    store: &Store,
    default_account: &Account,
    bytes: Vec<u8>,
    source_file: &str,
) -> std::result::Result<FileSummary, IngestError> {
    let file = EmailFile {
        source_file: source_file.to_string(),
        bytes,
    };
    let mut summaries =
        ingest_email_files(store, default_account, std::slice::from_ref(&file)).await?;
    summaries
        .pop()
        .ok_or_else(|| IngestError::Worker(format!("no summary of the email file {source_file}")))
}

/// Reads email files (each an `.eml` of one message or an mbox of many) and stores every
/// message for its owner in one transaction ([`Store::save_emails`]); returns each file's
/// summary, in order. Refused messages are quarantined under `default_account` with pointer
/// `/messages/<n>` (the message's place in its file) and the reason; the others are kept.
///
/// # Errors
/// A store error (an owner's lookup, the save, the quarantine): then none of the files'
/// messages may be kept but those the save committed before a failed quarantine. Give the
/// files one at a time to learn which one failed (`store_emails` in [`super`] does).
pub async fn ingest_email_files(
    store: &Store,
    default_account: &Account,
    files: &[EmailFile],
) -> std::result::Result<Vec<FileSummary>, IngestError> {
    let mut owners: HashMap<String, Option<Account>> = HashMap::new();
    let mut summaries = Vec::with_capacity(files.len());
    // Each accepted message: its file's place in `files`, its owner and the message.
    let mut accepted: Vec<(usize, Uuid, ParsedEmail)> = Vec::new();
    let mut quarantined = Vec::new();
    for (file, read) in files.iter().enumerate() {
        let (format, messages) = if is_mbox(&read.bytes) {
            (FeedFormat::Mbox, split_mbox(&read.bytes))
        } else {
            (FeedFormat::Email, vec![read.bytes.clone()])
        };
        let mut refused = Vec::new();
        for (index, raw) in messages.iter().enumerate() {
            let outcome = match parse_message(raw) {
                Ok(email) => match owner(store, default_account, &email, &mut owners).await? {
                    Ok(account) => {
                        accepted.push((file, account.id, email));
                        Ok(())
                    }
                    Err(refusal) => Err(refusal),
                },
                Err(refusal) => Err(refusal),
            };
            if let Err(refusal) = outcome {
                refused.push(Quarantined {
                    source_file: read.source_file.clone(),
                    index: Some(index),
                    pointer: format!("/messages/{index}"),
                    reason: refusal.to_string(),
                    payload: None,
                });
            }
        }
        summaries.push(FileSummary {
            file: read.source_file.clone(),
            format,
            rows_read: messages.len(),
            accepted: messages.len() - refused.len(),
            positions: 0,
            quarantined: Vec::new(),
            shipments: 0,
            containers: 0,
            waiting: 0,
            timings: Default::default(),
        });
        quarantined.push(refused);
    }
    let emails: Vec<NewEmail<'_>> = accepted
        .iter()
        .map(|(file, account, email)| NewEmail {
            account: *account,
            email,
            source_file: &files[*file].source_file,
        })
        .collect();
    store.save_emails(&emails).await?;
    let refused: Vec<Quarantined> = quarantined.iter().flatten().cloned().collect();
    if !refused.is_empty() {
        store
            .insert_quarantine(default_account.id, &refused)
            .await?;
    }
    for (summary, refused) in summaries.iter_mut().zip(quarantined) {
        summary.quarantined = refused;
    }
    Ok(summaries)
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
    ingest_email_bytes(store, default_account, bytes, &path.display().to_string()).await
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
