//! Seeded hashing, permutations and random draws of the generator.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::time::H;

pub(super) fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(super) fn uni(rng: &mut ChaCha8Rng, a: f64, b: f64) -> f64 {
    a + (b - a) * rng.random::<f64>()
}

/// Uniform seconds in `[a, b)` hours.
pub(super) fn hours(rng: &mut ChaCha8Rng, a: f64, b: f64) -> i64 {
    (uni(rng, a, b) * H as f64) as i64
}

pub(super) fn round_to(t: i64, unit: i64) -> i64 {
    (t + unit / 2).div_euclid(unit) * unit
}

pub(super) fn pick_weighted(rng: &mut ChaCha8Rng, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    let mut x = rng.random_range(0..total.max(1));
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

/// A bijection of `k` onto `[0, modulus)` for `k < modulus` (`modulus` a power of ten).
pub(super) fn perm(k: u64, offset: u64, modulus: u64) -> u64 {
    const A: u128 = 2_862_933_555_777_941_757; // odd, not a multiple of 5
    ((u128::from(k) * A + u128::from(offset)) % u128::from(modulus)) as u64
}

pub(super) fn letter(x: u64) -> char {
    (b'A' + (x % 26) as u8) as char
}

pub(super) fn random_uuid(rng: &mut ChaCha8Rng) -> String {
    let bytes: [u8; 16] = rng.random();
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}
