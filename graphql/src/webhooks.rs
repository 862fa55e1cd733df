//! Webhooks over GraphQL: the `webhooks` connection, `webhook(id)`, the event catalog
//! `webhookEvents`, and the mutations `createWebhook`, `updateWebhook`, `deleteWebhook`, with
//! the values of `/v2/webhooks` (notifications are in [`crate::notifications`]).
//!
//! Every change goes through the store functions `/v2/webhooks` calls
//! (`Store::create_webhook`, `update_webhook`, `delete_webhook`), which check the attributes
//! with the pipeline's rules (`teu_pipeline::webhooks::WebhookAttributes::check`): a broken rule
//! is a `BAD_USER_INPUT` error whose `extensions.field` is `url`, `events` or `headers` and
//! whose message names the item (`input.events[1]: "container.sunk" is not a webhook event`).
//! The signing `secret` is answered once, by `createWebhook`. An unknown, malformed or other
//! account's id is null for `webhook(id)` and `NOT_FOUND` for the mutations.

use async_graphql::{Context, InputObject, MaybeUndefined, Object, SimpleObject, ID};
use teu_pipeline::webhooks::{self as domain, WebhookAttributes, CATALOG};

use crate::context::{parse_id, store};
use crate::error;
use crate::paging::{connection, page, Page};
use crate::types::DateTime;

/// An endpoint the account registered to be told what changed (`/v2` webhook, same values;
/// the signing secret is only answered by `createWebhook`).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// The webhook id (UUID), the same as in `/v2`.
    id: ID,
    /// Where notifications are POSTed (http or https).
    url: String,
    /// Whether notifications are made for it; an inactive webhook gets none.
    active: bool,
    /// The event names it subscribes to, in the order given.
    events: Vec<String>,
    /// Extra headers sent with each delivery.
    headers: Vec<WebhookHeader>,
    /// When it was created.
    created_at: DateTime,
    /// When it last changed.
    updated_at: DateTime,
}

impl From<domain::Webhook> for Webhook {
    /// The GraphQL webhook of a stored one, without its signing secret. Every model field is
    /// named here, so a field added to the model does not compile until it is served or left
    /// out on purpose.
    fn from(w: domain::Webhook) -> Self {
        let domain::Webhook {
            id,
            account_id: _,
            url,
            active,
            events,
            headers,
            secret: _,
            created_at,
            updated_at,
        } = w;
        Webhook {
            id: ID(id.to_string()),
            url,
            active,
            events,
            headers: headers
                .into_iter()
                .map(|h| WebhookHeader {
                    name: h.name,
                    value: h.value,
                })
                .collect(),
            created_at: DateTime(created_at),
            updated_at: DateTime(updated_at),
        }
    }
}

/// One extra header sent with each delivery of a webhook.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct WebhookHeader {
    /// The header name (an HTTP token).
    pub name: String,
    /// Its value (visible ASCII and spaces).
    pub value: String,
}

/// One extra header to send with each delivery: a name (an HTTP token, not one teu sets itself
/// such as `Content-Type`) and a value (visible ASCII and spaces).
#[derive(InputObject, Debug, Clone)]
pub struct WebhookHeaderInput {
    /// The header name.
    pub name: String,
    /// Its value.
    pub value: String,
}

fn headers(input: Vec<WebhookHeaderInput>) -> Vec<domain::WebhookHeader> {
    input
        .into_iter()
        .map(|h| domain::WebhookHeader {
            name: h.name,
            value: h.value,
        })
        .collect()
}

/// A new webhook: the attributes of `POST /v2/webhooks`.
#[derive(InputObject, Debug, Clone)]
pub struct CreateWebhookInput {
    /// Where to POST notifications: an absolute http or https URL without user name or
    /// password, at most 2048 bytes.
    pub url: String,
    /// Whether to make notifications for it (default true).
    pub active: Option<bool>,
    /// Event names from `webhookEvents`, each once (default: every event teu emits).
    pub events: Option<Vec<String>>,
    /// Extra headers, at most 20 (default none).
    pub headers: Option<Vec<WebhookHeaderInput>>,
}

/// Changes to a webhook: the attributes of `PATCH /v2/webhooks/{id}`. Fields left out (or
/// null, except `headers`) keep their value; `headers: null` removes every extra header.
#[derive(InputObject, Debug, Clone)]
pub struct UpdateWebhookInput {
    /// A new URL.
    pub url: Option<String>,
    /// Turns notifications on or off.
    pub active: Option<bool>,
    /// A new event list (replaces the old one).
    pub events: Option<Vec<String>>,
    /// New extra headers (replace the old ones; null removes them all).
    pub headers: MaybeUndefined<Vec<WebhookHeaderInput>>,
}

/// What `createWebhook` answers: the stored webhook and its signing secret.
#[derive(SimpleObject)]
pub struct CreateWebhookPayload {
    /// The stored webhook.
    pub webhook: Webhook,
    /// The HMAC-SHA256 key of the `X-T49-Webhook-Signature` header of every delivery: 64 hex
    /// digits. Keep it: no GraphQL field answers it again.
    pub secret: String,
}

