//! What users ask and submit through GraphQL: number inference and its rate limit, tracking
//! requests, email submissions and document schemas.

use super::*;

/// `SCREAMING_SNAKE` of a `/v2` snake_case enum value (`auto_select` → `AUTO_SELECT`).
fn enum_name(v: &Value) -> Value {
    json!(v.as_str().unwrap().to_uppercase())
}

const INFERRED_FIELDS: &str = "number numberType validation { isValid type checkDigitPassed reason } \
    shippingLine { decision selected { scac name confidence } candidates { scac name confidence } }";

/// Asserts a GraphQL `InferredNumber` carries the values of the pipeline's result (which `/v2`
/// serializes as they are).
fn assert_inferred(got: &Value, want: &teu_pipeline::infer::Inference) {
    let want = serde_json::to_value(want).unwrap();
    assert_eq!(got["number"], want["number"]);
    assert_eq!(got["numberType"], enum_name(&want["number_type"]));
    let (gv, wv) = (&got["validation"], &want["validation"]);
    assert_eq!(gv["isValid"], wv["is_valid"]);
    assert_eq!(gv["type"], enum_name(&wv["type"]));
    assert_eq!(gv["checkDigitPassed"], wv["check_digit_passed"]);
    assert_eq!(
        gv["reason"],
        wv.get("reason").cloned().unwrap_or(Value::Null)
    );
    let (gs, ws) = (&got["shippingLine"], &want["shipping_line"]);
    assert_eq!(gs["decision"], enum_name(&ws["decision"]));
    assert_eq!(
        gs["selected"],
        ws.get("selected").cloned().unwrap_or(Value::Null)
    );
    assert_eq!(gs["candidates"], ws["candidates"]);
}

