//! Reading the carrier files (`ocean-carriers.csv`, `dcsa-carriers.csv`) into [`Carrier`]s.

use super::number_shapes::NumberShape;
use super::{invalid, ReferenceError};
use crate::codes::Scac;
use crate::model::Carrier;

fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// Column positions of `names` in the header, or an error naming the missing column.
fn columns<const N: usize>(
    file: &str,
    reader: &mut csv::Reader<&[u8]>,
    names: [&str; N],
) -> Result<[usize; N], ReferenceError> {
    let headers = reader.headers().map_err(|source| ReferenceError::Csv {
        file: file.to_owned(),
        row: 1,
        source,
    })?;
    let mut out = [0; N];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
            .ok_or_else(|| invalid(file, "header", name, "column missing"))?;
    }
    Ok(out)
}

pub(super) fn build_carriers(
    ocean_file: &str,
    ocean_text: &str,
    dcsa_file: &str,
    dcsa_text: &str,
) -> Result<Vec<Carrier>, ReferenceError> {
    let mut carriers: Vec<Carrier> = Vec::new();

    let mut reader = csv_reader(ocean_text);
    let [c_scac, c_name, c_legal, c_alt, c_prefix] = columns(
        ocean_file,
        &mut reader,
        [
            "scac",
            "name",
            "legal_name",
            "alternative_scacs",
            "bill_of_lading_prefix",
        ],
    )?;
    // Optional: files written before the column existed still load.
    let c_shapes = reader.headers().ok().and_then(|h| {
        h.iter()
            .position(|h| h.eq_ignore_ascii_case("number_shapes"))
    });
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|source| ReferenceError::Csv {
            file: ocean_file.to_owned(),
            row,
            source,
        })?;
        let at = format!("row {row}");
        let field = |i: usize| record.get(i).unwrap_or("");
        let mut number_shapes = Vec::new();
        for shape in c_shapes.map(field).unwrap_or("").split_whitespace() {
            if NumberShape::parse(shape).is_none() {
                return Err(invalid(
                    ocean_file,
                    &at,
                    "number_shapes",
                    format!("{shape:?} is not a number shape (e.g. 9d, EBKG8d, 3a7d)"),
                ));
            }
            number_shapes.push(shape.to_string());
        }
        let scac = Scac::parse(field(c_scac))
            .map_err(|e| invalid(ocean_file, &at, "scac", e.to_string()))?;
        let short_name = field(c_name).to_owned();
        if short_name.is_empty() {
            return Err(invalid(ocean_file, &at, "name", "empty"));
        }
        let legal = field(c_legal);
        let name = if legal.is_empty() {
            short_name.clone()
        } else {
            legal.to_owned()
        };
        let mut alternative_scacs = Vec::new();
        for alt in field(c_alt)
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|'))
            .filter(|s| !s.is_empty())
        {
            let alt = Scac::parse(alt)
                .map_err(|e| invalid(ocean_file, &at, "alternative_scacs", e.to_string()))?;
            alternative_scacs.push(alt);
        }
        let prefix = field(c_prefix).to_ascii_uppercase();
        let bill_of_lading_prefix = if prefix.is_empty() {
            None
        } else if (2..=8).contains(&prefix.len())
            && prefix.bytes().all(|c| c.is_ascii_alphanumeric())
        {
            Some(prefix)
        } else {
            return Err(invalid(
                ocean_file,
                &at,
                "bill_of_lading_prefix",
                format!("{prefix:?} is not 2-8 letters or digits"),
            ));
        };
        carriers.push(Carrier {
            scac,
            short_name,
            name,
            alternative_scacs,
            bill_of_lading_prefix,
            number_shapes,
        });
    }

    let mut reader = csv_reader(dcsa_text);
    let [d_name, d_nmfta] = columns(dcsa_file, &mut reader, ["Carrier Name", "NMFTA Code"])?;
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|source| ReferenceError::Csv {
            file: dcsa_file.to_owned(),
            row,
            source,
        })?;
        let at = format!("row {row}");
        let raw = record.get(d_nmfta).unwrap_or("").trim();
        if raw.is_empty() {
            tracing::debug!(file = dcsa_file, row, "carrier without NMFTA code skipped");
            continue;
        }
        let scac =
            Scac::parse(raw).map_err(|e| invalid(dcsa_file, &at, "NMFTA Code", e.to_string()))?;
        let known = carriers
            .iter()
            .any(|c| c.scac == scac || c.alternative_scacs.contains(&scac));
        if known {
            continue;
        }
        let name = record.get(d_name).unwrap_or("").to_owned();
        if name.is_empty() {
            return Err(invalid(dcsa_file, &at, "Carrier Name", "empty"));
        }
        carriers.push(Carrier {
            scac,
            short_name: name.clone(),
            name,
            alternative_scacs: Vec::new(),
            bill_of_lading_prefix: None,
            number_shapes: Vec::new(),
        });
    }
    Ok(carriers)
}
