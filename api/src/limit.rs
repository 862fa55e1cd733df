//! The per-account rate limit of carrier inference (interface.md: Limits, 200 requests per minute on
//! `POST /tracking_requests/infer_number`).
//!
//! One [`AccountLimiter`] is shared by the `/v2` infer operation and the GraphQL `inferNumber`
//! and `inferNumbers` fields, so an account has one allowance whichever API it uses. What
//! counts as one request is the caller's rule (the REST operation and each GraphQL field
//! invocation count one; see the graphql crate).

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use uuid::Uuid;

/// Inference requests per minute and account (interface.md: Limits).
pub const INFER_REQUESTS_PER_MINUTE: u32 = 200;

/// The allowance is used up: wait `retry_after` seconds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rate limit of {per_minute} requests per minute exceeded; retry after {retry_after} s")]
pub struct RateLimited {
    /// Whole seconds until a request will be accepted again (at least 1).
    pub retry_after: u64,
    /// The allowance per minute.
    pub per_minute: u32,
}

/// A per-account limiter (GCRA, the `governor` crate): bursts of up to the per-minute
/// allowance, refilled evenly over the minute. Cheap to clone; clones share the allowance.
#[derive(Clone)]
pub struct AccountLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<Uuid>>,
    per_minute: u32,
}

impl std::fmt::Debug for AccountLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountLimiter")
            .field("per_minute", &self.per_minute)
            .finish_non_exhaustive()
    }
}

impl Default for AccountLimiter {
    /// The spec's limit: [`INFER_REQUESTS_PER_MINUTE`].
    fn default() -> Self {
        AccountLimiter::per_minute(INFER_REQUESTS_PER_MINUTE)
    }
}

impl AccountLimiter {
    /// A limiter allowing `per_minute` requests per minute per account (at least 1).
    pub fn per_minute(per_minute: u32) -> Self {
        let n = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        AccountLimiter {
            limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(n))),
            per_minute: n.get(),
        }
    }

    /// The allowance per minute.
    pub fn allowance(&self) -> u32 {
        self.per_minute
    }

    /// Counts one request of `account`.
    ///
    /// # Errors
    ///
    /// [`RateLimited`] with the whole seconds to wait (at least 1) when the allowance is used
    /// up; the refused request is not counted.
    pub fn check(&self, account: Uuid) -> Result<(), RateLimited> {
        self.limiter.check_key(&account).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            RateLimited {
                retry_after: (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1),
                per_minute: self.per_minute,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_counts_per_account_and_is_shared_by_clones() {
        let limiter = AccountLimiter::per_minute(3);
        let clone = limiter.clone();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        limiter.check(a).unwrap();
        clone.check(a).unwrap();
        limiter.check(a).unwrap();
        let e = clone.check(a).unwrap_err();
        assert!((1..=20).contains(&e.retry_after), "{e:?}");
        assert_eq!(e.per_minute, 3);
        limiter.check(b).unwrap();
        assert_eq!(AccountLimiter::default().allowance(), 200);
    }
}
