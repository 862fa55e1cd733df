//! End-to-end tests of email submissions and document schemas: the real `teu` binary, real
//! messages of mail-parser's test suite (`feeds/tests/email/`, licence there) plus hand-made
//! hostile ones, SQLite always and PostgreSQL when `TEU_TEST_POSTGRES_URL` is set.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};

use common::{data, summaries, Server, TestDb};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

on_both_backends!(
    email_submissions_end_to_end,
    document_schemas_served,
    serve_demo_loads_emails_with_pdf_documents
);

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("feeds/tests/email")
        .join(name)
}

const PDF: &str = "JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0YK";

/// A message to `to` with one base64 PDF attachment named `name`.
fn pdf_message(to: &str, message_id: &str, name: &str) -> String {
    format!(
        "From: Ops <ops@forwarder.example>\r\nTo: {to}\r\nCc: Desk <desk@forwarder.example>\r\n\
         Subject: BL for MEDU1234567\r\nMessage-ID: <{message_id}>\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
         --B\r\nContent-Type: text/plain\r\n\r\nPlease find the bill of lading attached.\r\n\
         --B\r\nContent-Type: application/pdf; name=\"{name}\"\r\nContent-Disposition: attachment; filename=\"{name}\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{PDF}\r\n--B--\r\n"
    )
}

fn account_with_address(db: &TestDb, name: &str) -> (String, String) {
    let out = db.teu(&["accounts", "create", "--name", name]);
    assert!(out.status.success());
    let key = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(key.starts_with("teu_") && !key.contains('\n'));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let address = stderr
        .lines()
        .find_map(|l| l.strip_prefix("inbound address: "))
        .unwrap_or_else(|| panic!("no inbound address in {stderr:?}"))
        .to_string();
    (key, address)
}

fn err0(v: &Value) -> &Value {
    &v["errors"][0]
}

