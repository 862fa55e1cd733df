//! Tracking requests over GraphQL: the `createTrackingRequest` mutation, the
//! `trackingRequests` connection and `trackingRequest(id)`, with the values of
//! `/v2/tracking_requests`.
//!
//! The mutation goes through `Store::submit_tracking_request`, the same domain path (and so
//! the same rules, `teu_pipeline::tracking_requests::NewTrackingRequest::parse`) as
//! `POST /v2/tracking_requests`. A rule broken is a `BAD_USER_INPUT` error whose
//! `extensions.field` names the input field (`requestNumber`, `scac`); `requestType` is an
//! enum, so GraphQL validation refuses a wrong value before the resolver runs.

use async_graphql::{ComplexObject, Context, Enum, InputObject, Object, SimpleObject, ID};
use teu_pipeline::tracking_requests as domain;
use teu_store::TrackingRequestError;
use uuid::Uuid;

use crate::context::{parse_id, store};
use crate::error;
use crate::inference::NumberType;
use crate::paging::{connection, page, Page};
use crate::types::{load_shipment, DateTime, Shipment};

/// Whether feed data for a tracking request's number has arrived.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackingRequestStatus {
    /// `pending`: no feed data for the number yet.
    Pending,
    /// `created`: feed data arrived; `shipment` is set.
    Created,
}

/// A number an account asked teu to track (`/v2` tracking_request, same values).
#[derive(SimpleObject, Debug, Clone)]
#[graphql(complex)]
pub struct TrackingRequest {
    /// The request id (UUID), the same as in `/v2`.
    id: ID,
    /// The number to track, normalized (upper case, no spaces or dashes).
    request_number: String,
    /// Container, bill of lading or booking.
    request_type: async_graphql::Result<NumberType>,
    /// The shipping line's SCAC.
    scac: String,
    /// `PENDING` until feed data for the number arrives, then `CREATED`.
    status: TrackingRequestStatus,
    /// Reference numbers the client gave (`/v2` `ref_numbers`); they are added to the
    /// shipment's once it is found.
    ref_numbers: Vec<String>,
    /// Tags for the shipment (`/v2` `shipment_tags`), added to it once it is found.
    shipment_tags: Vec<String>,
    /// Why the request failed (`/v2` `failed_reason`); null unless it failed.
    failed_reason: Option<String>,
    /// When the request was first made.
    created_at: DateTime,
    /// When it last changed.
    updated_at: DateTime,
    // Not a field of the schema: what `shipment` looks up.
    #[graphql(skip)]
    shipment_id: Option<Uuid>,
}

impl From<domain::TrackingRequest> for TrackingRequest {
    /// The GraphQL tracking request of a stored one. A stored request type that is not a
    /// number type (which the store never writes) is logged, and the `requestType` field
    /// answers `INTERNAL`. Every model field is named here, so a field added to the model does
    /// not compile until it is served or left out on purpose.
    fn from(r: domain::TrackingRequest) -> Self {
        let domain::TrackingRequest {
            id,
            request_number,
            request_type,
            scac,
            status,
            shipment_id,
            created_at,
            updated_at,
            ref_numbers,
            shipment_tags,
            failed_reason,
        } = r;
        let kind = teu_pipeline::infer::NumberType::parse(&request_type)
            .map(NumberType::from)
            .ok_or_else(|| {
                tracing::error!(%id, kind = %request_type,
                    "graphql: stored tracking request has an unknown type");
                error::internal_opaque()
            });
        TrackingRequest {
            id: ID(id.to_string()),
            request_number,
            request_type: kind,
            scac,
            status: if status == domain::CREATED {
                TrackingRequestStatus::Created
            } else {
                TrackingRequestStatus::Pending
            },
            ref_numbers,
            shipment_tags,
            failed_reason,
            created_at: DateTime(created_at),
            updated_at: DateTime(updated_at),
            shipment_id,
        }
    }
}

