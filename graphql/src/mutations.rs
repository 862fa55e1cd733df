//! The mutation root, merged from the tracking-request part ([`crate::tracking`]), the webhook
//! part ([`crate::webhooks`]) and the shipment part here: tags, and stopping or resuming
//! tracking at the shipping line.
//!
//! The changes are the store's ([`teu_pipeline::listing`]), so `/v2/shipments` shows them at
//! once (`tags`, `line_tracking_stopped_at`, `line_tracking_stopped_reason`).

use async_graphql::{Context, MergedObject, Object, ID};
use teu_pipeline::listing::parse_tags;

use crate::context::{parse_id, store};
use crate::error;
use crate::tracking::TrackingRequestMutation;
use crate::types::Shipment;
use crate::webhooks::WebhookMutation;

/// The mutation root.
#[derive(MergedObject, Default)]
pub struct Mutation(TrackingRequestMutation, ShipmentMutation, WebhookMutation);

/// The shipment part of [`Mutation`].
#[derive(Default)]
pub struct ShipmentMutation;

/// The account's shipment `id`, or `NOT_FOUND`.
fn found(
    id: &ID,
    shipment: Option<teu_pipeline::model::Shipment>,
) -> async_graphql::Result<Shipment> {
    shipment
        .map(Shipment::from)
        .ok_or_else(|| error::not_found(format!("no shipment with id {:?}", id.as_str())))
}

/// Changes to the account's shipments. An id that is unknown, malformed or another account's
/// is a `NOT_FOUND` error.
#[Object]
impl ShipmentMutation {
    /// Adds tags to a shipment (trimmed; at most 64 characters each and 50 per shipment) and
    /// returns it; tags come back sorted. Adding a tag it has already changes nothing.
    async fn add_shipment_tags(
        &self,
        ctx: &Context<'_>,
        shipment_id: ID,
        tags: Vec<String>,
    ) -> async_graphql::Result<Shipment> {
        let account = error::account(ctx)?;
        let tags = parse_tags(&tags).map_err(|e| error::bad_field("tags", e.to_string()))?;
        let Some(id) = parse_id(&shipment_id) else {
            return found(&shipment_id, None);
        };
        let s = store(ctx)?
            .update_shipment_tags(account.id, id, &tags, &[])
            .await
            .map_err(|e| error::internal(&e))?;
        found(&shipment_id, s)
    }

    /// Removes tags from a shipment and returns it. Removing a tag it does not have changes
    /// nothing.
    async fn remove_shipment_tags(
        &self,
        ctx: &Context<'_>,
        shipment_id: ID,
        tags: Vec<String>,
    ) -> async_graphql::Result<Shipment> {
        let account = error::account(ctx)?;
        let tags = parse_tags(&tags).map_err(|e| error::bad_field("tags", e.to_string()))?;
        let Some(id) = parse_id(&shipment_id) else {
            return found(&shipment_id, None);
        };
        let s = store(ctx)?
            .update_shipment_tags(account.id, id, &[], &tags)
            .await
            .map_err(|e| error::internal(&e))?;
        found(&shipment_id, s)
    }

    /// Stops checking the shipment at the shipping line: `lineTrackingStoppedAt` becomes now
    /// and `lineTrackingStoppedReason` `CANCELLED_BY_USER`. Stopping it again keeps the first
    /// time. New feed data does not undo it; `resumeTracking` does.
    async fn stop_tracking(
        &self,
        ctx: &Context<'_>,
        shipment_id: ID,
    ) -> async_graphql::Result<Shipment> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&shipment_id) else {
            return found(&shipment_id, None);
        };
        let s = store(ctx)?
            .stop_tracking(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        found(&shipment_id, s)
    }

    /// Resumes checking a shipment stopped with `stopTracking`: the stop time and reason are
    /// cleared (a stop the feeds themselves imply, if any, shows again).
    async fn resume_tracking(
        &self,
        ctx: &Context<'_>,
        shipment_id: ID,
    ) -> async_graphql::Result<Shipment> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&shipment_id) else {
            return found(&shipment_id, None);
        };
        let s = store(ctx)?
            .resume_tracking(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        found(&shipment_id, s)
    }
}
