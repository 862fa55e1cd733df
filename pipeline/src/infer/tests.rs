use super::batch::{infer_column, OUTPUT_COLUMNS};
use super::*;
use crate::iso6346;
use polars::prelude::*;

fn empty() -> &'static History {
    History::empty()
}

#[test]
fn dcsa_sample_container_is_cma_cgm() {
    // APZU4812090: the DCSA T&T 2.2 sample equipment; APZU is a CMA CGM (ex-APL) owner prefix.
    let r = infer("apzu 481209-0", empty());
    assert_eq!(r.number, "APZU4812090");
    assert_eq!(r.number_type, NumberType::Container);
    assert_eq!(r.validation.is_valid, Some(true));
    assert_eq!(r.validation.kind, "container");
    assert!(r.validation.check_digit_passed);
    assert_eq!(r.validation.reason, None);
    assert_eq!(r.shipping_line.decision, Decision::AutoSelect);
    let selected = r.shipping_line.selected.as_ref().unwrap();
    assert_eq!(selected.scac, "CMDU");
    assert_eq!(selected.confidence, 0.97);
    // Sister lines of the group are listed, far below.
    let scacs: Vec<&str> = r
        .shipping_line
        .candidates
        .iter()
        .map(|c| c.scac.as_str())
        .collect();
    assert_eq!(scacs, ["CMDU", "ANNU", "APLU"]);
    assert!(r.shipping_line.candidates[1].confidence < 0.7);
}

#[test]
fn check_digit_failure_says_what_is_wrong_and_still_predicts() {
    // The DCSA "wrong attribute values" sample: APZU2134567 has check digit 4, not 7.
    let r = infer("APZU2134567", empty());
    assert_eq!(r.number_type, NumberType::Container);
    assert_eq!(r.validation.is_valid, Some(false));
    assert!(!r.validation.check_digit_passed);
    assert_eq!(
        r.validation.reason.as_deref(),
        Some("container number \"APZU2134567\": check digit is 7, ISO 6346 gives 4; a number that fails its check digit is never auto-selected, so the line's confidence is capped at 0.94")
    );
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    assert_eq!(r.shipping_line.selected.unwrap().scac, "CMDU");
    // Without a candidate there is nothing to cap: the reason is ISO 6346's alone.
    let r = infer("QQQU2134567", empty());
    assert!(r.shipping_line.candidates.is_empty());
    let reason = r.validation.reason.unwrap();
    assert!(
        reason.contains("ISO 6346 gives") && !reason.contains("capped"),
        "{reason}"
    );
}

#[test]
fn a_failing_check_digit_is_never_auto_selected_whatever_the_history() {
    // MSCU1234567: ISO 6346 gives check digit 6, not 7. An account that has tracked 200 MSCU
    // boxes with MSC lifts the owner evidence, but never to auto_select.
    assert!(iso6346::validate("MSCU1234566").is_ok());
    let mut history = History::default();
    history.add_owner("MSCU", "MSCU", 200);
    let good = infer("MSCU1234566", &history);
    assert_eq!(good.shipping_line.decision, Decision::AutoSelect);
    let r = infer("MSCU1234567", &history);
    assert_eq!(r.validation.is_valid, Some(false));
    assert!(!r.validation.check_digit_passed);
    let top = &r.shipping_line.candidates[0];
    assert_eq!((top.scac.as_str(), top.confidence), ("MSCU", BAD_CHECK_CAP));
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    let reason = r.validation.reason.unwrap();
    assert!(
        reason.contains("check digit is 7, ISO 6346 gives 6"),
        "{reason}"
    );
    assert!(reason.contains("never auto-selected"), "{reason}");
    // The batch path answers the same.
    let batch = infer_column(
        Scorer::bundled(),
        &Column::new("number".into(), ["MSCU1234567"]),
        &history,
    )
    .unwrap();
    let decision = batch.column("decision").unwrap().str().unwrap().get(0);
    assert_eq!(decision, Some("needs_confirmation"));
}

