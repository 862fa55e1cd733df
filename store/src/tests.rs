//! Unit tests of the store's SQL helpers.

use super::*;

#[test]
fn placeholders_and_redaction() {
    assert_eq!(values_placeholders(2, 2), "($1, $2), ($3, $4)");
    assert_eq!(in_list(2, 3), "$2, $3, $4");
    assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
    assert_eq!(redact("sqlite:teu.db"), "sqlite:teu.db");
}