const SAMPLE_NUMBERS: [&str; 7] = [
    "APZU 481209-0",
    "APZU2134567",
    "MEDU1234567",
    "TCLU 123456 5",
    "ABC709951",
    "not a number!",
    "reserved-HHL123",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infer_number_has_the_pipeline_values() {
    let f = fixture().await;
    let history = f.store.scac_history(f.a.id).await.unwrap();
    assert!(
        !history.owner.is_empty(),
        "the fixture gives account a a history"
    );
    for number in SAMPLE_NUMBERS {
        for (account, history) in [
            (&f.a, &history),
            (&f.b, teu_pipeline::infer::History::empty()),
        ] {
            let data = ok(
                &f.schema,
                account,
                &format!(
                    "{{ inferNumber(number: {}) {{ {INFERRED_FIELDS} }} }}",
                    json!(number)
                ),
            )
            .await;
            assert_inferred(
                &data["inferNumber"],
                &teu_pipeline::infer::infer(number, history),
            );
        }
    }
    // The DCSA sample container: auto-selected CMA CGM.
    let data = ok(
        &f.schema,
        &f.b,
        "{ inferNumber(number: \"APZU4812090\") { numberType validation { type checkDigitPassed } \
           shippingLine { decision selected { scac } } } }",
    )
    .await;
    assert_eq!(
        data["inferNumber"],
        json!({ "numberType": "CONTAINER",
                "validation": { "type": "CONTAINER", "checkDigitPassed": true },
                "shippingLine": { "decision": "AUTO_SELECT", "selected": { "scac": "CMDU" } } })
    );
    // A blank number is refused, naming the argument.
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        "{ inferNumber(number: \"  \") { number } }",
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["BAD_USER_INPUT"]);
    assert_eq!(errors[0]["extensions"]["field"], "number");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infer_numbers_keeps_order_and_caps_the_list() {
    let f = fixture().await;
    let history = f.store.scac_history(f.a.id).await.unwrap();
    let mut numbers: Vec<&str> = SAMPLE_NUMBERS.to_vec();
    numbers.extend(["", "APZU 481209-0", "???"]);
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ inferNumbers(numbers: {}) {{ {INFERRED_FIELDS} }} }}",
            json!(numbers)
        ),
    )
    .await;
    let got = data["inferNumbers"].as_array().unwrap();
    assert_eq!(got.len(), numbers.len());
    for (g, n) in got.iter().zip(&numbers) {
        assert_inferred(g, &teu_pipeline::infer::infer(n, &history));
    }
    // A blank entry is reported in its own result, not refused.
    assert_eq!(got[7]["validation"]["isValid"], false);
    assert!(got[7]["validation"]["reason"]
        .as_str()
        .unwrap()
        .contains("empty"));
    let data = ok(&f.schema, &f.a, "{ inferNumbers(numbers: []) { number } }").await;
    assert_eq!(data["inferNumbers"], json!([]));

    // At most MAX_BATCH numbers, sent as a variable like a real client would.
    for (n, accepted) in [(crate::MAX_BATCH, true), (crate::MAX_BATCH + 1, false)] {
        let list: Vec<String> = (0..n).map(|i| format!("MSKU{i:07}")).collect();
        let request =
            Request::new("query($n: [String!]!) { inferNumbers(numbers: $n) { number } }")
                .variables(async_graphql::Variables::from_json(json!({ "n": list })))
                .data(f.a.clone());
        let response = serde_json::to_value(f.schema.execute(request).await).unwrap();
        if accepted {
            assert!(response.get("errors").is_none(), "{:?}", response["errors"]);
            assert_eq!(
                response["data"]["inferNumbers"].as_array().unwrap().len(),
                n
            );
            assert_eq!(response["data"]["inferNumbers"][5]["number"], "MSKU0000005");
        } else {
            let errors = response["errors"].as_array().unwrap();
            assert_eq!(codes(errors), ["BAD_USER_INPUT"]);
            assert_eq!(errors[0]["extensions"]["field"], "numbers");
            assert!(errors[0]["message"].as_str().unwrap().contains("10000"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inference_rate_limit_is_shared_and_counts_each_field_once() {
    let f = fixture().await;
    let limiter = teu_api::limit::AccountLimiter::per_minute(3);
    let schema = schema(f.store.clone(), limiter.clone());
    // Four inference fields in one request, one of them a batch of three numbers: each field
    // counts one request, so exactly one of the four is refused.
    let (data, errors) = run(
        &schema,
        Some(&f.a),
        "{ a: inferNumber(number: \"APZU4812090\") { number } \
           b: inferNumbers(numbers: [\"MEDU1234567\", \"ABC709951\", \"X\"]) { number } \
           c: inferNumber(number: \"MEDU1234567\") { number } \
           d: inferNumber(number: \"TCLU1234565\") { number } }",
    )
    .await;
    assert_eq!(codes(&errors), ["RATE_LIMITED"], "{errors:#?}");
    let retry = errors[0]["extensions"]["retryAfter"].as_u64().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("3 inference requests per minute"));
    let refused = errors[0]["path"][0].as_str().unwrap();
    assert!(data[refused].is_null());
    let answered = ["a", "b", "c", "d"]
        .iter()
        .filter(|k| !data[**k].is_null())
        .count();
    assert_eq!(answered, 3, "{data}");
    // The allowance is the limiter's: the REST side (same limiter) is refused too.
    assert!(limiter.check(f.a.id).is_err());
    // Another account keeps its own allowance; other fields are not limited.
    ok(
        &schema,
        &f.b,
        "{ inferNumber(number: \"APZU4812090\") { number } }",
    )
    .await;
    ok(&schema, &f.a, "{ containers(first: 1) { totalCount } }").await;

    // Over HTTP the refusal also sets Retry-After.
    let app = router(schema);
    let mut request = axum::http::Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({ "query": "{ inferNumber(number: \"X\") { number } }" }).to_string(),
        ))
        .unwrap();
    request.extensions_mut().insert(f.a.clone());
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let retry: u64 = response.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
}

const TRACKING_FIELDS: &str =
    "id requestNumber requestType scac status createdAt updatedAt shipment { id }";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracking_requests_are_created_and_listed_through_the_domain_path() {
    let f = fixture().await;
    let create = |number: &str, kind: &str, scac: &str| {
        format!(
            "mutation {{ createTrackingRequest(input: {{ requestNumber: {}, requestType: {kind}, \
             scac: {} }}) {{ {TRACKING_FIELDS} }} }}",
            json!(number),
            json!(scac)
        )
    };
    // The sample container is stored: the request is linked at once.
    let data = ok(
        &f.schema,
        &f.a,
        &create("apzu 481209-0", "CONTAINER", "cmdu"),
    )
    .await;
    let linked = &data["createTrackingRequest"];
    assert_eq!(linked["requestNumber"], "APZU4812090");
    assert_eq!(linked["requestType"], "CONTAINER");
    assert_eq!(linked["scac"], "CMDU");
    assert_eq!(linked["status"], "CREATED");
    let shipment_id = linked["shipment"]["id"].as_str().unwrap().to_string();
    let id = linked["id"].as_str().unwrap().to_string();
    // The same request again is the same request (the /v2 id rule).
    let again = ok(&f.schema, &f.a, &create("APZU4812090", "CONTAINER", "CMDU")).await;
    assert_eq!(again["createTrackingRequest"]["id"], json!(id));
    let data = ok(
        &f.schema,
        &f.a,
        &create("ABCD1234567890", "BOOKING", "MAEU"),
    )
    .await;
    let pending = data["createTrackingRequest"].clone();
    assert_eq!(pending["status"], "PENDING");
    assert!(pending["shipment"].is_null());

    // The stored rows are the ones /v2 serves.
    let stored = f
        .store
        .tracking_request(f.a.id, id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, "created");
    assert_eq!(stored.shipment_id.map(|s| s.to_string()), Some(shipment_id));
    let mut model = serde_json::to_value(&stored).unwrap();
    model["request_type"] = enum_name(&model["request_type"]);
    model["status"] = enum_name(&model["status"]);
    assert_same_values("TrackingRequest", linked, &model, &["shipment"]);

    // Rule violations: BAD_USER_INPUT naming the input field, nothing stored.
    for (mutation, field, fragment) in [
        (
            create("", "CONTAINER", "CMDU"),
            "requestNumber",
            "requestNumber is required",
        ),
        (
            create("APZU#4812090", "CONTAINER", "CMDU"),
            "requestNumber",
            "letters and digits",
        ),
        (
            create("APZU4812090", "CONTAINER", "C-1"),
            "scac",
            "scac must be a SCAC",
        ),
        (
            create("APZU4812090", "CONTAINER", " "),
            "scac",
            "scac is required",
        ),
    ] {
        let (data, errors) = run(&f.schema, Some(&f.a), &mutation).await;
        assert_eq!(data, Value::Null, "{mutation}");
        assert_eq!(codes(&errors), ["BAD_USER_INPUT"], "{mutation}");
        assert_eq!(errors[0]["extensions"]["field"], field, "{mutation}");
        let message = errors[0]["message"].as_str().unwrap();
        assert!(message.contains(fragment), "{mutation}: {message}");
    }
    // A request type outside the enum is refused by GraphQL validation.
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        &create("APZU4812090", "PALLET", "CMDU"),
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(errors.len(), 1, "{errors:#?}");

    // The connection: newest first, the store's order and total.
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ trackingRequests {{ totalCount nodes {{ {TRACKING_FIELDS} }} }} \
               first: trackingRequests(first: 1) {{ totalCount edges {{ node {{ id }} }} pageInfo {{ hasNextPage }} }} }}"
        ),
    )
    .await;
    let (page, total) = f.store.list_tracking_requests(f.a.id, 0, 30).await.unwrap();
    assert_eq!(total, 2);
    assert_eq!(data["trackingRequests"]["totalCount"], json!(2));
    let want: Vec<String> = page.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(ids(&data["trackingRequests"]["nodes"]), want);
    assert_eq!(data["first"]["pageInfo"]["hasNextPage"], json!(true));
    assert_eq!(data["first"]["edges"][0]["node"]["id"], json!(want[0]));

    // By id; another account sees nothing.
    let q = format!(
        "{{ trackingRequest(id: \"{id}\") {{ id status }} trackingRequests {{ totalCount }} }}"
    );
    let data = ok(&f.schema, &f.a, &q).await;
    assert_eq!(data["trackingRequest"]["id"], json!(id));
    let data = ok(&f.schema, &f.b, &q).await;
    assert_eq!(
        data,
        json!({ "trackingRequest": null, "trackingRequests": { "totalCount": 0 } })
    );
    let data = ok(&f.schema, &f.a, "{ trackingRequest(id: \"nope\") { id } }").await;
    assert_eq!(data["trackingRequest"], Value::Null);
    let (_, errors) = run(&f.schema, None, &create("APZU4812090", "CONTAINER", "CMDU")).await;
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}