#[test]
fn lessor_boxes_are_never_confident() {
    // TCLU (Triton) and TGHU (Textainer) are lessors: their boxes sail with any line.
    for number in ["TCLU1234568", "TGHU1234567"] {
        let r = infer(number, empty());
        assert_eq!(r.validation.is_valid, Some(true), "{number}");
        assert_eq!(r.shipping_line.decision, Decision::NoPrediction, "{number}");
        assert!(r.shipping_line.selected.is_none());
        assert!(r.shipping_line.candidates.is_empty());
    }
    // Even when the account always saw TCLU boxes with MSC, history alone stays below 0.95.
    let mut h = History::default();
    h.add_owner("TCLU", "MSCU", 1000);
    let r = infer("TCLU1234568", &h);
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    assert_eq!(r.shipping_line.selected.as_ref().unwrap().scac, "MSCU");
    assert_eq!(r.shipping_line.candidates[0].confidence, HISTORY_ONLY_CAP);
    // A few observations give a weak, unselected candidate.
    let mut h = History::default();
    h.add_owner("TCLU", "MSCU", 2);
    h.add_owner("TCLU", "MAEU", 1);
    let r = infer("TCLU1234568", &h);
    assert_eq!(r.shipping_line.decision, Decision::NoPrediction);
    assert_eq!(r.shipping_line.candidates.len(), 2);
    assert_eq!(r.shipping_line.candidates[0].scac, "MSCU");
    assert_eq!(r.shipping_line.candidates[0].confidence, 0.25);
}

#[test]
fn history_moves_a_carrier_box() {
    // The account's MSKU boxes all travelled with Maersk: more certain.
    let mut h = History::default();
    h.add_owner("MSKU", "MAEU", 45);
    let r = infer("MSKU1234565", &h);
    assert_eq!(r.shipping_line.selected.as_ref().unwrap().scac, "MAEU");
    assert!(r.shipping_line.candidates[0].confidence > 0.97);
    // They all travelled with someone else: the reference is outweighed, no longer confident.
    let mut h = History::default();
    h.add_owner("MSKU", "HLCU", 45);
    let r = infer("MSKU1234565", &h);
    assert_eq!(r.shipping_line.candidates[0].scac, "HLCU");
    assert_ne!(r.shipping_line.decision, Decision::AutoSelect);
}

#[test]
fn lines_added_from_two_origin_code_lists() {
    // Unifeeder's own box (BIC owner prefix TLCU) selects Unifeeder.
    let r = infer("TLCU1234560", empty());
    assert_eq!(r.number_type, NumberType::Container);
    assert_eq!(r.shipping_line.decision, Decision::AutoSelect);
    assert_eq!(r.shipping_line.selected.unwrap().scac, "UFEE");
    // Numbers that start with a SCAC or an alternative SCAC are that line's bills.
    for (number, scac) in [
        ("UFEE20240001", "UFEE"),
        ("IRSUAB123456", "IRSU"),
        ("TSGL12345678", "TSCW"),
    ] {
        let r = infer(number, empty());
        assert_eq!(r.number_type, NumberType::BillOfLading, "{number}");
        assert_eq!(r.shipping_line.decision, Decision::AutoSelect, "{number}");
        assert_eq!(r.shipping_line.selected.unwrap().scac, scac, "{number}");
    }
    // HDS Lines' IRSU boxes are not in the BIC file: a valid IRSU container has no owner line.
    let r = infer("IRSU1234561", empty());
    assert_eq!(r.number_type, NumberType::Container);
    assert_eq!(r.shipping_line.decision, Decision::NoPrediction);
}

#[test]
fn bills_of_lading_and_bookings() {
    let r = infer("MEDU1234567", empty());
    // MEDU + 7 digits fails the ISO 6346 check digit: MSC's bill of lading format.
    assert_eq!(iso6346::check_digit("MEDU123456"), Some(2));
    assert_eq!(r.number_type, NumberType::BillOfLading);
    assert_eq!(r.validation.kind, "shipment");
    assert_eq!(r.validation.is_valid, Some(true));
    assert_eq!(r.shipping_line.selected.unwrap().scac, "MSCU");

    for (number, scac) in [
        ("MAEU123456789", "MAEU"),
        ("HLCURUH220700151", "HLCU"),
        ("CCMJ1234567890", "COSU"),
        ("EISU123456789012", "EGLV"),
        ("ONEYSHAA12345678", "ONEY"),
        ("YMPR123456789", "YMLU"),
    ] {
        let r = infer(number, empty());
        assert_eq!(r.number_type, NumberType::BillOfLading, "{number}");
        assert_eq!(r.shipping_line.decision, Decision::AutoSelect, "{number}");
        assert_eq!(r.shipping_line.selected.unwrap().scac, scac, "{number}");
    }

    // A bare nine-digit number has the shape of Maersk's numbers (its only line with that
    // shape): proposed for confirmation, never selected.
    let r = infer("123456789", empty());
    assert_eq!(r.number_type, NumberType::Booking);
    assert_eq!(r.validation.is_valid, None);
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    let top = &r.shipping_line.candidates[0];
    assert_eq!((top.scac.as_str(), top.confidence), ("MAEU", SHAPE));
}

