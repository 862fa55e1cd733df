//! Tracking requests: numbers an account asked teu to track (`POST /v2/tracking_requests`).
//!
//! A request is stored `pending`; `teu_store::Store::link_tracking_requests` (run after every ingest)
//! moves it to `created` and sets its shipment once feed data for the number is stored: a
//! container request matches a stored container number, a bill of lading or booking request a
//! shipment's `bill_of_lading_number`. The id is a UUID v5 of (account, request type, number,
//! SCAC), so asking twice for the same number gives the same request.
//!
//! Both APIs create requests through `teu_store::Store::submit_tracking_request`, which validates the
//! three attributes with [`NewTrackingRequest::parse`] (the one set of rules, table there) and
//! stores the request; `/v2` maps a [`InvalidTrackingRequest::Invalid`] to a 422 with
//! `source.pointer`, GraphQL to a `BAD_USER_INPUT` error naming the field.

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::iso6346;
use crate::model::NumberType;
use crate::model::Scac;

/// Longest accepted `request_number` (normalized).
pub const MAX_REQUEST_NUMBER_LEN: usize = 40;

/// An attribute of a tracking request, for error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestField {
    /// `request_number`.
    RequestNumber,
    /// `request_type`.
    RequestType,
    /// `scac`.
    Scac,
    /// `ref_numbers`.
    RefNumbers,
    /// `shipment_tags`.
    ShipmentTags,
}

impl RequestField {
    /// The `/v2` attribute name: `request_number`, `request_type`, `scac`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestField::RequestNumber => "request_number",
            RequestField::RequestType => "request_type",
            RequestField::Scac => "scac",
            RequestField::RefNumbers => "ref_numbers",
            RequestField::ShipmentTags => "shipment_tags",
        }
    }

    /// The GraphQL input field name: `requestNumber`, `requestType`, `scac`.
    pub fn camel_case(self) -> &'static str {
        match self {
            RequestField::RequestNumber => "requestNumber",
            RequestField::RequestType => "requestType",
            RequestField::Scac => "scac",
            RequestField::RefNumbers => "refNumbers",
            RequestField::ShipmentTags => "shipmentTags",
        }
    }
}

/// An attribute of a tracking request that breaks its rule (nothing is stored).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidTrackingRequest {
    /// An attribute breaks a rule of [`NewTrackingRequest::parse`]; `problem` completes a
    /// sentence that starts with the field's name (`"is required"`).
    #[error("{} {problem}", field.as_str())]
    Invalid {
        /// The attribute at fault.
        field: RequestField,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A reference number or tag breaks its rule
    /// ([`crate::shipment_edits::parse_ref_numbers`], [`crate::listing::parse_tags`]).
    #[error("{} {problem}", field.as_str())]
    InvalidList {
        /// `ref_numbers` or `shipment_tags`.
        field: RequestField,
        /// What is wrong, e.g. `reference numbers must not be blank`.
        problem: String,
    },
}

/// The validated attributes of a new tracking request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTrackingRequest {
    /// Normalized ([`iso6346::normalize`]): upper case, no spaces, dashes, dots or slashes.
    pub request_number: String,
    /// Container, bill of lading or booking.
    pub request_type: NumberType,
    /// The shipping line's SCAC ([`Scac::parse`]).
    pub scac: Scac,
}

