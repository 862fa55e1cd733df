//! The notification outbox: rows written in the ingest's own transaction, claimed by delivery
//! workers with a lease and settled after each attempt (the SQL is `teu_store::outbox`:
//! `Store::claim_notifications`, `Store::settle_notifications`). This module holds the retry
//! policy and the types the delivery workers exchange with the store.
//!
//! A claim sets `locked_until` (the lease) and counts the attempt. A worker that dies mid-way
//! leaves the lease to run out, and the next claim after it takes the row again with the same
//! id (the idempotency key), so nothing is lost and a receiver may see a notification twice.
//! On PostgreSQL the claim locks rows with `FOR UPDATE SKIP LOCKED`, so several servers on one
//! database never claim the same row; SQLite serializes writers, so its one `UPDATE … RETURNING`
//! is already exclusive.

use std::time::Duration;

use uuid::Uuid;

use super::{DeliveryStatus, Notification};

/// Attempts before a notification is `failed` (Terminal49's webhooks guide: up to 12).
pub const MAX_ATTEMPTS: i64 = 12;
/// Default first retry delay (env `TEU_WEBHOOK_RETRY_BASE_MS`).
pub const DEFAULT_RETRY_BASE: Duration = Duration::from_secs(60);
/// Longest retry delay.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(6 * 3600);

/// When failed attempts are retried: `base`, doubling after each failed attempt, at most
/// [`MAX_RETRY_DELAY`], for up to `max_attempts` attempts in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay after the first failed attempt.
    pub base: Duration,
    /// Attempts in all.
    pub max_attempts: i64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            base: DEFAULT_RETRY_BASE,
            max_attempts: MAX_ATTEMPTS,
        }
    }
}

/// A malformed `TEU_WEBHOOK_RETRY_BASE_MS`.
#[derive(Debug, thiserror::Error)]
#[error(
    "TEU_WEBHOOK_RETRY_BASE_MS={0:?}: expected a whole number of milliseconds from 1 to 21600000"
)]
pub struct RetryBaseError(pub String);

impl RetryPolicy {
    /// The policy with `TEU_WEBHOOK_RETRY_BASE_MS` (milliseconds) as its base, when set.
    ///
    /// # Errors
    ///
    /// [`RetryBaseError`] when the variable is set but not a number of milliseconds in range.
    pub fn from_env() -> std::result::Result<RetryPolicy, RetryBaseError> {
        let mut policy = RetryPolicy::default();
        if let Ok(v) = std::env::var("TEU_WEBHOOK_RETRY_BASE_MS") {
            let ms: u64 = v
                .trim()
                .parse()
                .ok()
                .filter(|ms| (1..=21_600_000).contains(ms))
                .ok_or_else(|| RetryBaseError(v.clone()))?;
            policy.base = Duration::from_millis(ms);
        }
        Ok(policy)
    }

    /// The delay after failed attempt number `attempt` (1-based): base × 2^(attempt − 1),
    /// capped.
    pub fn delay(&self, attempt: i64) -> Duration {
        let doublings = u32::try_from(attempt.saturating_sub(1).clamp(0, 30)).unwrap_or(30);
        self.base
            .checked_mul(1u32 << doublings)
            .unwrap_or(MAX_RETRY_DELAY)
            .min(MAX_RETRY_DELAY)
    }
}

/// What `teu_store::Store::list_notifications_filtered` narrows the list to; fields left `None` match
/// every notification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotificationFilter {
    /// Notifications for this webhook.
    pub webhook_id: Option<Uuid>,
    /// Notifications of this event name.
    pub event: Option<String>,
    /// Notifications in this delivery state.
    pub delivery_status: Option<DeliveryStatus>,
    /// Notifications about this container.
    pub container_id: Option<Uuid>,
}

/// How one delivery attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// The receiver answered 200, 201, 202 or 204.
    Delivered {
        /// Its status code.
        status: u16,
    },
    /// Anything else: another status, a timeout, a refused or unreachable address.
    Failed {
        /// The status code, when the receiver answered.
        status: Option<u16>,
        /// What went wrong, for `GET /v2/webhook_notifications` readers and the logs (never the
        /// secret).
        error: String,
    },
}

/// One finished attempt, to be recorded by `teu_store::Store::settle_notifications`.
#[derive(Debug, Clone)]
pub struct Settlement {
    /// The notification as claimed (its `attempts` already counts this attempt).
    pub notification: Notification,
    /// How the attempt ended.
    pub attempt: Attempt,
    /// The body the attempt sent, when it was rendered for this attempt (kept for retries).
    pub body: Option<String>,
}
