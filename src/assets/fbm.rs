//! Fractal Brownian motion over a noise basis: the `noise` crate's `Fbm`, computed here
//! so that it gives the same bits on every platform.
//!
//! `noise::Fbm` normalizes its sum by 1 / (p + p^2 + ... + p^octaves) with `f64::powi`.
//! On Linux `powi` is repeated multiplication (compiler-builtins' `__powidf2`); on
//! Windows LLVM calls the C library's `pow`, which rounds differently for a
//! persistence p that is not a power of two, and a generated terrain's heights (built
//! by the runtime at instantiation) would differ in the last bits. [`powi`] here is
//! that repeated multiplication, in the same order, on every platform; the sum itself is
//! noise's, term by term (unit-tested bit for bit against `noise::Fbm`).

use noise::{NoiseFn, Seedable};

/// `x^n` by repeated squaring, the multiplications in the order of compiler-builtins'
/// and libgcc's `__powidf2` (what `f64::powi` calls on Linux).
pub fn powi(x: f64, n: i32) -> f64 {
    let recip = n < 0;
    let mut b = n.unsigned_abs();
    let mut a = x;
    let mut r = 1.0;
    loop {
        if b & 1 == 1 {
            r *= a;
        }
        b /= 2;
        if b == 0 {
            break;
        }
        a *= a;
    }
    if recip {
        1.0 / r
    } else {
        r
    }
}

/// fBm in two dimensions over the noise basis `T` (Perlin, Simplex): `octaves` (1 to
/// 32, as `noise` clamps) sources seeded `seed`, `seed + 1`, ..., each `lacunarity`
/// times the frequency and `persistence` times the amplitude of the one before.
pub struct Fbm2<T> {
    sources: Vec<T>,
    frequency: f64,
    lacunarity: f64,
    persistence: f64,
    scale: f64,
}

impl<T: Default + Seedable> Fbm2<T> {
    /// The most octaves (as `noise::Fbm::MAX_OCTAVES`).
    pub const MAX_OCTAVES: usize = 32;

    /// The fractal of these settings (the `noise::Fbm` of `new(seed)`, then
    /// `set_octaves`, `set_frequency`, `set_lacunarity`, `set_persistence`).
    pub fn new(seed: u32, octaves: usize, frequency: f64, lacunarity: f64, persistence: f64) -> Self {
        let octaves = octaves.clamp(1, Self::MAX_OCTAVES);
        let sources = (0..octaves)
            .map(|k| T::default().set_seed(seed.wrapping_add(k as u32)))
            .collect();
        let denom = (1..=octaves).fold(0.0, |acc, k| acc + powi(persistence, k as i32));
        Fbm2 {
            sources,
            frequency,
            lacunarity,
            persistence,
            scale: 1.0 / denom,
        }
    }
}

impl<T: NoiseFn<f64, 2>> NoiseFn<f64, 2> for Fbm2<T> {
    /// The sum at (x, y), scaled to about [-1, 1].
    fn get(&self, point: [f64; 2]) -> f64 {
        let mut p = [point[0] * self.frequency, point[1] * self.frequency];
        let mut result = 0.0;
        let mut attenuation = self.persistence;
        for source in &self.sources {
            result += source.get(p) * attenuation;
            attenuation *= self.persistence;
            p = [p[0] * self.lacunarity, p[1] * self.lacunarity];
        }
        result * self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise::{Fbm, MultiFractal, Perlin, Simplex};

    const BASES: [f64; 7] = [0.5, 0.6, 0.37, 0.8, 1.3, -0.7, 3.0];

    /// Where `f64::powi` is `__powidf2` (not on Windows, where it is the C library's `pow`).
    #[cfg(not(windows))]
    #[test]
    fn powi_is_the_repeated_multiplication_of_f64_powi() {
        for x in BASES {
            for n in -8..=40 {
                assert_eq!(powi(x, n).to_bits(), x.powi(n).to_bits(), "{x}^{n}");
            }
        }
    }

    /// The bits of the test above, on every platform: a digest of them recorded on
    /// Linux x86-64 (FNV-1a's multiply and xor, 64 bits at a time).
    #[test]
    fn powi_gives_the_same_bits_on_every_platform() {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for x in BASES {
            for n in -8..=40 {
                h = (h ^ powi(x, n).to_bits()).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        assert_eq!(h, 0x04fe_76da_e2c0_b526, "{h:#x}");
    }

    fn same_as_noise<T>(seed: u32, o: usize, f: f64, l: f64, p: f64)
    where
        T: Default + Seedable + NoiseFn<f64, 2> + Clone,
    {
        let theirs = Fbm::<T>::new(seed)
            .set_octaves(o)
            .set_frequency(f)
            .set_lacunarity(l)
            .set_persistence(p);
        let ours = Fbm2::<T>::new(seed, o, f, l, p);
        for i in 0..200 {
            let q = [i as f64 * 0.731 - 40.0, (i * i % 97) as f64 * 0.313 - 11.0];
            assert_eq!(
                ours.get(q).to_bits(),
                theirs.get(q).to_bits(),
                "seed {seed}, octaves {o}, persistence {p}, at {q:?}"
            );
        }
    }

    #[test]
    fn the_same_bits_as_noise_fbm() {
        for (o, p) in [(1, 0.5), (3, 0.6), (6, 0.37), (8, 0.8), (12, 0.55), (40, 0.5)] {
            same_as_noise::<Perlin>(7, o, 0.9, 2.1, p);
            same_as_noise::<Simplex>(u32::MAX - 2, o, 1.7, 1.9, p);
        }
    }
}
