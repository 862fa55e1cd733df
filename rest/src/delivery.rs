//! Webhook delivery: the workers that POST the outbox's notifications
//! (`teu_pipeline::webhooks::outbox`) to their webhooks.
//!
//! Rules (Terminal49's webhooks guide, and teu's issue on webhooks):
//! - the body is [`crate::payloads::payload`], rendered at the first attempt and kept, so every
//!   retry sends the same bytes with the same `data.id` (the idempotency key);
//! - header `X-T49-Webhook-Signature`: hex HMAC-SHA256 of the raw body keyed with the webhook's
//!   secret; `Content-Type: application/json`; the webhook's own extra headers;
//! - 200, 201, 202 and 204 are success; any other status, a timeout ([`DeliveryConfig::timeout`],
//!   10 s) or a connection failure is retried after the policy's delay (env
//!   `TEU_WEBHOOK_RETRY_BASE_MS`, doubling, at most 6 h), up to 12 attempts, then `failed`;
//! - URLs whose host resolves to a loopback, private, link-local (cloud metadata included),
//!   shared, multicast or unspecified address are refused after DNS resolution, and the
//!   connection is made to the checked address, unless env `TEU_WEBHOOK_ALLOW_PRIVATE=true`;
//! - at most [`DeliveryConfig::per_webhook`] deliveries per webhook run at once, and at most
//!   [`DeliveryConfig::concurrency`] in all, so a receiver that hangs costs its own webhook
//!   timeouts, not the others their throughput.
//!
//! Secrets never reach the logs: only webhook ids, notification ids and outcomes are logged.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use teu_pipeline::webhooks::outbox::{Attempt, RetryBaseError, RetryPolicy, Settlement};
use teu_pipeline::webhooks::{Notification, Webhook};
use teu_store::Store;
use tokio::sync::Semaphore;
use uuid::Uuid;

/// How long a notification given back for a busy webhook waits before it is due again.
const RELEASE_DELAY: Duration = Duration::from_secs(1);

/// The signature header.
pub const SIGNATURE_HEADER: &str = "X-T49-Webhook-Signature";

/// How the workers deliver.
#[derive(Debug, Clone)]
pub struct DeliveryConfig {
    /// When failed attempts are retried.
    pub policy: RetryPolicy,
    /// Whether loopback and private addresses may be delivered to (env
    /// `TEU_WEBHOOK_ALLOW_PRIVATE=true`; for development and tests).
    pub allow_private: bool,
    /// Longest wait for a receiver's answer.
    pub timeout: Duration,
    /// Deliveries in flight at once, over all webhooks.
    pub concurrency: usize,
    /// Deliveries in flight at once to one webhook.
    pub per_webhook: usize,
    /// Absolute URL of `/v2`, for the links inside payloads (env `TEU_PUBLIC_URL`, default
    /// `http://localhost:8080/v2`).
    pub public_base: String,
    /// How long a claimed notification stays with this worker before another may take it.
    pub lease: Duration,
    /// How long an idle worker waits before looking for due notifications again.
    pub idle: Duration,
}

/// A malformed delivery setting.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryConfigError {
    /// `TEU_WEBHOOK_RETRY_BASE_MS`.
    #[error(transparent)]
    RetryBase(#[from] RetryBaseError),
    /// `TEU_WEBHOOK_ALLOW_PRIVATE` is not `true` or `false`.
    #[error("TEU_WEBHOOK_ALLOW_PRIVATE={0:?}: expected true or false")]
    AllowPrivate(String),
}

impl DeliveryConfig {
    /// The settings from the environment (module documentation), defaults elsewhere.
    ///
    /// # Errors
    ///
    /// [`DeliveryConfigError`] for a malformed variable.
    pub fn from_env() -> Result<DeliveryConfig, DeliveryConfigError> {
        let allow_private = match std::env::var("TEU_WEBHOOK_ALLOW_PRIVATE") {
            Err(_) => false,
            Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" | "" => false,
                _ => return Err(DeliveryConfigError::AllowPrivate(v)),
            },
        };
        let public_base = std::env::var("TEU_PUBLIC_URL")
            .map(|u| format!("{}/v2", u.trim_end_matches('/')))
            .unwrap_or_else(|_| "http://localhost:8080/v2".into());
        Ok(DeliveryConfig {
            policy: RetryPolicy::from_env()?,
            allow_private,
            timeout: Duration::from_secs(10),
            concurrency: 64,
            per_webhook: 8,
            public_base,
            lease: Duration::from_secs(300),
            idle: Duration::from_millis(200),
        })
    }
}