#[test]
fn booking_shapes_propose_lines_but_never_select_them() {
    // MSC bookings: EBKG and eight digits (the calibration set's MSC booking).
    let r = infer("EBKG10391083", empty());
    assert_eq!(r.number_type, NumberType::Booking);
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    assert_eq!(r.shipping_line.selected.unwrap().scac, "MSCU");
    // Ten digits are COSCO's, Matson's and OOCL's bare numbers alike: three candidates, none
    // confident enough to propose.
    let r = infer("6012345678", empty());
    let scacs: Vec<&str> = r
        .shipping_line
        .candidates
        .iter()
        .map(|c| c.scac.as_str())
        .collect();
    assert_eq!(scacs, ["COSU", "MATS", "OOLU"]);
    assert_eq!(r.shipping_line.decision, Decision::NoPrediction);
    assert!(r.shipping_line.selected.is_none());
    // A shape that is no line's gets nothing.
    let r = infer("QX12345678901", empty());
    assert!(r.shipping_line.candidates.is_empty());
    // Even a unique shape stays below auto_select.
    for number in ["123456789", "123456789012", "EBKG10391083"] {
        let r = infer(number, empty());
        assert!(
            r.shipping_line.candidates[0].confidence < AUTO_SELECT,
            "{number}"
        );
    }
}

#[test]
fn invalid_numbers_have_reasons() {
    let cases = [
        ("", "the number is empty"),
        ("  - ", "the number is empty"),
        ("ABC#123456", "contains '#'"),
        ("HELLOWORLD", "no digits"),
        ("AB12", "has 4 characters"),
        ("APZX4812090", "category identifier must be U, J or Z"),
        ("A1234567890123456789012", "has 23 characters"),
    ];
    for (number, reason) in cases {
        let r = infer(number, empty());
        assert_eq!(r.validation.is_valid, Some(false), "{number}");
        let got = r.validation.reason.unwrap();
        assert!(got.contains(reason), "{number}: {got}");
        assert_eq!(r.shipping_line.decision, Decision::NoPrediction);
    }
    // An invalid number may still get a prediction: a digit missing from a CMA CGM box.
    let r = infer("APZU481209", empty());
    assert_eq!(r.number_type, NumberType::Container);
    assert!(r
        .validation
        .reason
        .unwrap()
        .contains("must be 11 characters"));
    assert_eq!(r.shipping_line.decision, Decision::NeedsConfirmation);
    assert_eq!(r.shipping_line.selected.unwrap().scac, "CMDU");
}

#[test]
fn serializes_like_the_spec() {
    let v = serde_json::to_value(infer("APZU4812090", empty())).unwrap();
    assert_eq!(v["number_type"], "container");
    assert_eq!(v["validation"]["type"], "container");
    assert_eq!(v["validation"]["check_digit_passed"], true);
    assert!(v["validation"].get("reason").is_none());
    assert_eq!(v["shipping_line"]["decision"], "auto_select");
    assert_eq!(v["shipping_line"]["selected"]["scac"], "CMDU");
    assert_eq!(v["shipping_line"]["selected"]["name"], "CMA CGM");
    let v = serde_json::to_value(infer("TGHU1234567", empty())).unwrap();
    assert!(v["shipping_line"].get("selected").is_none());
    assert_eq!(v["shipping_line"]["decision"], "no_prediction");
}

#[test]
fn column_path_matches_single_path_in_order() {
    let numbers = [
        Some("APZU4812090"),
        None,
        Some("MEDU1234567"),
        Some("tclu 123456 5"),
        Some("APZU4812090"),
        Some("???"),
    ];
    let col = Column::new("n".into(), numbers.to_vec());
    let df = infer_column(Scorer::bundled(), &col, empty()).unwrap();
    assert_eq!(df.height(), numbers.len());
    let names: Vec<&str> = df.get_column_names().iter().map(|s| s.as_str()).collect();
    assert_eq!(names, OUTPUT_COLUMNS);
    let get = |c: &str| -> Vec<Option<String>> {
        df.column(c)
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect()
    };
    let decision = get("decision");
    let scac = get("scac");
    for (i, n) in numbers.iter().enumerate() {
        let r = infer(n.unwrap_or(""), empty());
        assert_eq!(
            decision[i].as_deref(),
            Some(r.shipping_line.decision.as_str())
        );
        assert_eq!(scac[i], r.shipping_line.selected.map(|s| s.scac), "row {i}");
    }
    assert_eq!(get("number")[1], None);
    assert!(get("reason")[1].as_deref().unwrap().contains("empty"));
    assert!(get("reason")[5].as_deref().unwrap().contains("'?'"));
}