/// One event of the catalog.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct WebhookEvent {
    /// The event name (`container.transport.vessel_discharged`).
    pub name: &'static str,
    /// What it means.
    pub description: &'static str,
    /// On what change teu emits it; null when teu accepts it in subscriptions but does not
    /// emit it yet.
    pub emitted_when: Option<&'static str>,
}

/// A category of the event catalog (`/v2` `webhook_event_category`).
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct WebhookEventCategory {
    /// The category id (`container-transport-events`).
    pub id: &'static str,
    /// Its name (`Container Transport Events`).
    pub name: &'static str,
    /// Its events.
    pub events: Vec<WebhookEvent>,
}

/// A page of webhooks.
type WebhookConnection = Page<Webhook>;

/// The webhooks part of [`crate::Query`].
#[derive(Default)]
pub struct WebhookQuery;

/// The account's webhooks and the event catalog.
#[Object]
impl WebhookQuery {
    /// The account's webhooks, newest first (the `/v2` list order). `first` defaults to 30 and
    /// may be at most 100.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn webhooks(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<WebhookConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let (items, total) = store(ctx)?
            .list_webhooks(account.id, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(connection(offset, items, total, Webhook::from))
    }

    /// One of the account's webhooks; null when the id is unknown, malformed or another
    /// account's.
    async fn webhook(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<Webhook>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .webhook(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(Webhook::from))
    }

    /// The events a webhook may subscribe to, by category (`GET /v2/webhooks/events`), each
    /// with what it means and on what change teu emits it.
    async fn webhook_events(&self) -> Vec<WebhookEventCategory> {
        CATALOG
            .iter()
            .map(|&(id, name, events)| WebhookEventCategory {
                id,
                name,
                events: events
                    .iter()
                    .map(|&(event, description)| WebhookEvent {
                        name: event,
                        description,
                        emitted_when: domain::emitted_when(event),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The webhook part of the mutation root ([`crate::Mutation`]).
#[derive(Default)]
pub struct WebhookMutation;

/// `NOT_FOUND` for a webhook id the account does not have.
fn missing(id: &ID) -> async_graphql::Error {
    error::not_found(format!("no webhook with id {:?}", id.as_str()))
}

/// Changes to the account's webhooks.
#[Object]
impl WebhookMutation {
    /// Registers a webhook (as `POST /v2/webhooks`) and returns it with its signing secret. A
    /// broken rule is a `BAD_USER_INPUT` error naming the field (`url`, `events`, `headers`).
    async fn create_webhook(
        &self,
        ctx: &Context<'_>,
        input: CreateWebhookInput,
    ) -> async_graphql::Result<CreateWebhookPayload> {
        let account = error::account(ctx)?;
        let attributes = WebhookAttributes {
            url: Some(input.url),
            active: input.active,
            events: input.events,
            headers: input.headers.map(headers),
        };
        let hook = store(ctx)?
            .create_webhook(account.id, attributes)
            .await
            .map_err(error::webhook)?;
        Ok(CreateWebhookPayload {
            secret: hook.secret.clone(),
            webhook: Webhook::from(hook),
        })
    }

    /// Changes one of the account's webhooks (as `PATCH /v2/webhooks/{id}`) and returns it.
    /// `NOT_FOUND` for an id the account does not have; a broken rule is a `BAD_USER_INPUT`
    /// error naming the field.
    async fn update_webhook(
        &self,
        ctx: &Context<'_>,
        id: ID,
        input: UpdateWebhookInput,
    ) -> async_graphql::Result<Webhook> {
        let account = error::account(ctx)?;
        let attributes = WebhookAttributes {
            url: input.url,
            active: input.active,
            events: input.events,
            headers: match input.headers {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(Vec::new()),
                MaybeUndefined::Value(h) => Some(headers(h)),
            },
        };
        let Some(uuid) = parse_id(&id) else {
            // Malformed ids name no webhook; the input is still checked first, as for others.
            attributes
                .check(false)
                .map_err(|e| error::webhook(e.into()))?;
            return Err(missing(&id));
        };
        store(ctx)?
            .update_webhook(account.id, uuid, attributes)
            .await
            .map_err(error::webhook)?
            .map(Webhook::from)
            .ok_or_else(|| missing(&id))
    }

    /// Deletes one of the account's webhooks (as `DELETE /v2/webhooks/{id}`) and returns its
    /// id; its pending notifications become `FAILED`. `NOT_FOUND` for an id the account does
    /// not have.
    async fn delete_webhook(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<ID> {
        let account = error::account(ctx)?;
        let Some(uuid) = parse_id(&id) else {
            return Err(missing(&id));
        };
        let deleted = store(ctx)?
            .delete_webhook(account.id, uuid)
            .await
            .map_err(|e| error::internal(&e))?;
        if deleted {
            Ok(id)
        } else {
            Err(missing(&id))
        }
    }
}
