//! Carrier inference on generated numbers: every `auto_select` answer for a generated container
//! or bill of lading is the line that generated it (`teu_pipeline::infer`).

use teu_pipeline::infer::{infer, Decision, History, NumberType};

fn empty() -> &'static History {
    History::empty()
}

#[test]
fn generated_numbers_get_their_line() {
    use teu_synth::dcsa::{generate, GenOptions};
    let files = generate(&GenOptions {
        shipments: 60,
        seed: 7,
        events_per_file: 0,
    });
    let (_, carriers) = teu_pipeline::reference::bundled();
    let mut checked = 0;
    let mut auto = (0, 0);
    for e in files.iter().flat_map(|f| &f.events) {
        let (Some(container), Some(refs)) = (
            e["equipmentReference"].as_str(),
            e["documentReferences"].as_array(),
        ) else {
            continue;
        };
        let Some(bl) = refs
            .iter()
            .find(|r| r["documentReferenceType"] == "TRD")
            .and_then(|r| r["documentReferenceValue"].as_str())
        else {
            continue;
        };
        // The generator writes bills of lading with the line's prefix: the label.
        let carrier = carriers.get(&bl[..4]).expect("known prefix").scac.as_str();
        for (number, t) in [
            (container, NumberType::Container),
            (bl, NumberType::BillOfLading),
        ] {
            let r = infer(number, empty());
            if t == NumberType::Container {
                assert_eq!(r.number_type, t, "{number}");
                assert_eq!(r.validation.is_valid, Some(true), "{number}");
            }
            if r.shipping_line.decision == Decision::AutoSelect {
                let s = r.shipping_line.selected.unwrap();
                auto.0 += 1;
                auto.1 += usize::from(s.scac == carrier);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
    assert!(auto.0 > 50, "{auto:?}");
    assert_eq!(auto.0, auto.1, "every auto_select is the generating line");
}
