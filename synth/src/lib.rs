//! teu-synth: feeds in every format teu reads, generated with realistic shapes, and the ground
//! truth of what they say, so that teu's derived answers can be judged against what the
//! generator knows it wrote.
//!
//! Used by the `teu` binary (`teu generate`, `teu simulate`, `teu serve --demo`), the end-to-end
//! tests and the benchmarks; the pipeline, the store and both APIs never depend on it.
//!
//! | module | what it generates |
//! |---|---|
//! | [`dcsa`] | DCSA Track & Trace 2.2 event feeds, shipment by shipment, with [`truth`] |
//! | [`terminal`] | terminal availability, line-deadline and rail feeds for a generated DCSA feed |
//! | [`ais`] | AIS positions (NOAA MarineCadastre CSV layout) of the generated voyages |
//! | [`awkward`] | a generated feed made as awkward as carriers' feeds (missing, shuffled, redelivered events) |
//! | [`simulate`] | every format at any size, written chunk by chunk (`teu simulate`) |
//! | [`truth`] | the ground truth of generated feeds (`truth.jsonl`) |

pub mod ais;
pub mod awkward;
pub mod dcsa;
pub mod simulate;
pub mod terminal;
pub mod truth;
