//! Which store failures are the database's, not the request's: both APIs answer them as
//! "unavailable, retry later" (`/v2`: 503 with code `service_unavailable`; GraphQL:
//! `extensions.code` `UNAVAILABLE`), and every other store failure as an internal error.

use teu_store::StoreError;

/// Whether a store failure is transient and not the request's fault: no connection could be
/// made or taken from the pool in time, the connection broke, or the database is busy or
/// shutting down. These answer 503; every other store failure is a 500.
pub fn is_unavailable(e: &StoreError) -> bool {
    match e {
        StoreError::Connect { .. } => true,
        StoreError::Sql(e) => match e {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|c| transient_db_code(&c)),
            _ => false,
        },
        _ => false,
    }
}

/// SQLite busy/locked result codes (primary and extended) and PostgreSQL connection-exception
/// (class 08), too-many-connections and shutdown SQLSTATEs.
fn transient_db_code(code: &str) -> bool {
    matches!(
        code,
        "5" | "6" | "261" | "262" | "517" | "53300" | "57P01" | "57P02" | "57P03"
    ) || (code.len() == 5 && code.starts_with("08"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_codes() {
        // SQLite SQLITE_BUSY (5), SQLITE_LOCKED (6) and their extended codes.
        for code in ["5", "6", "261", "262", "517"] {
            assert!(transient_db_code(code), "{code}");
        }
        // PostgreSQL: connection failure, too many connections, admin shutdown.
        for code in ["08006", "53300", "57P01"] {
            assert!(transient_db_code(code), "{code}");
        }
        // A unique violation is the request's; "08" alone is no SQLSTATE.
        assert!(!transient_db_code("23505"));
        assert!(!transient_db_code("08"));
    }

    #[test]
    fn connection_failures_are_unavailable() {
        assert!(is_unavailable(&StoreError::Sql(sqlx::Error::PoolTimedOut)));
        assert!(!is_unavailable(&StoreError::Sql(sqlx::Error::RowNotFound)));
    }
}
