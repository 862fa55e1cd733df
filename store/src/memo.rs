//! Record bodies decoded once per process: the `body` of a `containers` or `shipments` row (a
//! zstd frame of the record's JSON, migration 32) kept decoded by its stored bytes, so that a
//! page read again (a frontend polling its first page, a `/v2` client its list) decompresses
//! and parses only the bodies that changed since (issue 16, "fast reads": a page of 30
//! containers with their shipments decoded 60 bodies, a fifth of the GraphQL page's
//! instructions and a third of `/v2`'s).
//!
//! The key is the stored frame itself, byte for byte, not the row's id or content hash: the
//! decoded value is a function of those bytes alone (the dictionaries a frame names never
//! change once released, `payloads`), so an entry can never be stale and needs no
//! invalidation when a derivation rewrites a row; a rewritten row has other bytes and misses.
//! Only the body is kept: what the row's other columns add (`created_at`, `refreshed_at`, a
//! shipment's tags and user edits) is applied to each read as before.
//!
//! Each memo holds at most [`ENTRIES`] records (least recently read first out); the store's
//! read paths use it (`container_row`, `shipment_row`), the derivation does not (it reads rows
//! it is about to replace).

use std::num::NonZeroUsize;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use lru::LruCache;

/// Records each memo keeps: every container and shipment of a 5,000-container account, a few
/// hundred pages of a larger one. An entry (its frame, about 220 bytes, and the decoded record)
/// took about 2.4 KB of resident memory (`teu serve` after reading all 5,000 containers and
/// 2,110 shipments of a simulated account: 17 MB more than without the memo), so the two memos
/// full hold about 40 MB.
pub(crate) const ENTRIES: usize = 8_192;

const CAPACITY: NonZeroUsize = match NonZeroUsize::new(ENTRIES) {
    Some(n) => n,
    None => panic!("ENTRIES is not zero"),
};

type Entries<T> = Mutex<LruCache<Box<[u8]>, T>>;

fn empty<T>() -> Entries<T> {
    Mutex::new(LruCache::new(CAPACITY))
}

/// Decoded records of one table, by stored body bytes (see the module's documentation).
pub(crate) struct BodyMemo<T> {
    entries: LazyLock<Entries<T>, fn() -> Entries<T>>,
}

impl<T: Clone> BodyMemo<T> {
    /// An empty memo of at most [`ENTRIES`] records.
    pub(crate) const fn new() -> Self {
        BodyMemo {
            entries: LazyLock::new(empty::<T>),
        }
    }

    /// The record whose body is stored as `stored`: a copy of the memo's when it has one,
    /// otherwise `decode(stored)`, kept for the next read when it succeeds. An error of
    /// `decode` is returned as it is and nothing is kept.
    pub(crate) fn get_or_decode<E>(
        &self,
        stored: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Result<T, E> {
        if let Some(hit) = self.lock().get(stored) {
            return Ok(hit.clone());
        }
        let value = decode(stored)?;
        self.lock().put(stored.into(), value.clone());
        Ok(value)
    }

    /// Records kept now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The entries, locked. A panic while another thread held the lock leaves them as that
    /// thread's last complete `get` or `put` did; they are still valid, so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, LruCache<Box<[u8]>, T>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::BodyMemo;

    #[test]
    fn decodes_each_stored_value_once_and_keeps_no_error() {
        static MEMO: BodyMemo<String> = BodyMemo::new();
        let mut calls = 0;
        let mut decode = |bytes: &[u8]| -> Result<String, String> {
            calls += 1;
            String::from_utf8(bytes.to_vec()).map_err(|e| e.to_string())
        };
        assert_eq!(
            MEMO.get_or_decode(b"one", &mut decode),
            Ok("one".to_string())
        );
        assert_eq!(
            MEMO.get_or_decode(b"one", &mut decode),
            Ok("one".to_string())
        );
        assert_eq!(
            MEMO.get_or_decode(b"two", &mut decode),
            Ok("two".to_string())
        );
        assert!(MEMO.get_or_decode(&[0xff], &mut decode).is_err());
        assert!(MEMO.get_or_decode(&[0xff], &mut decode).is_err());
        assert_eq!(
            calls, 4,
            "two hits, two decodes, an error decoded each time"
        );
        assert_eq!(MEMO.len(), 2);
    }

    #[test]
    fn keeps_at_most_its_entries_least_recently_read_first_out() {
        static MEMO: BodyMemo<usize> = BodyMemo::new();
        let n = super::ENTRIES + 10;
        for i in 0..n {
            let key = i.to_le_bytes();
            assert_eq!(MEMO.get_or_decode(&key, |_| Ok::<_, ()>(i)), Ok(i));
        }
        assert_eq!(MEMO.len(), super::ENTRIES);
        // The first ten were read least recently: decoded again; the last one is kept.
        let again = |i: usize| MEMO.get_or_decode(&i.to_le_bytes(), |_| Err::<usize, _>(i));
        assert_eq!(again(0), Err(0));
        assert_eq!(again(n - 1), Ok(n - 1));
    }
}