impl NewTrackingRequest {
    /// Checks the attributes as given by a client, in this order (the first failure is
    /// reported):
    ///
    /// | field | rule | problem |
    /// |---|---|---|
    /// | `request_number` | not blank | is required |
    /// | `request_number` | after normalization, 1 to [`MAX_REQUEST_NUMBER_LEN`] ASCII letters and digits | must be letters and digits (at most 40) |
    /// | `request_type` | not blank | is required |
    /// | `request_type` | `container`, `bill_of_lading` or `booking` (also `booking_number`, Terminal49's name) | must be container, bill_of_lading or booking |
    /// | `scac` | not blank | is required |
    /// | `scac` | a SCAC by [`Scac::parse`]: 2 to 4 ASCII letters or digits, at least one a letter (any case; stored upper case) | must be a SCAC: 2 to 4 letters or digits |
    ///
    /// Surrounding blanks are ignored.
    ///
    /// # Errors
    ///
    /// [`InvalidTrackingRequest::Invalid`] naming the field.
    pub fn parse(
        request_number: &str,
        request_type: &str,
        scac: &str,
    ) -> std::result::Result<NewTrackingRequest, InvalidTrackingRequest> {
        let invalid = |field, problem| InvalidTrackingRequest::Invalid { field, problem };
        let required = |field, value: &str| {
            if value.trim().is_empty() {
                Err(invalid(field, "is required"))
            } else {
                Ok(value.trim().to_string())
            }
        };
        let number = iso6346::normalize(&required(RequestField::RequestNumber, request_number)?);
        if number.is_empty()
            || number.len() > MAX_REQUEST_NUMBER_LEN
            || !number.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(invalid(
                RequestField::RequestNumber,
                "must be letters and digits (at most 40)",
            ));
        }
        let kind = required(RequestField::RequestType, request_type)?;
        // Terminal49's documents call a booking `booking_number`; both names are accepted.
        let kind = if kind == "booking_number" {
            "booking".to_string()
        } else {
            kind
        };
        let request_type = NumberType::parse(&kind).ok_or_else(|| {
            invalid(
                RequestField::RequestType,
                "must be container, bill_of_lading or booking",
            )
        })?;
        let scac = Scac::parse(&required(RequestField::Scac, scac)?).map_err(|_| {
            invalid(
                RequestField::Scac,
                "must be a SCAC: 2 to 4 letters or digits",
            )
        })?;
        Ok(NewTrackingRequest {
            request_number: number,
            request_type,
            scac,
        })
    }
}

/// What a client attaches to a tracking request besides the number (Terminal49's
/// `ref_numbers` and `shipment_tags`): both are given to the shipment the request finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestExtras {
    /// Reference numbers (checked by [`RequestExtras::parse`]).
    pub ref_numbers: Vec<String>,
    /// Tags for the shipment (checked by [`RequestExtras::parse`]).
    pub shipment_tags: Vec<String>,
}

impl RequestExtras {
    /// Checks `ref_numbers` ([`crate::shipment_edits::parse_ref_numbers`]) and `shipment_tags`
    /// ([`crate::shipment_edits::parse_tag_list`]); empty lists are fine.
    ///
    /// # Errors
    ///
    /// [`InvalidTrackingRequest::InvalidList`] naming the field.
    pub fn parse(
        ref_numbers: &[String],
        shipment_tags: &[String],
    ) -> std::result::Result<RequestExtras, InvalidTrackingRequest> {
        let ref_numbers = crate::shipment_edits::parse_ref_numbers(ref_numbers).map_err(|e| {
            InvalidTrackingRequest::InvalidList {
                field: RequestField::RefNumbers,
                problem: e.to_string(),
            }
        })?;
        let shipment_tags = crate::shipment_edits::parse_tag_list(shipment_tags).map_err(|e| {
            InvalidTrackingRequest::InvalidList {
                field: RequestField::ShipmentTags,
                problem: e.to_string(),
            }
        })?;
        Ok(RequestExtras {
            ref_numbers,
            shipment_tags,
        })
    }
}

/// Which of an account's tracking requests a list shows (Terminal49's `GET
/// /v2/tracking_requests` filters); every field given must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackingRequestFilter {
    /// `filter[request_number]`: the number, compared normalized (upper case, no blanks or
    /// punctuation).
    pub request_number: Option<String>,
    /// `filter[status]`: `pending`, `created`, `failed`, ….
    pub status: Option<String>,
    /// `filter[scac]`: the SCAC, any case.
    pub scac: Option<String>,
    /// `filter[created_at][start]`: created at or after (UTC).
    pub created_from: Option<DateTime<Utc>>,
    /// `filter[created_at][end]`: created at or before (UTC).
    pub created_to: Option<DateTime<Utc>>,
    /// `filter[updated_at][start]`: last changed at or after (UTC).
    pub updated_from: Option<DateTime<Utc>>,
    /// `filter[updated_at][end]`: last changed at or before (UTC).
    pub updated_to: Option<DateTime<Utc>>,
}

