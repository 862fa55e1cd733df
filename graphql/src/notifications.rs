//! Webhook notifications over GraphQL: the `webhookNotifications(filter)` connection and
//! `webhookNotification(id)`, with the values of `/v2/webhook_notifications` (the outbox the
//! delivery workers read, `teu_pipeline::webhooks::outbox`), plus the delivery details the
//! store keeps (`attempts`, `lastStatusCode`, `lastError`, `deliveredAt`).
//!
//! `WebhookNotification.webhook` is loaded for the whole page with one store call.

use async_graphql::{Context, Enum, InputObject, Object, SimpleObject, ID};
use teu_pipeline::webhooks::outbox::NotificationFilter;
use teu_pipeline::webhooks::{self as domain};

use crate::context::{loader, parse_id, store};
use crate::error;
use crate::loaders::{prefetch, sub, WebhookKey};
use crate::paging::{connection, page, Page};
use crate::types::{dt, DateTime};
use crate::webhooks::Webhook;

/// A notification's delivery state (`/v2` `delivery_status`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "domain::DeliveryStatus")]
pub enum DeliveryStatus {
    /// `pending`: not delivered yet; attempts remain.
    Pending,
    /// `succeeded`: the receiver answered 200, 201, 202 or 204.
    Succeeded,
    /// `failed`: every attempt failed, or the webhook was deleted.
    Failed,
}

/// What a notification is about (`/v2` `reference_object` relationship).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct ReferenceObject {
    /// `transport_event`, `estimated_event`, `container_updated_event`,
    /// `container_created_event`, `container_pod_terminal_changed_event` or
    /// `tracking_request`.
    #[graphql(name = "type")]
    pub kind: String,
    /// Its id (UUID), the same as in `/v2`.
    pub id: ID,
}

/// A notification of one event to one webhook.
pub struct WebhookNotification(pub domain::Notification);

/// A notification of one event to one webhook (`/v2` webhook_notification, same values).
#[Object]
impl WebhookNotification {
    /// The notification id (UUID): `data.id` of every delivery of it, the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// The event name (`container.transport.vessel_discharged`).
    async fn event(&self) -> &str {
        &self.0.event
    }

    /// Whether it was delivered.
    async fn delivery_status(&self) -> DeliveryStatus {
        self.0.delivery_status.into()
    }

    /// When it was made.
    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    /// The id of the webhook it is for (also when that webhook was deleted).
    async fn webhook_id(&self) -> ID {
        ID(self.0.webhook_id.to_string())
    }

    /// The webhook it is for; null once that webhook was deleted.
    async fn webhook(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Webhook>> {
        let account = error::account(ctx)?;
        let found = loader(ctx)?
            .load_one(WebhookKey {
                account: account.id,
                webhook: self.0.webhook_id,
            })
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(found.map(Webhook::from))
    }

    /// What it is about: the `reference_object` of `/v2`.
    async fn reference_object(&self) -> ReferenceObject {
        ReferenceObject {
            kind: self.0.reference_type.clone(),
            id: ID(self.0.reference_id.to_string()),
        }
    }

    /// The container it is about, if any.
    async fn container_id(&self) -> Option<ID> {
        self.0.container_id.map(|id| ID(id.to_string()))
    }

    /// The shipment it is about, if any.
    async fn shipment_id(&self) -> Option<ID> {
        self.0.shipment_id.map(|id| ID(id.to_string()))
    }

    /// The tracking request it is about, if any.
    async fn tracking_request_id(&self) -> Option<ID> {
        self.0.tracking_request_id.map(|id| ID(id.to_string()))
    }

    /// Delivery attempts made so far.
    async fn attempts(&self) -> i32 {
        i32::try_from(self.0.attempts).unwrap_or(i32::MAX)
    }

    /// HTTP status of the last attempt, when the receiver answered.
    async fn last_status_code(&self) -> Option<i32> {
        self.0.last_status_code.and_then(|c| i32::try_from(c).ok())
    }

    /// What went wrong on the last failed attempt.
    async fn last_error(&self) -> Option<&str> {
        self.0.last_error.as_deref()
    }

    /// When it was delivered.
    async fn delivered_at(&self) -> Option<DateTime> {
        dt(self.0.delivered_at)
    }
}

/// What a `webhookNotifications` list is narrowed to; fields left out match every
/// notification, the fields given must all match.
#[derive(InputObject, Default, Debug, Clone)]
pub struct WebhookNotificationFilter {
    /// For this webhook (an id the account does not have matches nothing).
    pub webhook_id: Option<ID>,
    /// Of this event (a name from `webhookEvents`).
    pub event: Option<String>,
    /// In this delivery state.
    pub delivery_status: Option<DeliveryStatus>,
    /// About this container.
    pub container_id: Option<ID>,
}

impl WebhookNotificationFilter {
    /// The store's filter; a malformed id or an unknown event is a `BAD_USER_INPUT` naming
    /// its field.
    fn into_store(self) -> async_graphql::Result<NotificationFilter> {
        let id = |value: Option<ID>, field: &'static str| {
            value
                .map(|v| {
                    parse_id(&v).ok_or_else(|| {
                        error::bad_field(
                            field,
                            format!("filter.{field} is not an id: {:?}", v.as_str()),
                        )
                    })
                })
                .transpose()
        };
        if let Some(e) = &self.event {
            if !domain::is_event(e) {
                return Err(error::bad_field(
                    "event",
                    format!("filter.event {e:?} is not a webhook event (see webhookEvents)"),
                ));
            }
        }
        Ok(NotificationFilter {
            webhook_id: id(self.webhook_id, "webhookId")?,
            event: self.event,
            delivery_status: self.delivery_status.map(Into::into),
            container_id: id(self.container_id, "containerId")?,
        })
    }
}

/// A page of notifications.
type NotificationConnection = Page<WebhookNotification>;

/// The notifications part of [`crate::Query`].
#[derive(Default)]
pub struct NotificationQuery;

/// The account's webhook notifications.
#[Object]
impl NotificationQuery {
    /// The account's webhook notifications matching `filter`, newest first (the `/v2` list
    /// order). `first` defaults to 30 and may be at most 100.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn webhook_notifications(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        filter: Option<WebhookNotificationFilter>,
    ) -> async_graphql::Result<NotificationConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let filter = filter.unwrap_or_default().into_store()?;
        let store = store(ctx)?;
        let (items, total) = store
            .list_notifications_filtered(account.id, &filter, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        if !items.is_empty() && !sub(&prefetch::nodes(ctx), "webhook").is_empty() {
            let ids = prefetch::unique(items.iter().map(|n| n.webhook_id));
            let loader = loader(ctx)?;
            loader
                .loader()
                .calls
                .webhooks_by_ids
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let hooks = store
                .webhooks_by_ids(account.id, &ids)
                .await
                .map_err(|e| error::internal(&e))?;
            // Deleted webhooks are absent: the loader then answers null for them from its batch.
            loader
                .feed_many(hooks.into_iter().map(|w| {
                    (
                        WebhookKey {
                            account: account.id,
                            webhook: w.id,
                        },
                        w,
                    )
                }))
                .await;
        }
        Ok(connection(offset, items, total, WebhookNotification))
    }

    /// One of the account's notifications; null when the id is unknown, malformed or another
    /// account's.
    async fn webhook_notification(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<WebhookNotification>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .notification(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(WebhookNotification))
    }
}
