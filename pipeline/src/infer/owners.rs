//! BIC container owner prefixes (`data/reference/bic-owner-prefixes.csv`) and which of them are
//! a shipping line's own boxes.
//!
//! The file (freight-trust/documentation, MPL-2.0) has `prefix,owner,owner_abbreviation`, with
//! some punctuation escaped by a backslash (`Ltd\.`), which is removed. A prefix belongs to a
//! shipping line when its `owner_abbreviation` is one of [`OWNER_SCACS`]; the others are lessors
//! (Triton, Textainer, Florens, …) or owners teu does not know as a line, whose boxes any line
//! may operate.

use std::collections::HashMap;

/// File name of the BIC owner prefix list inside a reference data directory.
pub const BIC_OWNER_PREFIXES_FILE: &str = "bic-owner-prefixes.csv";

const BUNDLED_BIC_OWNERS: &str = include_str!("../../../data/reference/bic-owner-prefixes.csv");

/// `owner_abbreviation` of `bic-owner-prefixes.csv` → SCAC of the line in
/// `ocean-carriers.csv` that operates those boxes. Lines of the same group that share boxes
/// are in [`SISTER_LINES`].
pub const OWNER_SCACS: &[(&str, &str)] = &[
    ("Maersk", "MAEU"),
    ("SeaLand", "SEAU"),
    ("CMA CGM", "CMDU"),
    ("Hapag", "HLCU"),
    ("ONE", "ONEY"),
    ("MSC", "MSCU"),
    ("Evergreen", "EGLV"),
    ("ZIM", "ZIMU"),
    ("GSL", "GOSU"),
    ("COSCON", "COSU"),
    ("WHL", "WHLC"),
    ("Matson", "MATS"),
    ("YML", "YMLU"),
    ("PIL", "PCIU"),
    ("OOCL", "OOLU"),
    ("HMM", "HDMU"),
    ("Crowley", "CLAM"),
    ("Turkon", "TRKU"),
    ("Swire", "CHVW"),
    ("Westwood", "SSBF"),
    ("Seaboard Marine", "SMLU"),
    ("SM Line", "SMLM"),
    ("KMTC", "KMTU"),
    ("ICL", "IILU"),
    ("Arkas", "ARKU"),
    ("ACL", "ACLU"),
    ("TSL", "TXZJ"),
    ("CU Lines", "CULU"),
    ("Sinokor", "SKLU"),
    ("Heung-A", "HASL"),
    ("SITC", "SITC"),
    ("FESCO", "FESO"),
    ("Emirates", "ESPU"),
    ("CK Line", "CKCO"),
    ("Dong Young", "PCSL"),
    ("PanCon", "15AC"),
    ("Interasia", "12AT"),
    ("Eimskip", "EIMU"),
    ("DAL", "DALU"),
    ("Containerships", "CSFU"),
    ("Borchard", "BORU"),
    ("Linea Messina", "LMCU"),
    ("Dole", "DOLQ"),
    ("Dongjin", "11PG"),
    ("ESL", "ESLU"),
    // Lines added from the SeaRates line list and carrier-code lists (docs/sources-carriers.md).
    ("CNCo", "CHVW"),
    ("STX", "POBU"),
    ("Balaji", "BLJU"),
    ("BCL", "BCLU"),
    ("Bahri", "NSAU"),
    ("King Ocean", "KOSL"),
    ("MELL", "MEXU"),
    ("MACS", "MCSM"),
    ("Marfret", "MFTU"),
    ("Namsung", "NSRU"),
    ("PDL", "PDLU"),
    ("NDS", "NIDU"),
    ("Nirint Shipping", "32GH"),
    ("RCL", "REGU"),
    ("Samudera", "SIKU"),
    ("Samskip", "SKII"),
    ("Sarjak", "SJKU"),
    ("SCI", "SCIU"),
    ("Sinolines", "12IH"),
    ("Tarros", "GETU"),
    ("TOTE Maritime", "TOTE"),
    ("TA", "TLXU"),
    ("Vasco", "VMLU"),
    ("WEC", "WECU"),
    ("WLS", "WTLU"),
    // Twelfth session (docs/sources-carriers.md): Unifeeder's own `TLCU` boxes.
    ("Unifeeder", "UFEE"),
];

/// Lines of one group that operate each other's boxes: a box of the first line may travel on
/// a bill of lading of the others (Maersk with Sealand and Safmarine; CMA CGM with APL and
/// ANL; COSCO with OOCL; Heung-A with Sinokor).
pub const SISTER_LINES: &[&[&str]] = &[
    &["MAEU", "SEAU", "SAFM", "SEJJ"],
    &["CMDU", "APLU", "ANNU"],
    &["COSU", "OOLU"],
    &["OOLU", "COSU"],
    &["HASL", "SKLU"],
    &["SKLU", "HASL"],
];

