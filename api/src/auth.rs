//! API-key authentication, the same for `/v2` and GraphQL (Terminal49's API reference,
//! "Authentication": `Authorization: Token <API_KEY>`).
//!
//! [`api_key`] reads the header value (the scheme case-insensitive, one or more spaces, the key
//! itself exact); [`account`] finds the key's account in the store (keys are stored hashed,
//! `teu_store::Store::authenticate`). A refusal ([`AuthError::Key`],
//! [`AuthError::UnknownKey`]) says what is wrong in words a client can act on; each API answers
//! it as its own 401 (`/v2`: JSON:API `unauthorized`; GraphQL: `UNAUTHENTICATED`).

use teu_domain::model::Account;
use teu_store::{Store, StoreError};

/// What is wrong with an `Authorization` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// No header.
    #[error("The Authorization header is missing; send Authorization: Token <API_KEY>.")]
    Missing,
    /// Not visible ASCII, or no space between scheme and key.
    #[error("The Authorization header is malformed; send Authorization: Token <API_KEY>.")]
    Malformed,
    /// A scheme other than `Token` (`Bearer`, `Basic`, …).
    #[error("The Authorization header must use the Token scheme: Authorization: Token <API_KEY>.")]
    WrongScheme,
    /// `Token` followed by nothing but spaces.
    #[error("The Authorization header has no API key; send Authorization: Token <API_KEY>.")]
    NoKey,
}

/// Why a request has no account.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The header is missing or malformed.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The key belongs to no account.
    #[error("The API key is not valid.")]
    UnknownKey,
    /// The store could not be asked (see [`crate::failure::is_unavailable`]).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The key of an `Authorization: Token <key>` header value (`None`: no header), as raw bytes.
///
/// # Errors
///
/// [`KeyError`] saying what is wrong: missing, malformed (not visible ASCII, no space after the
/// scheme), another scheme, or no key.
pub fn api_key(value: Option<&[u8]>) -> Result<String, KeyError> {
    let value = value.ok_or(KeyError::Missing)?;
    // What HTTP allows in a header value that is text: visible ASCII, spaces and tabs.
    if !value.iter().all(|&b| b == b'\t' || (32..127).contains(&b)) {
        return Err(KeyError::Malformed);
    }
    let value = std::str::from_utf8(value).map_err(|_| KeyError::Malformed)?;
    let (scheme, key) = value.trim().split_once(' ').ok_or(KeyError::Malformed)?;
    if !scheme.eq_ignore_ascii_case("token") {
        return Err(KeyError::WrongScheme);
    }
    let key = key.trim_start();
    if key.is_empty() {
        return Err(KeyError::NoKey);
    }
    Ok(key.to_string())
}

/// The account of the request whose `Authorization` header value is `header`.
///
/// # Errors
///
/// [`AuthError::Key`] for a missing or malformed header, [`AuthError::UnknownKey`] for a key
/// of no account, [`AuthError::Store`] when the store fails.
pub async fn account(store: &Store, header: Option<&[u8]>) -> Result<Account, AuthError> {
    let key = api_key(header)?;
    store.authenticate(&key).await?.ok_or(AuthError::UnknownKey)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_header_parsing() {
        let key = |s: &str| api_key(Some(s.as_bytes()));
        assert_eq!(key("Token abc").unwrap(), "abc");
        assert_eq!(key("token   abc").unwrap(), "abc");
        assert_eq!(key("TOKEN abc ").unwrap(), "abc");
        assert_eq!(api_key(None), Err(KeyError::Missing));
        assert_eq!(key("Bearer abc"), Err(KeyError::WrongScheme));
        assert_eq!(key("Token"), Err(KeyError::Malformed));
        assert_eq!(key("Token  "), Err(KeyError::Malformed));
        assert_eq!(key("abc"), Err(KeyError::Malformed));
        assert_eq!(key("Token ab\u{7f}c"), Err(KeyError::Malformed));
        assert!(KeyError::Missing.to_string().contains("missing"));
        assert!(KeyError::WrongScheme.to_string().contains("Token scheme"));
    }
}
