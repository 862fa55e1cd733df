//! Accounts of API keys already seen, kept per store for a minute, so that a page read does not
//! ask the database who its key belongs to on every request.
//!
//! Sound because neither a key nor an account changes once written: `api_keys` and
//! `accounts` take `INSERT`s only (`Store::create_account`, `Store::issue_key`); nothing in teu
//! updates or deletes them. Only keys the store knows are kept, so a key issued by another
//! process is found the first time it is sent. An entry is used for at most [`TTL`] after it
//! was read, so a key deleted by hand from the database stops working within that time; a
//! revocation feature would have to drop the entry on the server that revokes and wait out
//! [`TTL`] on the others.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use lru::LruCache;
use teu_domain::model::Account;

/// How long an entry answers for its key before the database is asked again.
pub(crate) const TTL: Duration = Duration::from_secs(60);

/// Keys kept (least recently used first out): an account a key, about 200 bytes each.
const ENTRIES: NonZeroUsize = match NonZeroUsize::new(1_024) {
    Some(n) => n,
    None => panic!("ENTRIES is not zero"),
};

/// The accounts of known keys by key hash (`hash_key`'s hex SHA-256), shared by a store's
/// clones and never by two stores (a test process serves several databases).
#[derive(Clone)]
pub(crate) struct KeyMemo {
    entries: Arc<Mutex<LruCache<String, (Account, Instant)>>>,
}

impl Default for KeyMemo {
    fn default() -> Self {
        KeyMemo {
            entries: Arc::new(Mutex::new(LruCache::new(ENTRIES))),
        }
    }
}

impl KeyMemo {
    /// The account of the key whose hash is `key_hash`, when read less than [`TTL`] ago.
    pub(crate) fn get(&self, key_hash: &str) -> Option<Account> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(key_hash) {
            Some((account, read_at)) if read_at.elapsed() < TTL => Some(account.clone()),
            Some(_) => {
                entries.pop(key_hash);
                None
            }
            None => None,
        }
    }

    /// Keeps `account` as the owner of the key whose hash is `key_hash`, read just now.
    pub(crate) fn put(&self, key_hash: String, account: Account) {
        self.put_read_at(key_hash, account, Instant::now());
    }

    fn put_read_at(&self, key_hash: String, account: Account, read_at: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.put(key_hash, (account, read_at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn account(name: &str) -> Account {
        Account {
            id: Uuid::new_v4(),
            name: name.into(),
            company_name: name.into(),
            routing_data: false,
            created_at: chrono::Utc::now(),
        }
    }

    /// An entry answers for its key until it is [`TTL`] old, then is dropped; keys are exact.
    #[test]
    fn entries_answer_for_a_minute() {
        let memo = KeyMemo::default();
        let (a, b) = (account("a"), account("b"));
        memo.put("k1".into(), a.clone());
        assert_eq!(memo.get("k1"), Some(a));
        assert_eq!(memo.get("k2"), None);
        let Some(old) = Instant::now().checked_sub(TTL) else {
            return; // a clock younger than a minute: nothing to age
        };
        memo.put_read_at("k2".into(), b.clone(), old);
        assert_eq!(memo.get("k2"), None, "an entry read a minute ago");
        assert_eq!(
            memo.entries.lock().unwrap().len(),
            1,
            "the old entry is dropped"
        );
        let recent = Instant::now() - Duration::from_secs(50);
        memo.put_read_at("k2".into(), b.clone(), recent);
        assert_eq!(memo.get("k2"), Some(b));
    }
}
