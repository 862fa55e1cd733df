//! What the POD terminal says of a container: holds, fees and last free days.

use async_graphql::{Enum, Object};
use teu_pipeline::model;

use super::{dt, DateTime};

/// A hold at the POD terminal.
pub struct TerminalHold(pub model::TerminalHold);

/// Status of a hold at the POD terminal (`/v2` terminal_hold.status).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStatus {
    /// `pending`: the hold may still be placed.
    Pending,
    /// `hold`: the container is held.
    Hold,
}

impl HoldStatus {
    /// The `/v2` value: `pending` is [`HoldStatus::Pending`], anything else (the terminal
    /// feeds only write `hold`) [`HoldStatus::Hold`].
    pub fn from_v2(s: &str) -> Self {
        if s == "pending" {
            HoldStatus::Pending
        } else {
            HoldStatus::Hold
        }
    }
}

/// Type of a fee at the POD terminal (`/v2` terminal_fee.type).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeeType {
    /// `demurrage`
    Demurrage,
    /// `exam`
    Exam,
    /// `extended_dwell_time`
    ExtendedDwellTime,
    /// `other`
    Other,
    /// `total`
    Total,
}

impl FeeType {
    /// The `/v2` value; anything unknown is [`FeeType::Other`] (the feeds map unknown fee
    /// names to `other` already).
    pub fn from_v2(s: &str) -> Self {
        match s {
            "demurrage" => FeeType::Demurrage,
            "exam" => FeeType::Exam,
            "extended_dwell_time" => FeeType::ExtendedDwellTime,
            "total" => FeeType::Total,
            _ => FeeType::Other,
        }
    }
}

/// A hold at the POD terminal (`/v2` terminal_hold).
#[Object]
impl TerminalHold {
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// `PENDING` or `HOLD`.
    async fn status(&self) -> HoldStatus {
        HoldStatus::from_v2(&self.0.status)
    }

    /// Text from the terminal.
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
}

/// A fee at the POD terminal.
pub struct TerminalFee(pub model::TerminalFee);

/// A fee at the POD terminal (`/v2` terminal_fee).
#[Object]
impl TerminalFee {
    /// `DEMURRAGE`, `EXAM`, `EXTENDED_DWELL_TIME`, `OTHER` or `TOTAL`.
    #[graphql(name = "type")]
    async fn fee_type(&self) -> FeeType {
        FeeType::from_v2(&self.0.fee_type)
    }

    /// Amount in the local currency.
    async fn amount(&self) -> f64 {
        self.0.amount
    }

    /// ISO 4217 code.
    async fn currency_code(&self) -> Option<&str> {
        self.0.currency_code.as_deref()
    }
}

/// Last free days of a container.
pub struct ImportDeadlines(pub model::ImportDeadlines);

/// Last free days of a container, all UTC.
#[Object]
impl ImportDeadlines {
    /// Last free day at the POD terminal (local time zone: the container's `podTimezone`).
    async fn pickup_lfd_terminal(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_terminal)
    }

    /// Last free day at the rail terminal (local time zone: `finalDestinationTimezone`).
    async fn pickup_lfd_rail(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_rail)
    }

    /// Last free day given by the shipping line (local time zone: `finalDestinationTimezone`
    /// or `podTimezone`).
    async fn pickup_lfd_line(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_line)
    }
}
