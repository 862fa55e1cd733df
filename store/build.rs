//! Rebuilds the pipeline when a migration is added or changed: `sqlx::migrate!` embeds
//! `migrations/` at compile time, and cargo does not otherwise watch that directory (sqlx
//! documentation, "migrate!").
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
