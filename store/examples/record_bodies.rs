//! Writes the body of every derived container and shipment of a database, as the store writes
//! `containers.body` and `shipments.body` (JSON of `teu_domain::model::Container` and
//! `Shipment`), one file per record: the training samples of the record dictionaries
//! (`scripts/dictionary.sh containers N`, `scripts/dictionary.sh shipments N`).
//!
//!     cargo run -p teu-store --example record_bodies -- DATABASE_URL OUT_DIR
//!
//! Writes `container-K.json` and `shipment-K.json` into OUT_DIR (which must exist) and prints
//! how many of each it wrote.

use std::path::Path;
use std::process::ExitCode;

use teu_store::Store;

/// Records read per page.
const PAGE: i64 = 500;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, out] = args.as_slice() else {
        eprintln!("usage: record_bodies DATABASE_URL OUT_DIR");
        return ExitCode::from(2);
    };
    match dump(url, Path::new(out)).await {
        Ok((containers, shipments)) => {
            println!("{containers} containers, {shipments} shipments");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes every record's body; returns (containers, shipments) written.
async fn dump(url: &str, out: &Path) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let store = Store::connect(url).await?;
    let (mut containers, mut shipments) = (0, 0);
    for account in store.accounts().await? {
        let mut offset = 0;
        loop {
            let (page, _) = store.list_containers(account.id, offset, PAGE).await?;
            for c in &page {
                let path = out.join(format!("container-{containers}.json"));
                std::fs::write(&path, serde_json::to_string(c)?)?;
                containers += 1;
            }
            if page.len() < PAGE as usize {
                break;
            }
            offset += PAGE;
        }
        let mut offset = 0;
        loop {
            let (page, _) = store.list_shipments(account.id, offset, PAGE).await?;
            for s in &page {
                let path = out.join(format!("shipment-{shipments}.json"));
                std::fs::write(&path, serde_json::to_string(s)?)?;
                shipments += 1;
            }
            if page.len() < PAGE as usize {
                break;
            }
            offset += PAGE;
        }
    }
    Ok((containers, shipments))
}
