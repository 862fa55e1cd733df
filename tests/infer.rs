//! End-to-end tests of `POST /v2/tracking_requests/infer_number`: the real `teu` binary on a
//! random port, SQLite in a temp dir (PostgreSQL when `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use common::{data, generated_feed, Server, TestDb};
use serde_json::{json, Value};

on_both_backends!(
    infer_number_answers,
    rate_limit_per_account,
    graphql_inference_matches_rest_and_shares_the_limit
);

const PATH: &str = "/v2/tracking_requests/infer_number";

/// POSTs `body` (raw text) to the infer operation; returns status, `Retry-After` and body.
async fn post(server: &Server, key: Option<&str>, body: &str) -> (u16, Option<String>, Value) {
    let mut req = server
        .client()
        .post(format!("{}{PATH}", server.base))
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(k) = key {
        req = req.header("Authorization", format!("Token {k}"));
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.expect("body");
    let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, retry, body)
}

async fn infer(server: &Server, key: &str, number: &str) -> Value {
    let (status, _, body) = post(server, Some(key), &json!({ "number": number }).to_string()).await;
    assert_eq!(status, 200, "{number}: {body}");
    body["data"]["attributes"].clone()
}

async fn infer_number_answers(db: &TestDb) {
    let key = db.create_account("acme");
    let feed = generated_feed(40, 11);
    db.ingest(
        "acme",
        &[data("dcsa/tnt-220-response.json"), feed.path().into()],
    );
    let other = db.create_account("other");
    let server = Server::start(db, &[]);

    // The DCSA sample container: a CMA CGM box (for an account without history).
    let a = infer(&server, &other, "APZU 481209-0").await;
    assert_eq!(a["number"], "APZU4812090");
    assert_eq!(a["number_type"], "container");
    assert_eq!(a["validation"]["is_valid"], true);
    assert_eq!(a["validation"]["type"], "container");
    assert_eq!(a["validation"]["check_digit_passed"], true);
    assert!(a["validation"].get("reason").is_none());
    assert_eq!(a["shipping_line"]["decision"], "auto_select");
    assert_eq!(a["shipping_line"]["selected"]["scac"], "CMDU");
    let top = a["shipping_line"]["selected"]["confidence"]
        .as_f64()
        .unwrap();
    assert!((0.95..=1.0).contains(&top), "{top}");

    // An invalid number is still a 200, with the reason.
    let a = infer(&server, &key, "APZU2134567").await;
    assert_eq!(a["validation"]["is_valid"], false);
    assert_eq!(a["validation"]["check_digit_passed"], false);
    assert!(a["validation"]["reason"]
        .as_str()
        .unwrap()
        .contains("check digit is 7, ISO 6346 gives 4"));
    let a = infer(&server, &key, "not a number!").await;
    assert_eq!(a["validation"]["is_valid"], false);
    assert_eq!(a["shipping_line"]["decision"], "no_prediction");
    assert!(a["shipping_line"].get("selected").is_none());

    // A bill of lading with MSC's prefix.
    let a = infer(&server, &key, "MEDU1234567").await;
    assert_eq!(a["number_type"], "bill_of_lading");
    assert_eq!(a["validation"]["type"], "shipment");
    assert_eq!(a["shipping_line"]["selected"]["scac"], "MSCU");

    // A lessor box: the account's history lists lines, never confidently.
    let (_, list) = server
        .get("/v2/containers?page[size]=100", Some(&key))
        .await;
    let lessor = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["attributes"]["number"].as_str())
        .find(|n| ["TCLU", "TGHU", "FCIU", "TEMU", "CAIU", "SEGU"].contains(&&n[..4]))
        .expect("the generated feed has lessor boxes")
        .to_string();
    let a = infer(&server, &key, &lessor).await;
    let candidates = a["shipping_line"]["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty(), "history gives candidates: {a}");
    assert_ne!(a["shipping_line"]["decision"], "auto_select", "{a}");
    let conf: Vec<f64> = candidates
        .iter()
        .map(|c| c["confidence"].as_f64().unwrap())
        .collect();
    assert!(conf.windows(2).all(|w| w[0] >= w[1]), "ranked: {conf:?}");
    // Another account has no history: nothing for the same box.
    let a = infer(&server, &other, &lessor).await;
    assert_eq!(a["shipping_line"]["candidates"], json!([]));

    // 422 with a pointer for an empty or non-string number; 400 for a body that is not JSON.
    for body in [r#"{"number": ""}"#, r#"{"number": 12345}"#, r#"{}"#] {
        let (status, _, b) = post(&server, Some(&key), body).await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(b["errors"][0]["status"], "422");
        assert_eq!(b["errors"][0]["source"]["pointer"], "/number");
    }
    let (status, _, b) = post(&server, Some(&key), "{").await;
    assert_eq!(status, 400);
    assert_eq!(b["errors"][0]["code"], "malformed_body");
    let (status, _, _) = post(&server, None, r#"{"number": "APZU4812090"}"#).await;
    assert_eq!(status, 401);
}

async fn rate_limit_per_account(db: &TestDb) {
    let key = db.create_account("busy");
    let calm = db.create_account("calm");
    let server = Server::start(db, &[]);
    let body = r#"{"number": "MSKU1234565"}"#;
    // 200 per minute: the first 200 pass; then, requests being far faster than the refill
    // (one every 0.3 s), a 429 comes.
    for i in 0..200 {
        let (status, _, b) = post(&server, Some(&key), body).await;
        assert_eq!(status, 200, "request {i}: {b}");
    }
    let mut limited = None;
    for _ in 0..1000 {
        let (status, retry, b) = post(&server, Some(&key), body).await;
        if status == 429 {
            limited = Some((retry, b));
            break;
        }
    }
    let (retry, b) = limited.expect("a 429 after the allowance");
    let retry: u64 = retry.expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(b["errors"][0]["status"], "429");
    assert_eq!(b["errors"][0]["code"], "rate_limited");
    // Other accounts keep their own allowance.
    let (status, _, _) = post(&server, Some(&calm), body).await;
    assert_eq!(status, 200);
}

const INFERRED: &str = "number numberType validation { isValid type checkDigitPassed reason } \
    shippingLine { decision selected { scac name confidence } candidates { scac name confidence } }";

/// The `/v2` attributes written the GraphQL way: camelCase keys, enum values in capitals.
fn as_graphql(a: &Value) -> Value {
    let upper = |v: &Value| json!(v.as_str().unwrap().to_uppercase());
    let v = &a["validation"];
    let l = &a["shipping_line"];
    json!({
        "number": a["number"],
        "numberType": upper(&a["number_type"]),
        "validation": {
            "isValid": v["is_valid"],
            "type": upper(&v["type"]),
            "checkDigitPassed": v["check_digit_passed"],
            "reason": v.get("reason").cloned().unwrap_or(Value::Null),
        },
        "shippingLine": {
            "decision": upper(&l["decision"]),
            "selected": l.get("selected").cloned().unwrap_or(Value::Null),
            "candidates": l["candidates"],
        },
    })
}

async fn graphql_inference_matches_rest_and_shares_the_limit(db: &TestDb) {
    let key = db.create_account("acme");
    let feed = generated_feed(20, 5);
    db.ingest(
        "acme",
        &[data("dcsa/tnt-220-response.json"), feed.path().into()],
    );
    let server = Server::start(db, &[]);
    let numbers = [
        "APZU 481209-0",
        "APZU2134567",
        "MEDU1234567",
        "TCLU1234565",
        "ABC709951",
        "not a number!",
    ];
    // One GraphQL batch: the /v2 answers, in input order.
    let (status, body) = server
        .graphql(
            Some(&key),
            &format!("query($n: [String!]!) {{ inferNumbers(numbers: $n) {{ {INFERRED} }} }}"),
            json!({"n": numbers}),
        )
        .await;
    assert_eq!(status, 200);
    assert!(body.get("errors").is_none(), "{body}");
    let batch = body["data"]["inferNumbers"].as_array().unwrap().clone();
    assert_eq!(batch.len(), numbers.len());
    for (i, n) in numbers.iter().enumerate() {
        let rest = infer(&server, &key, n).await;
        assert_eq!(batch[i], as_graphql(&rest), "{n}");
        let (_, one) = server
            .graphql(
                Some(&key),
                &format!("query($n: String!) {{ inferNumber(number: $n) {{ {INFERRED} }} }}"),
                json!({"n": n}),
            )
            .await;
        assert_eq!(one["data"]["inferNumber"], batch[i], "{n}");
    }
    // 13 requests so far (1 batch, 6 REST, 6 single). One GraphQL request of 250 aliased
    // fields (each counts one) uses up the rest of the 200, far faster than the refill (one
    // every 0.3 s): the fields beyond it fail RATE_LIMITED and the response has Retry-After.
    let fields: Vec<String> = (0..250)
        .map(|i| format!("f{i}: inferNumbers(numbers: []) {{ number }}"))
        .collect();
    let resp = server
        .client()
        .post(format!("{}/graphql", server.base))
        .header("Authorization", format!("Token {key}"))
        .json(&json!({"query": format!("{{ {} }}", fields.join(" "))}))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status().as_u16(), 200);
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: Value = resp.json().await.unwrap();
    let errors = body["errors"].as_array().expect("refused fields");
    assert!(errors.len() >= 20, "{} refused", errors.len());
    assert!(
        errors.len() <= 63,
        "at most the fields beyond the allowance: {}",
        errors.len()
    );
    for e in errors {
        assert_eq!(e["extensions"]["code"], "RATE_LIMITED", "{e}");
        let r = e["extensions"]["retryAfter"].as_u64().unwrap();
        assert!((1..=60).contains(&r), "{e}");
    }
    // /v2 shares the allowance: it is refused within a few requests, not after 200.
    let mut refused = None;
    for i in 0..20 {
        let (status, retry, _) = post(&server, Some(&key), r#"{"number": "MSKU1234565"}"#).await;
        if status == 429 {
            refused = Some((i, retry));
            break;
        }
    }
    let (_, retry) = refused.expect("/v2 refused after GraphQL spent the allowance");
    assert!(retry.is_some());
    // Other fields are not limited.
    let (_, body) = server
        .graphql(
            Some(&key),
            "{ containers(first: 1) { totalCount } }",
            json!({}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body}");
}
