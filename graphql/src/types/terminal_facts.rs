//! What the POD terminal says of a container: holds, fees and last free days.

use async_graphql::{Enum, SimpleObject};
use teu_pipeline::model;

use super::{dt, DateTime};

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
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct TerminalHold {
    name: String,
    /// `PENDING` or `HOLD`.
    status: HoldStatus,
    /// Text from the terminal.
    description: Option<String>,
}

impl From<model::TerminalHold> for TerminalHold {
    fn from(h: model::TerminalHold) -> Self {
        let model::TerminalHold {
            name,
            status,
            description,
        } = h;
        TerminalHold {
            name,
            status: HoldStatus::from_v2(&status),
            description,
        }
    }
}

/// A fee at the POD terminal (`/v2` terminal_fee).
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct TerminalFee {
    /// `DEMURRAGE`, `EXAM`, `EXTENDED_DWELL_TIME`, `OTHER` or `TOTAL`.
    #[graphql(name = "type")]
    fee_type: FeeType,
    /// Amount in the local currency.
    amount: f64,
    /// ISO 4217 code.
    currency_code: Option<String>,
}

impl From<model::TerminalFee> for TerminalFee {
    fn from(f: model::TerminalFee) -> Self {
        let model::TerminalFee {
            fee_type,
            amount,
            currency_code,
        } = f;
        TerminalFee {
            fee_type: FeeType::from_v2(&fee_type),
            amount,
            currency_code,
        }
    }
}

/// Last free days of a container, all UTC.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct ImportDeadlines {
    /// Last free day at the POD terminal (local time zone: the container's `podTimezone`).
    pickup_lfd_terminal: Option<DateTime>,
    /// Last free day at the rail terminal (local time zone: `finalDestinationTimezone`).
    pickup_lfd_rail: Option<DateTime>,
    /// Last free day given by the shipping line (local time zone: `finalDestinationTimezone`
    /// or `podTimezone`).
    pickup_lfd_line: Option<DateTime>,
}

impl From<model::ImportDeadlines> for ImportDeadlines {
    fn from(d: model::ImportDeadlines) -> Self {
        let model::ImportDeadlines {
            pickup_lfd_terminal,
            pickup_lfd_rail,
            pickup_lfd_line,
        } = d;
        ImportDeadlines {
            pickup_lfd_terminal: dt(pickup_lfd_terminal),
            pickup_lfd_rail: dt(pickup_lfd_rail),
            pickup_lfd_line: dt(pickup_lfd_line),
        }
    }
}
