//! Facts that need a shipment and all of its derived containers at once, applied after
//! [`crate::normalize::derive`] and [`crate::terminal_facts::apply`] (so the containers' POD
//! terminals, terminal checks and empty returns are known).
//!
//! | field | rule |
//! |---|---|
//! | shipment `pod_terminal` | the POD terminal most of its containers name (ties: the smallest terminal id); null when none names one |
//! | container `pickup_facility` | where the box is picked up full: the POD terminal for a port-to-port move; for an inland move (the shipment has a `destination_locode`), the terminal of the latest check at the destination, else null |
//! | shipment `line_tracking_stopped_at` / `_reason` | when every container has `empty_terminated_at`: the latest of them and `all_containers_terminated` (Terminal49's reason for a shipment whose boxes all came back empty). A user's stop (`cancelled_by_user`) is kept apart and wins when the row is read |
//! | container `shipment_last_tracking_request_at` | the latest `created_at` of the account's tracking requests for the shipment's bill of lading, one of its bookings or one of its containers |
//! | container `pod_last_tracking_request_at` | the latest terminal check of the box at its POD (`terminal_checked_at`): the last time teu was told the terminal's state |
//! | shipment `shipping_line_*` | when the events name no line (no NMFTA vessel operator, no known bill-of-lading prefix, as in the DCSA 3.0 sample), the line that carrier inference ([`crate::infer`], no account history) auto-selects for the bill of lading, else for one of the containers (in number order) |

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::model::{Container, Shipment, TerminalCheck};

/// Terminal49's `line_tracking_stopped_reason` when every container of a shipment has been
/// returned empty.
pub const ALL_CONTAINERS_TERMINATED: &str = "all_containers_terminated";

/// Applies the rules of the module table to `shipments` and their `containers`.
///
/// `checks` are the terminal checks of the containers (as given to
/// [`crate::terminal_facts::apply`]); `requested` maps a tracked number (bill of lading,
/// booking or container number) to the latest `created_at` of its tracking requests (UTC).
pub fn apply(
    shipments: &mut [Shipment],
    containers: &mut [Container],
    checks: &[TerminalCheck],
    requested: &HashMap<String, DateTime<Utc>>,
) {
    // Each container's checks found by its number, not by a scan of every check of the
    // derivation per container.
    let mut checks_of: HashMap<&str, Vec<&TerminalCheck>> = HashMap::new();
    for k in checks {
        checks_of
            .entry(k.container_number.as_str())
            .or_default()
            .push(k);
    }
    let mut of_shipment: HashMap<Uuid, Vec<usize>> = HashMap::new();
    for (i, c) in containers.iter().enumerate() {
        of_shipment.entry(c.shipment_id).or_default().push(i);
    }
    for s in shipments.iter_mut() {
        let members = of_shipment
            .get(&s.id)
            .map(Vec::as_slice)
            .unwrap_or_default();
        s.pod_terminal_id = most_named(
            members
                .iter()
                .filter_map(|&i| containers[i].pod_terminal_id),
        );
        let terminated: Vec<DateTime<Utc>> = members
            .iter()
            .filter_map(|&i| containers[i].empty_terminated_at)
            .collect();
        if !members.is_empty() && terminated.len() == members.len() {
            s.line_tracking_stopped_at = terminated.iter().max().copied();
            s.line_tracking_stopped_reason = Some(ALL_CONTAINERS_TERMINATED.to_string());
        } else {
            s.line_tracking_stopped_at = None;
            s.line_tracking_stopped_reason = None;
        }
        let mut numbers: Vec<&str> = vec![s.bill_of_lading_number.as_str()];
        numbers.extend(s.ref_numbers.iter().map(String::as_str));
        numbers.extend(members.iter().map(|&i| containers[i].number.as_str()));
        let last_request = numbers
            .iter()
            .filter_map(|n| requested.get(*n))
            .max()
            .copied();
        if s.shipping_line_scac.is_empty() {
            let numbers = std::iter::once(s.bill_of_lading_number.as_str())
                .chain(members.iter().map(|&i| containers[i].number.as_str()));
            if let Some(line) = numbers.filter_map(inferred_line).next() {
                s.shipping_line_scac = line.scac.to_string();
                s.shipping_line_name = line.name.clone();
                s.shipping_line_short_name = line.short_name.clone();
            }
        }
        let inland = s.destination_locode.clone();
        for &i in members {
            let c = &mut containers[i];
            c.shipment_last_tracking_request_at = last_request;
            c.pod_last_tracking_request_at = c.terminal_checked_at;
            c.pickup_facility_id = match &inland {
                None => c.pod_terminal_id,
                Some(destination) => checks_of
                    .get(c.number.as_str())
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter(|k| &k.terminal_locode == destination)
                    .max_by_key(|k| k.checked_at)
                    .map(|k| k.terminal_id),
            };
        }
    }
}

/// The reference carrier that inference auto-selects for `number`, if any.
fn inferred_line(number: &str) -> Option<&'static crate::model::Carrier> {
    let inference = crate::infer::infer(number, &crate::infer::history::History::default());
    let selected = inference.shipping_line.selected?;
    (inference.shipping_line.decision == crate::infer::Decision::AutoSelect)
        .then(|| crate::reference::bundled().1.get(&selected.scac))
        .flatten()
}

/// The id named most often (ties: the smallest), `None` for none.
fn most_named(ids: impl Iterator<Item = Uuid>) -> Option<Uuid> {
    let mut counts: HashMap<Uuid, usize> = HashMap::new();
    for id in ids {
        *counts.entry(id).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|(a, na), (b, nb)| na.cmp(nb).then(b.cmp(a)))
        .map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_named_terminal_wins_and_ties_take_the_smallest() {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert_eq!(most_named([b, a, b].into_iter()), Some(b));
        assert_eq!(most_named([b, a].into_iter()), Some(a));
        assert_eq!(most_named(std::iter::empty()), None);
    }
}