async fn email_submissions_end_to_end(db: &TestDb) {
    let (acme_key, acme_address) = account_with_address(db, "acme");
    let other_key = db.create_account("other");
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &[u8]| std::fs::write(dir.path().join(name), text).unwrap();
    std::fs::copy(corpus("thirdparty-019.eml"), dir.path().join("a-019.eml")).unwrap();
    std::fs::copy(corpus("thirdparty-016.eml"), dir.path().join("b-016.eml")).unwrap();
    w(
        "c-bl.eml",
        pdf_message(&acme_address, "bl-1@forwarder.example", "BL.pdf").as_bytes(),
    );
    // The same PDF again, under another name: one document.
    w(
        "d-again.eml",
        pdf_message(&acme_address, "bl-2@forwarder.example", "copy.pdf").as_bytes(),
    );
    w(
        "e-unknown.eml",
        pdf_message("nobody@inbound.teu.local", "x@f.example", "x.pdf").as_bytes(),
    );
    w("f-garbage.eml", b"\x00\x01 this is not mail\n");
    w(
        "g-charset.eml",
        b"From: a@b.example\r\nTo: c@d.example\r\nSubject: s\r\nMessage-ID: <cs@b>\r\n\
          Content-Type: text/plain; charset=x-klingon\r\n\r\nqapla'\r\n",
    );
    let out = db.teu(&[
        "ingest",
        "--account",
        "other",
        &dir.path().display().to_string(),
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let s = summaries(&stdout);
    let by_name = |n: &str| {
        s.iter()
            .find(|x| x.0 == n)
            .unwrap_or_else(|| panic!("{n}: {stdout}"))
            .clone()
    };
    assert_eq!(by_name("a-019.eml"), ("a-019.eml".into(), 1, 1, 0));
    assert_eq!(by_name("c-bl.eml"), ("c-bl.eml".into(), 1, 1, 0));
    assert_eq!(by_name("e-unknown.eml").3, 1);
    assert_eq!(by_name("f-garbage.eml").3, 1);
    assert_eq!(by_name("g-charset.eml").3, 1);
    assert!(
        stderr.contains("no account has the inbound address nobody@inbound.teu.local"),
        "{stderr}"
    );
    assert!(stderr.contains("malformed message"), "{stderr}");
    assert!(stderr.contains("x-klingon"), "{stderr}");

    let server = Server::start(db, &[]);
    // acme: the two messages sent to its inbound address, one shared document.
    let (status, v) = server.get("/v2/email_submissions", Some(&acme_key)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["meta"]["total"], 2);
    assert_eq!(v["meta"]["size"], 30);
    assert!(v["links"]["self"]
        .as_str()
        .unwrap()
        .contains("/v2/email_submissions?page[number]=1"));
    let data = v["data"].as_array().unwrap();
    for e in data {
        assert_eq!(e["type"], "email_submission");
        let a = &e["attributes"];
        assert_eq!(a["subject"], "BL for MEDU1234567");
        assert_eq!(a["from"], serde_json::json!(["ops@forwarder.example"]));
        assert_eq!(a["to"], serde_json::json!([acme_address]));
        assert_eq!(a["cc"], serde_json::json!(["desk@forwarder.example"]));
        assert_eq!(a["sent_at"], "2026-11-02T10:00:00Z");
        assert_eq!(a["content_type"], "multipart/mixed");
        assert_eq!(a["documents_count"], 1);
        assert!(a["body"]
            .as_str()
            .unwrap()
            .contains("bill of lading attached"));
        assert_eq!(
            e["relationships"]["documents"]["data"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert!(e["relationships"]["user"]["data"].is_null());
    }
    assert_eq!(
        data[0]["relationships"]["documents"]["data"][0],
        data[1]["relationships"]["documents"]["data"][0]
    );
    // Default include: the document and its representation, once each.
    let inc = v["included"].as_array().unwrap();
    let types: Vec<&str> = inc.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(types, vec!["document", "document_representation"], "{v}");
    assert_eq!(inc[0]["attributes"]["media_type"], "application/pdf");
    assert_eq!(inc[0]["attributes"]["byte_size"], 45);
    assert_eq!(inc[0]["attributes"]["file_name"], "BL.pdf");

    // include=account: the account with company_name, nothing else.
    let (_, v) = server
        .get(
            "/v2/email_submissions?include=account&page[size]=1",
            Some(&acme_key),
        )
        .await;
    assert_eq!(v["included"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["included"][0]["type"], "account");
    assert_eq!(v["included"][0]["attributes"]["company_name"], "acme");
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert!(v["links"]["next"]
        .as_str()
        .unwrap()
        .contains("page[number]=2&page[size]=1&include=account"));

    // Pagination parameters: minimum 1.
    for (q, param) in [
        ("page[size]=0", "page[size]"),
        ("page[number]=0", "page[number]"),
        ("page[number]=-1", "page[number]"),
        ("page[size]=abc", "page[size]"),
        ("include=shipment", "include"),
    ] {
        let (status, v) = server
            .get(&format!("/v2/email_submissions?{q}"), Some(&acme_key))
            .await;
        assert_eq!(status, 400, "{q}: {v}");
        assert_eq!(err0(&v)["status"], "400");
        assert_eq!(err0(&v)["source"]["parameter"], param, "{q}");
    }

    // One submission; another account's id is a 404.
    let id = data[0]["id"].as_str().unwrap().to_string();
    let (status, v) = server
        .get(&format!("/v2/email_submissions/{id}"), Some(&acme_key))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"]["id"], id.as_str());
    assert!(v["links"]["self"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/v2/email_submissions/{id}")));
    for (path, key) in [
        (format!("/v2/email_submissions/{id}"), &other_key),
        (
            "/v2/email_submissions/00000000-0000-0000-0000-000000000000".into(),
            &acme_key,
        ),
        ("/v2/email_submissions/not-a-uuid".into(), &acme_key),
    ] {
        let (status, v) = server.get(&path, Some(key)).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(err0(&v)["status"], "404");
        assert_eq!(err0(&v)["title"], "Not Found");
        // Terminal49's documented wording: Couldn't find EmailSubmission with 'id'=<id>.
        let id = path.rsplit('/').next().unwrap();
        assert_eq!(
            err0(&v)["detail"],
            format!("Couldn't find EmailSubmission with 'id'={id}"),
            "{path}"
        );
    }

    // other: the two corpus messages (their recipient is no inbound address).
    let (_, v) = server
        .get("/v2/email_submissions?include=", Some(&other_key))
        .await;
    assert_eq!(v["meta"]["total"], 2, "{v}");
    assert!(v["included"].as_array().unwrap().is_empty());
    let subjects: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attributes"]["subject"].as_str().unwrap())
        .collect();
    assert!(
        subjects.contains(&"30 plaintext + (HTML + embedded image) + attachment"),
        "{subjects:?}"
    );
    let html_only = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attributes"]["subject"] == "25 HTML + embedded image")
        .unwrap();
    assert!(html_only["attributes"]["body"]
        .as_str()
        .unwrap()
        .contains("Search for höhö"));
    let t019 = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["attributes"]["message_id"] == "1e58c8f2-3a15-96e7-76b7-046cf6e1ce1e@example.com"
        })
        .unwrap();
    assert_eq!(t019["attributes"]["documents_count"], 2);
    drop(server);

    // Re-ingesting changes nothing.
    let before = db.teu(&[
        "ingest",
        "--account",
        "other",
        &dir.path().display().to_string(),
    ]);
    assert!(before.status.success());
    let server = Server::start(db, &[]);
    let (_, v) = server.get("/v2/email_submissions", Some(&acme_key)).await;
    assert_eq!(v["meta"]["total"], 2);
    assert_eq!(v["data"][0]["id"], id.as_str());
    assert_eq!(v["included"].as_array().unwrap().len(), 2);
}

async fn document_schemas_served(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start(db, &[]);
    for t in [
        "bill_of_lading",
        "arrival_notice",
        "commercial_invoice",
        "packing_list",
        "delivery_order",
    ] {
        let (status, v) = server
            .get(&format!("/v2/document_schemas/{t}@1.0"), Some(&key))
            .await;
        assert_eq!(status, 200, "{v}");
        let d = &v["data"];
        assert_eq!(d["id"], format!("{t}@1.0"));
        assert_eq!(d["type"], "document_schema");
        let a = &d["attributes"];
        assert_eq!(a["document_type"], t);
        assert_eq!(a["schema_version"], "1.0");
        assert_eq!(a["full_version"], format!("{t}@1.0"));
        assert_eq!(a["current"], true);
        assert_eq!(a["draft"], false);
        assert_eq!(a["schema_format"], "json_schema");
        assert_eq!(a["active_at"], "2026-11-21T00:00:00Z");
        assert_eq!(a["schema_payload"]["type"], "object");
        assert!(v["links"]["self"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/v2/document_schemas/{t}@1.0")));
    }
    let (status, v) = server
        .get("/v2/document_schemas/bill_of_lading@9.9", Some(&key))
        .await;
    assert_eq!(status, 404);
    assert_eq!(err0(&v)["title"], "Not Found");
    let detail = err0(&v)["detail"].as_str().unwrap();
    assert!(
        detail.contains("DocumentSchema") && detail.contains("bill_of_lading@9.9"),
        "{detail}"
    );
    let (status, _) = server
        .get("/v2/document_schemas/bill_of_lading@1.0", None)
        .await;
    assert_eq!(status, 401);
}

const DEMO_GRAPHQL: &str = "{ emailSubmissions { totalCount nodes { id subject from to cc sentAt \
    messageId inReplyTo references contentType documentsCount createdAt updatedAt \
    documents { id fileName mediaType byteSize sha256 createdAt \
      lastDocumentRepresentation { id kind mediaType byteSize sha256 createdAt } } } } }";

async fn serve_demo_loads_emails_with_pdf_documents(db: &TestDb) {
    let server = Server::start(db, &["--demo"]);
    let key = server.demo_key();

    // The bundled messages and their PDFs, as on disk.
    let emails: Vec<PathBuf> = std::fs::read_dir(data("email"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    assert!(emails.len() >= 3, "{emails:?}");
    let pdf = |name: &str| -> Vec<u8> {
        std::fs::read(data("email/attachments").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };

    let (status, v) = server
        .get("/v2/email_submissions?include=documents,documents.last_document_representation,account", Some(&key))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["meta"]["total"], emails.len(), "{}", v["meta"]);
    let included = v["included"].as_array().unwrap();
    let of_type = |t: &str| -> Vec<&Value> { included.iter().filter(|r| r["type"] == t).collect() };
    assert_eq!(of_type("account")[0]["attributes"]["company_name"], "demo");
    let documents = of_type("document");
    let representations = of_type("document_representation");
    let mut attachments = 0;
    for e in v["data"].as_array().unwrap() {
        let a = &e["attributes"];
        assert!(
            a["to"]
                .as_array()
                .unwrap()
                .contains(&json!("demo@inbound.teu.local")),
            "{a}"
        );
        assert_eq!(a["content_type"], "multipart/mixed");
        let linked = e["relationships"]["documents"]["data"].as_array().unwrap();
        assert_eq!(a["documents_count"], linked.len());
        assert!(!linked.is_empty(), "{}: no document", a["subject"]);
        attachments += linked.len();
        for l in linked {
            let d = documents
                .iter()
                .find(|d| d["id"] == l["id"])
                .unwrap_or_else(|| panic!("document {l} not included"));
            let da = &d["attributes"];
            assert_eq!(da["media_type"], "application/pdf");
            let bytes = pdf(da["file_name"].as_str().unwrap());
            assert!(bytes.starts_with(b"%PDF-1."), "{}", da["file_name"]);
            assert!(bytes.windows(5).any(|w| w == b"%%EOF"));
            assert_eq!(da["byte_size"], bytes.len(), "{}", da["file_name"]);
            assert_eq!(
                da["sha256"],
                format!("{:x}", Sha256::digest(&bytes)),
                "{}",
                da["file_name"]
            );
            let rep_id = &d["relationships"]["last_document_representation"]["data"]["id"];
            let r = representations
                .iter()
                .find(|r| &r["id"] == rep_id)
                .expect("representation included");
            assert_eq!(r["attributes"]["kind"], "original");
            assert_eq!(r["attributes"]["sha256"], da["sha256"]);
            assert_eq!(r["attributes"]["byte_size"], da["byte_size"]);
        }
    }
    assert!(attachments >= 4, "{attachments}");
    assert_eq!(documents.len(), attachments, "four distinct PDFs");

    // The emails are about the demo shipments: their bills of lading are stored.
    let (_, shipments) = server.get("/v2/shipments?page[size]=100", Some(&key)).await;
    let bls: Vec<&str> = shipments["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["attributes"]["bill_of_lading_number"].as_str().unwrap())
        .collect();
    for e in v["data"].as_array().unwrap() {
        let subject = e["attributes"]["subject"].as_str().unwrap();
        assert!(
            bls.iter().any(|bl| subject.contains(bl)),
            "{subject:?} names no demo bill of lading ({} stored)",
            bls.len()
        );
    }
    let forwarded = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["attributes"]["subject"]
                .as_str()
                .unwrap()
                .starts_with("Fwd:")
        })
        .expect("the forwarded invoice");
    assert_eq!(
        forwarded["attributes"]["references"],
        json!(["inv-2026-0117@harbour-hill.example"])
    );
    assert_eq!(forwarded["attributes"]["documents_count"], 2);

    // GraphQL serves the same values.
    let (status, g) = server.graphql(Some(&key), DEMO_GRAPHQL, json!({})).await;
    assert_eq!(status, 200);
    assert!(g.get("errors").is_none(), "{g}");
    let conn = &g["data"]["emailSubmissions"];
    assert_eq!(conn["totalCount"], v["meta"]["total"]);
    for (node, e) in conn["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .zip(v["data"].as_array().unwrap())
    {
        let a = &e["attributes"];
        assert_eq!(node["id"], e["id"]);
        for (gk, rk) in [
            ("subject", "subject"),
            ("from", "from"),
            ("to", "to"),
            ("cc", "cc"),
            ("sentAt", "sent_at"),
            ("messageId", "message_id"),
            ("inReplyTo", "in_reply_to"),
            ("references", "references"),
            ("contentType", "content_type"),
            ("documentsCount", "documents_count"),
            ("createdAt", "created_at"),
            ("updatedAt", "updated_at"),
        ] {
            assert_eq!(node[gk], a[rk], "{gk}");
        }
        for gd in node["documents"].as_array().unwrap() {
            let d = documents.iter().find(|d| d["id"] == gd["id"]).unwrap();
            let da = &d["attributes"];
            assert_eq!(gd["fileName"], da["file_name"]);
            assert_eq!(gd["mediaType"], da["media_type"]);
            assert_eq!(gd["byteSize"], da["byte_size"]);
            assert_eq!(gd["sha256"], da["sha256"]);
            assert_eq!(gd["createdAt"], da["created_at"]);
            assert_eq!(gd["lastDocumentRepresentation"]["sha256"], da["sha256"]);
            assert_eq!(gd["lastDocumentRepresentation"]["kind"], "original");
        }
    }
    // Never to another account, over either API.
    let other = db.create_account("other");
    let id = v["data"][0]["id"].as_str().unwrap().to_string();
    let (status, _) = server
        .get(&format!("/v2/email_submissions/{id}"), Some(&other))
        .await;
    assert_eq!(status, 404);
    let (_, g) = server
        .graphql(
            Some(&other),
            &format!(
                "{{ emailSubmission(id: \"{id}\") {{ id }} emailSubmissions {{ totalCount }} }}"
            ),
            json!({}),
        )
        .await;
    assert_eq!(
        g["data"],
        json!({"emailSubmission": null, "emailSubmissions": {"totalCount": 0}})
    );
    drop(server);

    // A second `serve --demo` loads nothing new.
    let server = Server::start(db, &["--demo"]);
    let key = server.demo_key();
    let (_, again) = server
        .get("/v2/email_submissions?include=documents,documents.last_document_representation,account", Some(&key))
        .await;
    assert_eq!(again["meta"], v["meta"]);
    // Links carry the server's (new, random) port; everything else is unchanged.
    let content = |doc: &Value| -> Vec<Value> {
        doc["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| json!([e["id"], e["attributes"], e["relationships"]]))
            .collect()
    };
    assert_eq!(content(&again), content(&v));
    assert_eq!(again["included"], v["included"]);
}