#[test]
fn many_path_equals_single_path_in_order() {
    let numbers = [
        "APZU4812090",
        "",
        "MEDU1234567",
        "tclu 123456 5",
        "APZU4812090",
        "???",
    ];
    let many = super::batch::infer_many(Scorer::bundled(), &numbers, empty());
    assert_eq!(many.len(), numbers.len());
    for (got, n) in many.iter().zip(numbers) {
        assert_eq!(got, &infer(n, empty()), "{n:?}");
    }
    assert_eq!(many[1].validation.is_valid, Some(false));
    assert!(super::batch::infer_many(Scorer::bundled(), &[], empty()).is_empty());
}

/// Calibration on `data/calibration/labelled-numbers.csv`: real numbers with the line that
/// carried them, from public material (sources in the file and `docs/sources-labelled-numbers.md`).
/// Among auto_select answers at least 99% must be right; the figures, overall, per number type
/// and per labelled line, go to the README.
///
/// An answer is right when the selected line is the labelled SCAC or has it as an alternative
/// SCAC (`NYKS`, `MOLU` and `KKLU` are the SCACs of the lines merged into ONE, `ONEY`, in 2018).
/// Every container number must be typed `container`; a shipment number without a carrier prefix
/// cannot be told apart from a booking by its shape, so the bill-of-lading/booking split is
/// reported, and only required to never call a shipment number a container.
#[test]
fn calibration_on_public_labelled_numbers() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/calibration/labelled-numbers.csv");
    let carriers = &crate::reference::bundled().1;
    let same_line = |selected: &str, label: &str| {
        selected == label
            || carriers
                .get(selected)
                .is_some_and(|c| c.alternative_scacs.iter().any(|a| a == label))
    };
    let mut reader = csv::Reader::from_path(path).unwrap();
    let (mut total, mut types_right, mut containers, mut containers_typed) = (0, 0, 0, 0);
    let mut shipment_numbers_as_containers = Vec::new();
    let (mut auto, mut auto_right) = (0, 0);
    let (mut confirm, mut confirm_holds) = (0, 0);
    let mut none = 0;
    // Per labelled number type and per labelled line: [numbers, auto_select, right].
    let mut by_type: std::collections::BTreeMap<String, [usize; 3]> = Default::default();
    let mut by_line: std::collections::BTreeMap<String, [usize; 3]> = Default::default();
    for record in reader.records() {
        let record = record.unwrap();
        let (number, number_type, scac) = (&record[0], &record[1], &record[2]);
        let r = infer(number, empty());
        total += 1;
        types_right += usize::from(r.number_type.as_str() == number_type);
        if number_type == "container" {
            containers += 1;
            containers_typed += usize::from(r.number_type == NumberType::Container);
        } else if r.number_type == NumberType::Container {
            shipment_numbers_as_containers.push(number.to_string());
        }
        let holds = r
            .shipping_line
            .candidates
            .iter()
            .any(|c| same_line(&c.scac, scac));
        let mut tally = [1, 0, 0];
        match r.shipping_line.decision {
            Decision::AutoSelect => {
                auto += 1;
                let right = same_line(&r.shipping_line.selected.unwrap().scac, scac);
                auto_right += usize::from(right);
                tally = [1, 1, usize::from(right)];
            }
            Decision::NeedsConfirmation => {
                confirm += 1;
                confirm_holds += usize::from(holds);
            }
            Decision::NoPrediction => none += 1,
        }
        for (map, key) in [(&mut by_type, number_type), (&mut by_line, scac)] {
            let t = map.entry(key.to_string()).or_default();
            for k in 0..3 {
                t[k] += tally[k];
            }
        }
    }
    eprintln!(
        "calibration: {total} numbers; number type right {types_right} ({containers_typed} of \
         {containers} containers); auto_select {auto} ({auto_right} right); needs_confirmation \
         {confirm} ({confirm_holds} hold the line); no_prediction {none}"
    );
    for (title, map) in [("number type", &by_type), ("labelled line", &by_line)] {
        eprintln!("| {title} | numbers | auto_select | coverage | right |");
        eprintln!("|---|---|---|---|---|");
        for (key, [n, a, right]) in map {
            eprintln!(
                "| {key} | {n} | {a} | {:.0}% | {right} |",
                100.0 * *a as f64 / *n as f64
            );
        }
    }
    assert!(total >= 800, "{total}");
    assert_eq!(containers_typed, containers);
    assert!(
        shipment_numbers_as_containers.is_empty(),
        "{shipment_numbers_as_containers:?}"
    );
    assert!(auto_right * 100 >= auto * 99, "{auto_right}/{auto}");
}