/// The field of a tracking request that is looked up: its shipment.
#[ComplexObject]
impl TrackingRequest {
    /// The shipment the number belongs to, once feed data arrived.
    async fn shipment(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Shipment>> {
        let Some(shipment) = self.shipment_id else {
            return Ok(None);
        };
        Ok(load_shipment(ctx, shipment).await?.map(Shipment::from))
    }
}

/// A page of tracking requests.
type TrackingRequestConnection = Page<TrackingRequest>;

/// The tracking requests part of [`crate::Query`].
#[derive(Default)]
pub struct TrackingRequestQuery;

/// The account's tracking requests.
#[Object]
impl TrackingRequestQuery {
    /// The account's tracking requests, newest first (the `/v2` list order). `first` defaults
    /// to 30 and may be at most 100.
    #[graphql(complexity = "crate::paging::page_complexity(first, child_complexity)")]
    async fn tracking_requests(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> async_graphql::Result<TrackingRequestConnection> {
        let account = error::account(ctx)?;
        let (offset, limit) = page(first, after)?;
        let (items, total) = store(ctx)?
            .list_tracking_requests(account.id, offset as i64, limit as i64)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(connection(offset, items, total, TrackingRequest::from))
    }

    /// One of the account's tracking requests; null when the id is unknown, malformed or
    /// another account's.
    async fn tracking_request(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> async_graphql::Result<Option<TrackingRequest>> {
        let account = error::account(ctx)?;
        let Some(id) = parse_id(&id) else {
            return Ok(None);
        };
        let found = store(ctx)?
            .tracking_request(account.id, id)
            .await
            .map_err(|e| error::internal(&e))?;
        Ok(found.map(TrackingRequest::from))
    }
}

/// What to track: the body of `POST /v2/tracking_requests` in GraphQL form.
#[derive(InputObject)]
pub struct CreateTrackingRequestInput {
    /// The number: a container, bill of lading or booking number (spaces and dashes are
    /// ignored; at most 40 letters and digits).
    pub request_number: String,
    /// What kind of number it is (as `inferNumber` returns it).
    pub request_type: NumberType,
    /// The shipping line's SCAC: 2 to 4 letters or digits, at least one a letter (as
    /// `inferNumber` selects it).
    pub scac: String,
    /// Reference numbers for the shipment (each 1 to 64 characters, at most 50).
    #[graphql(default)]
    pub ref_numbers: Vec<String>,
    /// Tags for the shipment (each at most 64 characters, at most 50).
    #[graphql(default)]
    pub shipment_tags: Vec<String>,
}

/// The tracking-request part of the mutation root ([`crate::Mutation`]).
#[derive(Default)]
pub struct TrackingRequestMutation;

/// Tracking requests.
#[Object]
impl TrackingRequestMutation {
    /// Asks teu to track a number (after `inferNumber`). Returns the stored request: `PENDING`
    /// until feed data for the number arrives, then `CREATED` with its shipment. Asking again
    /// for the same number, type and SCAC returns the same request. A rule broken is a
    /// `BAD_USER_INPUT` error naming the field in `extensions.field`.
    async fn create_tracking_request(
        &self,
        ctx: &Context<'_>,
        input: CreateTrackingRequestInput,
    ) -> async_graphql::Result<TrackingRequest> {
        let account = error::account(ctx)?;
        let kind = teu_pipeline::infer::NumberType::from(input.request_type);
        match store(ctx)?
            .submit_tracking_request_with(
                account.id,
                &input.request_number,
                kind.as_str(),
                &input.scac,
                &input.ref_numbers,
                &input.shipment_tags,
            )
            .await
        {
            Ok(r) => Ok(TrackingRequest::from(r)),
            Err(TrackingRequestError::Invalid { field, problem }) => Err(error::bad_field(
                field.camel_case(),
                format!("{} {problem}", field.camel_case()),
            )),
            Err(TrackingRequestError::InvalidList { field, problem }) => Err(error::bad_field(
                field.camel_case(),
                format!("{}: {problem}", field.camel_case()),
            )),
            Err(TrackingRequestError::Store(e)) => Err(error::internal(&e)),
        }
    }
}