const SUBMISSION_FIELDS: &str = "id subject body from to cc sentAt messageId inReplyTo references \
    contentType documentsCount createdAt updatedAt";
const DOCUMENT_FIELDS: &str = "id fileName mediaType byteSize sha256 createdAt";
const REPRESENTATION_FIELDS: &str = "id kind mediaType byteSize sha256 createdAt";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_submissions_have_the_store_values_and_stay_in_their_account() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.a,
        &format!(
            "{{ emailSubmissions {{ totalCount nodes {{ {SUBMISSION_FIELDS} \
               account {{ id companyName }} \
               documents {{ {DOCUMENT_FIELDS} lastDocumentRepresentation {{ {REPRESENTATION_FIELDS} }} }} }} }} }}"
        ),
    )
    .await;
    let (stored, total) = f
        .store
        .list_email_submissions(f.a.id, 0, 100)
        .await
        .unwrap();
    assert_eq!(total, demo_emails().len() as i64);
    assert_eq!(data["emailSubmissions"]["totalCount"], json!(total));
    let nodes = data["emailSubmissions"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), stored.len());
    let mut documents_seen = 0;
    for (node, e) in nodes.iter().zip(&stored) {
        assert_same_values(
            "EmailSubmission",
            node,
            &serde_json::to_value(e).unwrap(),
            &["account", "documents"],
        );
        assert_eq!(
            node["account"],
            json!({ "id": f.a.id.to_string(), "companyName": f.a.company_name })
        );
        assert_eq!(node["to"][0], "demo@inbound.teu.local");
        let documents = node["documents"].as_array().unwrap();
        assert_eq!(documents.len() as i64, e.documents_count);
        assert!(e.documents_count >= 1, "every demo email has a PDF");
        let want_ids: Vec<String> = e.document_ids.iter().map(Uuid::to_string).collect();
        assert_eq!(ids(&node["documents"]), want_ids, "message order");
        let models = f
            .store
            .documents_by_ids(f.a.id, &e.document_ids)
            .await
            .unwrap();
        for d in documents {
            documents_seen += 1;
            let model = models
                .iter()
                .find(|m| m.id.to_string() == d["id"].as_str().unwrap())
                .unwrap();
            assert_same_values(
                "Document",
                d,
                &serde_json::to_value(model).unwrap(),
                &["last_document_representation"],
            );
            assert_eq!(d["mediaType"], "application/pdf");
            let reps = f
                .store
                .document_representations_by_ids(f.a.id, &[model.last_document_representation_id])
                .await
                .unwrap();
            assert_same_values(
                "DocumentRepresentation",
                &d["lastDocumentRepresentation"],
                &serde_json::to_value(&reps[0]).unwrap(),
                &[],
            );
            assert_eq!(d["lastDocumentRepresentation"]["kind"], "original");
            assert_eq!(d["lastDocumentRepresentation"]["sha256"], d["sha256"]);
        }
    }
    assert!(documents_seen >= 4, "{documents_seen}");
    let calls = &f.schema.data::<LoaderStats>().unwrap().0;
    for (name, n) in [
        ("documents_by_ids", &calls.documents_by_ids),
        (
            "document_representations_by_ids",
            &calls.document_representations_by_ids,
        ),
    ] {
        let n = n.load(Ordering::Relaxed);
        assert!((1..=2).contains(&n), "{name} was called {n} times");
    }

    // By id, and never across accounts.
    let id = stored[0].id.to_string();
    let q = format!(
        "{{ emailSubmission(id: \"{id}\") {{ id messageId documents {{ id }} }} \
           emailSubmissions(first: 1) {{ totalCount edges {{ node {{ id }} }} }} }}"
    );
    let data = ok(&f.schema, &f.a, &q).await;
    assert_eq!(data["emailSubmission"]["id"], json!(id));
    assert_eq!(
        data["emailSubmission"]["messageId"],
        json!(stored[0].message_id)
    );
    assert_eq!(
        data["emailSubmissions"]["edges"][0]["node"]["id"],
        json!(id)
    );
    let data = ok(&f.schema, &f.b, &q).await;
    assert_eq!(
        data,
        json!({ "emailSubmission": null, "emailSubmissions": { "totalCount": 0, "edges": [] } })
    );
    let data = ok(
        &f.schema,
        &f.a,
        "{ emailSubmission(id: \"not-a-uuid\") { id } }",
    )
    .await;
    assert_eq!(data["emailSubmission"], Value::Null);
    let (data, errors) = run(
        &f.schema,
        Some(&f.a),
        "{ emailSubmissions(first: 101) { totalCount } }",
    )
    .await;
    assert_eq!(data, Value::Null);
    assert_eq!(codes(&errors), ["BAD_USER_INPUT"]);
}