/// Lines whose own boxes travel so often on a sister line's bills of lading that an owner prefix
/// alone must not auto-select the owner: (owner SCAC, confidence given to the owner). The sister
/// lines of [`SISTER_LINES`] share the rest.
///
/// OOCL (`OOLU`, `OOCU` boxes) has been part of COSCO Shipping since 2018 and the two pool
/// equipment: in the calibration set (`data/calibration/labelled-numbers.csv`) 7 of 25 OOCL boxes
/// were on COSCO bills of lading (72% OOCL), while 18 of 19 COSCO boxes were on COSCO bills.
///
/// Heung-A boxes (`HALU`) travel on Sinokor bills of lading too: the calibration set's one
/// Heung-A box was on a Sinokor bill of lading (`HALU2090637` on `SNKO010220209296`).
pub const SHARED_POOL_OWNERS: &[(&str, f64)] = &[("OOLU", 0.75), ("HASL", 0.75)];

/// Words in an owner name that mark a container lessor.
const LESSOR_WORDS: &[&str] = &[
    "triton",
    "textainer",
    "florens",
    "container applications",
    "cai ",
    "seaco",
    "beacon",
    "seacube",
    "touax",
    "tal international",
    "cronos",
    "dong fang",
    "ues ",
    "blue sky",
    "seacastle",
    "caru",
    "interpool",
    "trencor",
    "leasing",
    "lease",
];

/// Who owns boxes with one BIC owner prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BicOwner {
    /// The 4-letter owner prefix (owner code and category), e.g. `MSCU`.
    pub prefix: String,
    /// The registered owner, e.g. `Mediterranean Shipping Company`.
    pub owner: String,
    /// SCAC of the shipping line whose own boxes these are; `None` for lessors and other owners.
    pub scac: Option<String>,
    /// Whether the owner is a container lessor (Triton, Textainer, Florens, …).
    pub lessor: bool,
}

/// Reads `bic-owner-prefixes.csv` text. Rows whose prefix is not 4 letters are skipped;
/// a malformed CSV row is skipped too (the bundled file has none, checked by the tests).
pub fn parse_bic_owners(text: &str) -> Vec<BicOwner> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let scacs: HashMap<&str, &str> = OWNER_SCACS.iter().copied().collect();
    let mut out = Vec::new();
    for record in reader.records().flatten() {
        let field = |i: usize| record.get(i).unwrap_or("").replace('\\', "");
        let prefix = field(0).trim().to_ascii_uppercase();
        if prefix.len() != 4 || !prefix.bytes().all(|b| b.is_ascii_uppercase()) {
            continue;
        }
        let owner = field(1).trim().to_string();
        let abbreviation = field(2).trim().to_string();
        let scac = scacs.get(abbreviation.as_str()).map(|s| s.to_string());
        let lower = format!("{} ", owner.to_lowercase());
        let lessor = scac.is_none() && LESSOR_WORDS.iter().any(|w| lower.contains(w));
        out.push(BicOwner {
            prefix,
            owner,
            scac,
            lessor,
        });
    }
    out
}

/// The bundled `data/reference/bic-owner-prefixes.csv`, parsed.
pub fn bundled_bic_owners() -> Vec<BicOwner> {
    parse_bic_owners(BUNDLED_BIC_OWNERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_owners() {
        let owners = bundled_bic_owners();
        assert_eq!(owners.len(), 607);
        let get = |p: &str| owners.iter().find(|o| o.prefix == p).unwrap();
        assert_eq!(get("MSCU").scac.as_deref(), Some("MSCU"));
        assert_eq!(get("MEDU").scac.as_deref(), Some("MSCU"));
        assert_eq!(get("APZU").scac.as_deref(), Some("CMDU"));
        assert_eq!(get("HLXU").scac.as_deref(), Some("HLCU"));
        assert_eq!(get("HDMU").owner, "Hyundai Merchant Marine Co., Ltd.");
        assert_eq!(get("TLCU").scac.as_deref(), Some("UFEE"));
        assert!(!get("TLCU").lessor);
        for lessor in ["TCLU", "TGHU", "FCIU", "CAIU", "SEGU"] {
            assert_eq!(get(lessor).scac, None, "{lessor}");
            assert!(get(lessor).lessor, "{lessor}");
        }
        // Every abbreviation teu maps names a line that the carrier list knows.
        let (_, carriers) = crate::reference::bundled();
        for (abbreviation, scac) in OWNER_SCACS {
            assert!(carriers.get(scac).is_some(), "{abbreviation} → {scac}");
        }
    }
}