/// A change to a tracking request's lists; `None` leaves that list as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestPatch {
    /// New reference numbers (checked by [`RequestExtras::parse`]).
    pub ref_numbers: Option<Vec<String>>,
    /// New shipment tags (checked by [`RequestExtras::parse`]).
    pub shipment_tags: Option<Vec<String>>,
}

/// `pending`: no feed data for the number yet.
pub const PENDING: &str = "pending";
/// `created`: feed data arrived; `shipment_id` is set.
pub const CREATED: &str = "created";

/// One stored tracking request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrackingRequest {
    /// UUID v5 of (account, request type, number, SCAC).
    pub id: Uuid,
    /// The number to track, normalized (upper case, no spaces or dashes).
    pub request_number: String,
    /// `container`, `bill_of_lading` or `booking`.
    pub request_type: String,
    /// The shipping line's SCAC.
    pub scac: String,
    /// [`PENDING`] or [`CREATED`].
    pub status: String,
    /// The shipment the number belongs to, once known.
    pub shipment_id: Option<Uuid>,
    /// When the request was first made (UTC).
    pub created_at: DateTime<Utc>,
    /// When it last changed (UTC).
    pub updated_at: DateTime<Utc>,
    /// Reference numbers the client gave (Terminal49 `ref_numbers`).
    pub ref_numbers: Vec<String>,
    /// Tags the client asked for on the shipment (Terminal49 `shipment_tags`).
    pub shipment_tags: Vec<String>,
    /// Why the request failed (Terminal49's `failed_reason` enum); `None` unless `status` is
    /// `failed`.
    pub failed_reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(number: &str, kind: &str, scac: &str) -> (RequestField, &'static str) {
        match NewTrackingRequest::parse(number, kind, scac) {
            Err(InvalidTrackingRequest::Invalid { field, problem }) => (field, problem),
            other => panic!("{number} {kind} {scac}: {other:?}"),
        }
    }

    #[test]
    fn parse_normalizes_and_reports_the_first_bad_field() {
        let ok = NewTrackingRequest::parse(" apzu 481209-0 ", "container", "cmdu").unwrap();
        assert_eq!(ok.request_number, "APZU4812090");
        assert_eq!(ok.request_type, NumberType::Container);
        assert_eq!(ok.scac, "CMDU");
        use RequestField::*;
        for (args, field, fragment) in [
            (("", "container", "CMDU"), RequestNumber, "required"),
            (("  ", "", ""), RequestNumber, "required"),
            (
                ("--", "container", "CMDU"),
                RequestNumber,
                "letters and digits",
            ),
            (
                ("APZU#1", "container", "CMDU"),
                RequestNumber,
                "letters and digits",
            ),
            (
                (&"9".repeat(41)[..], "container", "CMDU"),
                RequestNumber,
                "at most 40",
            ),
            (("APZU4812090", "", "CMDU"), RequestType, "required"),
            (
                ("APZU4812090", "pallet", "CMDU"),
                RequestType,
                "bill_of_lading",
            ),
            (
                ("APZU4812090", "Container", "CMDU"),
                RequestType,
                "bill_of_lading",
            ),
            (("APZU4812090", "booking", " "), Scac, "required"),
            (("APZU4812090", "booking", "C-1"), Scac, "2 to 4 letters"),
            (("APZU4812090", "booking", "CMDUX"), Scac, "2 to 4 letters"),
            (("APZU4812090", "booking", "1234"), Scac, "2 to 4 letters"),
        ] {
            let (got, text) = problem(args.0, args.1, args.2);
            assert_eq!(got, field, "{args:?}");
            assert!(text.contains(fragment), "{args:?}: {text}");
        }
        let e = NewTrackingRequest::parse("X1", "pallet", "CMDU").unwrap_err();
        assert_eq!(
            e.to_string(),
            "request_type must be container, bill_of_lading or booking"
        );
        assert_eq!(RequestField::RequestNumber.camel_case(), "requestNumber");
    }
}