const SCHEMA_FIELDS: &str = "id documentType label schemaVersion fullVersion current draft \
    activeAt schemaFormat description schemaPayload createdAt updatedAt";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_schemas_by_id_and_by_type() {
    let f = fixture().await;
    let data = ok(
        &f.schema,
        &f.b,
        &format!(
            "{{ one: documentSchema(id: \"bill_of_lading@1.0\") {{ {SCHEMA_FIELDS} }} \
               all: documentSchemas {{ id }} \
               notices: documentSchemas(documentType: \"arrival_notice\") {{ id documentType }} \
               none: documentSchemas(documentType: \"menu\") {{ id }} \
               missing: documentSchema(id: \"bill_of_lading@9.9\") {{ id }} }}"
        ),
    )
    .await;
    let model = f
        .store
        .document_schema("bill_of_lading@1.0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(data["one"]["id"], "bill_of_lading@1.0");
    assert_same_values(
        "DocumentSchema",
        &data["one"],
        &serde_json::to_value(&model).unwrap(),
        &["id", "schema_payload"],
    );
    // The payload is the JSON Schema object itself, not a string.
    assert_eq!(data["one"]["schemaPayload"], model.schema_payload);
    assert_eq!(data["one"]["schemaPayload"]["type"], "object");
    let all: Vec<String> = f
        .store
        .document_schemas(None)
        .await
        .unwrap()
        .iter()
        .map(|s| s.full_version.clone())
        .collect();
    assert_eq!(all.len(), 5);
    assert_eq!(ids(&data["all"]), all);
    assert_eq!(
        data["notices"],
        json!([{ "id": "arrival_notice@1.0", "documentType": "arrival_notice" }])
    );
    assert_eq!(data["none"], json!([]));
    assert_eq!(data["missing"], Value::Null);
    let (_, errors) = run(&f.schema, None, "{ documentSchemas { id } }").await;
    assert_eq!(codes(&errors), ["UNAUTHENTICATED"]);
}
