//! teu-api: what the GraphQL API (teu-graphql) and the `/v2` interface (teu-rest) share, so that
//! both answer a caller the same way.
//!
//! | module | what it holds |
//! |---|---|
//! | [`auth`] | `Authorization: Token <API_KEY>`: reading the header, the account of a key, why a key is refused |
//! | [`limit`] | per-account rate limits (carrier inference: 200 requests per minute over both APIs) |
//! | [`failure`] | which store failures mean "the database is unavailable, retry" (503 / `UNAVAILABLE`) |
//!
//! It knows no HTTP framework: each API turns these answers into its own responses.

pub mod auth;
pub mod failure;
pub mod limit;
