//! Unit tests of the store's SQL helpers.

use super::*;

#[test]
fn placeholders_and_redaction() {
    assert_eq!(values_placeholders(2, 2), "($1, $2), ($3, $4)");
    assert_eq!(in_list(2, 3), "$2, $3, $4");
    assert_eq!(
        anonymous_parameters(&values_placeholders(2, 2)).as_deref(),
        Some("(?, ?), (?, ?)")
    );
    assert_eq!(
        anonymous_parameters("a = $1 AND b IN ($2, $3) AND c ->> '$.x' = $4").as_deref(),
        Some("a = ? AND b IN (?, ?) AND c ->> '$.x' = ?")
    );
    // Repeated or out-of-order numbers cannot be bound by position.
    assert_eq!(anonymous_parameters("a = $1 OR b = $1"), None);
    assert_eq!(anonymous_parameters("a = $2 AND b = $1"), None);
    assert_eq!(anonymous_parameters("a = $10"), None);
    assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
    assert_eq!(redact("sqlite:teu.db"), "sqlite:teu.db");
}