/// Whether deliveries to `ip` are refused without `TEU_WEBHOOK_ALLOW_PRIVATE`: loopback,
/// private (RFC 1918, IPv6 unique local), link-local (169.254/16 holds cloud metadata
/// services), shared (RFC 6598), unspecified, broadcast, multicast, documentation, and IPv6
/// addresses that embed such an IPv4 address.
pub fn is_refused(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_refused(IpAddr::V4(v4));
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x64 && s[1] == 0xff9b)
                || (s[0] == 0x2001 && s[1] == 0xdb8)
        }
    }
}

/// A DNS resolver for the delivery client that drops refused addresses ([`is_refused`]), so
/// the connection goes only to an address that was checked (no second lookup to rebind).
struct CheckedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| allow || !is_refused(a.ip()))
                .collect();
            if addrs.is_empty() {
                let e: Box<dyn std::error::Error + Send + Sync> = format!(
                    "{host} resolves only to loopback, private or link-local addresses, which \
                     webhooks may not reach (set TEU_WEBHOOK_ALLOW_PRIVATE=true to allow)"
                )
                .into();
                return Err(e);
            }
            let iter: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(iter)
        })
    }
}

/// The HTTP client of the workers: no redirects (a redirect could lead to a refused address),
/// the configured timeout, the checking resolver.
pub fn client(config: &DeliveryConfig) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(config.timeout)
        .connect_timeout(config.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(Arc::new(CheckedResolver {
            allow_private: config.allow_private,
        }))
        .user_agent(concat!("teu-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Hex HMAC-SHA256 of `body` keyed with `secret`: the [`SIGNATURE_HEADER`] value.
pub fn signature(secret: &str, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// What one POST did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The receiver's status code, when it answered.
    pub status: Option<u16>,
    /// What went wrong, when it did.
    pub error: Option<String>,
    /// The headers sent (the signature included, the secret never).
    pub request_headers: HashMap<String, String>,
    /// The receiver's headers, when it answered.
    pub response_headers: Option<HashMap<String, String>>,
    /// The receiver's body (at most 64 KiB), when it answered.
    pub response_body: Option<String>,
}

impl Report {
    /// Whether the receiver accepted it (200, 201, 202 or 204).
    pub fn succeeded(&self) -> bool {
        matches!(self.status, Some(200 | 201 | 202 | 204)) && self.error.is_none()
    }

    fn attempt(&self) -> Attempt {
        if self.succeeded() {
            Attempt::Delivered {
                status: self.status.unwrap_or(200),
            }
        } else {
            Attempt::Failed {
                status: self.status,
                error: self
                    .error
                    .clone()
                    .unwrap_or_else(|| format!("HTTP {}", self.status.unwrap_or(0))),
            }
        }
    }
}

/// POSTs `body` to `hook`'s URL with its headers and signature. Never fails: what went wrong is
/// in the report.
pub async fn send(
    client: &reqwest::Client,
    config: &DeliveryConfig,
    hook: &Webhook,
    body: &str,
) -> Report {
    let mut report = Report::default();
    // A literal IP is never resolved, so check it here.
    if let Ok(url) = url::Url::parse(&hook.url) {
        let literal = match url.host() {
            Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
            Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
            _ => None,
        };
        if let Some(ip) = literal.filter(|ip| !config.allow_private && is_refused(*ip)) {
            report.error = Some(format!(
                "{ip} is a loopback, private or link-local address, which webhooks may not \
                 reach (set TEU_WEBHOOK_ALLOW_PRIVATE=true to allow)"
            ));
            return report;
        }
    }
    let mut headers: Vec<(String, String)> = hook
        .headers
        .iter()
        .map(|h| (h.name.clone(), h.value.clone()))
        .collect();
    headers.push(("Content-Type".into(), "application/json".into()));
    headers.push((
        SIGNATURE_HEADER.into(),
        signature(&hook.secret, body.as_bytes()),
    ));
    let mut request = client.post(&hook.url).body(body.to_string());
    for (name, value) in &headers {
        request = request.header(name, value);
    }
    report.request_headers = headers.into_iter().collect();
    match request.send().await {
        Err(e) => {
            report.error = Some(if e.is_timeout() {
                format!("no answer within {} s", config.timeout.as_secs())
            } else {
                error_chain(&e)
            });
        }
        Ok(resp) => {
            report.status = Some(resp.status().as_u16());
            report.response_headers = Some(
                resp.headers()
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect(),
            );
            match resp.bytes().await {
                Ok(b) => {
                    let b = &b[..b.len().min(64 * 1024)];
                    report.response_body = Some(String::from_utf8_lossy(b).into_owned());
                }
                Err(e) => report.error = Some(error_chain(&e)),
            }
        }
    }
    report
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// Attempts one claimed notification: POSTs `body` to `hook` (`None`: the webhook was
/// deleted, so the notification fails at once) and says how it ended. `new_body` is whether
/// `body` was rendered for this attempt (then the settlement keeps it for retries).
async fn attempt(
    client: &reqwest::Client,
    config: &DeliveryConfig,
    hook: Option<&Webhook>,
    mut n: Notification,
    body: String,
    new_body: bool,
) -> Settlement {
    let Some(hook) = hook else {
        n.attempts = config.policy.max_attempts;
        return Settlement {
            notification: n,
            attempt: Attempt::Failed {
                status: None,
                error: "the webhook was deleted".into(),
            },
            body: None,
        };
    };
    let attempt = send(client, config, hook, &body).await.attempt();
    Settlement {
        notification: n,
        attempt,
        body: new_body.then_some(body),
    }
}

/// Records finished attempts as they arrive, many per transaction (whatever has arrived since
/// the last one, at most 256), until every sender is gone.
async fn settle_loop(
    store: Store,
    policy: RetryPolicy,
    mut finished: tokio::sync::mpsc::Receiver<Settlement>,
) {
    let mut batch = Vec::new();
    while finished.recv_many(&mut batch, 256).await > 0 {
        match store.settle_notifications(&batch, &policy).await {
            Ok(statuses) => {
                for (s, now) in batch.iter().zip(statuses) {
                    let n = &s.notification;
                    match &s.attempt {
                        Attempt::Delivered { status: code } => tracing::debug!(
                            notification = %n.id, webhook = %n.webhook_id, event = %n.event, code,
                            "webhook delivered"
                        ),
                        Attempt::Failed {
                            status: code,
                            error,
                        } => tracing::info!(
                            notification = %n.id, webhook = %n.webhook_id, event = %n.event,
                            attempt = n.attempts, code = ?code, %error, now = now.as_str(),
                            "webhook delivery failed"
                        ),
                    }
                }
            }
            Err(e) => tracing::warn!(
                notifications = batch.len(), error = %e,
                "webhook deliveries could not be recorded (they are attempted again when their \
                 leases run out)"
            ),
        }
        batch.clear();
    }
}

/// Per webhook id: the semaphore limiting its deliveries at once, and how many of its tasks
/// are queued or running.
type PerWebhook = HashMap<Uuid, (Arc<Semaphore>, usize)>;

/// Gives back the places a notification held: its id in the in-flight set and its place in its
/// webhook's queue.
fn leave(
    in_flight: &Mutex<HashSet<Uuid>>,
    per_hook: &Mutex<PerWebhook>,
    notification: Uuid,
    webhook: Uuid,
) {
    in_flight
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&notification);
    if let Some(entry) = per_hook
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_mut(&webhook)
    {
        entry.1 = entry.1.saturating_sub(1);
    }
}

/// Delivers due notifications until `shutdown` resolves: claims as many as there is room for
/// (leases of [`DeliveryConfig::lease`]), runs each in its own task under the global and
/// per-webhook limits, and waits [`DeliveryConfig::idle`] when nothing is due. Returns after
/// the tasks in flight finish.
pub async fn run(
    store: Store,
    config: DeliveryConfig,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let client = client(&config);
    let global = Arc::new(Semaphore::new(config.concurrency.max(1)));
    // Per webhook: its limit of deliveries at once, and how many of its tasks are queued.
    let per_hook: Arc<Mutex<PerWebhook>> = Arc::default();
    let in_flight: Arc<Mutex<HashSet<Uuid>>> = Arc::default();
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    // Claim at most this many beyond what is running, so leases do not run out while queued.
    let queue_limit = config.concurrency.max(1) * 4;
    let (finished, settle) = tokio::sync::mpsc::channel::<Settlement>(queue_limit);
    let settler = tokio::spawn(settle_loop(store.clone(), config.policy, settle));
    let cap = config.per_webhook.max(1) * 2;
    loop {
        while tasks.try_join_next().is_some() {}
        let room = queue_limit.saturating_sub(tasks.len());
        // Webhooks with a full queue (a slow or hanging receiver) are left out of the claim, so
        // that their backlog does not take the others' places.
        // Each webhook's free places: a claim takes no more, so nothing is handed back.
        let queued: HashMap<Uuid, usize> = per_hook
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(id, (_, queued))| (*id, *queued))
            .collect();
        let free = |w: Uuid| {
            i64::try_from(cap.saturating_sub(queued.get(&w).copied().unwrap_or(0))).unwrap_or(0)
        };
        let claimed = if room == 0 {
            Vec::new()
        } else {
            match store
                .claim_notifications_within(i64::try_from(room).unwrap_or(64), config.lease, &free)
                .await
            {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "claiming webhook notifications failed");
                    Vec::new()
                }
            }
        };
        let got = claimed.len();
        // Each webhook of the claim read once (a change to a webhook applies from the next
        // claim on).
        let mut hooks: HashMap<Uuid, Option<Arc<Webhook>>> = HashMap::new();
        for n in &claimed {
            if let std::collections::hash_map::Entry::Vacant(slot) = hooks.entry(n.webhook_id) {
                match store.webhook_for_delivery(n.webhook_id).await {
                    Ok(hook) => {
                        slot.insert(hook.map(Arc::new));
                    }
                    Err(e) => {
                        tracing::warn!(webhook = %n.webhook_id, error = %e, "reading a webhook failed");
                    }
                }
            }
        }
        // Admission: a place in its webhook's queue, else the notification goes back, due
        // again a little later (a claim can hold more of one webhook than its queue takes).
        let mut admitted: Vec<(Notification, Option<Arc<Webhook>>, Arc<Semaphore>)> = Vec::new();
        let mut released: Vec<Uuid> = Vec::new();
        for n in claimed {
            // A webhook that could not be read: leave the notification to the lease.
            let Some(hook) = hooks.get(&n.webhook_id).cloned() else {
                continue;
            };
            if !in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(n.id)
            {
                continue;
            }
            let hook_limit = {
                let mut map = per_hook.lock().unwrap_or_else(|p| p.into_inner());
                let entry = map
                    .entry(n.webhook_id)
                    .or_insert_with(|| (Arc::new(Semaphore::new(config.per_webhook.max(1))), 0));
                if entry.1 >= cap {
                    None
                } else {
                    entry.1 += 1;
                    Some(entry.0.clone())
                }
            };
            match hook_limit {
                Some(limit) => admitted.push((n, hook, limit)),
                None => {
                    in_flight
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&n.id);
                    released.push(n.id);
                }
            }
        }
        if !released.is_empty() {
            if let Err(e) = store.release_notifications(&released, RELEASE_DELAY).await {
                tracing::warn!(notifications = released.len(), error = %e, "releasing notifications failed");
            }
        }
        // The bodies of the admitted notifications attempted for the first time, rendered
        // together (a failure leaves them to their leases).
        let first: Vec<&Notification> = admitted
            .iter()
            .filter(|(n, hook, _)| n.body.is_none() && hook.is_some())
            .map(|(n, _, _)| n)
            .collect();
        let mut bodies = if first.is_empty() {
            HashMap::new()
        } else {
            match crate::payloads::payloads(&store, &first, &config.public_base).await {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!(error = %e, "rendering webhook payloads failed");
                    HashMap::new()
                }
            }
        };
        for (n, hook, hook_limit) in admitted {
            let body = match (&n.body, &hook) {
                (Some(b), _) => Some((b.clone(), false)),
                (None, None) => Some((String::new(), false)),
                (None, Some(_)) => bodies.remove(&n.id).map(|b| (b, true)),
            };
            let Some((body, new_body)) = body else {
                // Not rendered: give back its places; the lease brings it back.
                leave(&in_flight, &per_hook, n.id, n.webhook_id);
                continue;
            };
            let (client, config, finished) = (client.clone(), config.clone(), finished.clone());
            let (global, in_flight, per_hook) =
                (global.clone(), in_flight.clone(), per_hook.clone());
            tasks.spawn(async move {
                let (id, webhook) = (n.id, n.webhook_id);
                let settlement = {
                    let _hook = hook_limit.acquire_owned().await;
                    let _all = global.acquire_owned().await;
                    attempt(&client, &config, hook.as_deref(), n, body, new_body).await
                };
                // The settler outlives every task, so this only fails while shutting down.
                let _ = finished.send(settlement).await;
                leave(&in_flight, &per_hook, id, webhook);
            });
        }
        if got == 0 {
            tokio::select! {
                _ = &mut shutdown => break,
                _ = tokio::time::sleep(config.idle) => {}
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            }
        }
    }
    while tasks.join_next().await.is_some() {}
    drop(finished);
    let _ = settler.await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_internal_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(is_refused(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:2800:220:1:248:1893:25c8:1946",
        ] {
            assert!(!is_refused(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn signature_is_hex_hmac_sha256() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
