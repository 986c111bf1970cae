//! The same bits on every platform: `contact_fmu::pmath` is what makes an FMU's results
//! identical on linux64, win64 and aarch64-linux (docs/platforms.md). This test digests
//! 2^14 results of each of its functions; the digest, recorded on Linux x86-64, must come
//! out the same wherever the runtime crate's tests run (ci/cross_tests.sh: under Wine
//! and under qemu-aarch64), so a platform whose arithmetic or code generation changes a
//! single bit fails here, before any FMU runs.

#[cfg(test)]
mod tests {
    use contact_fmu::pmath;

    #[test]
    fn every_portable_function_gives_the_recorded_bits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            // xorshift64*: a fixed sequence in [0, 1)
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut digest = 0xcbf2_9ce4_8422_2325u64; // FNV-1a over the result bits
        let mut mix = |y: f64| digest = (digest ^ y.to_bits()).wrapping_mul(0x100_0000_01b3);
        for _ in 0..1 << 14 {
            let (u, v) = (next(), next());
            let a = 20.0 * u - 10.0; // angles, arguments of exp
            let s = 2.0 * v - 1.0; // sines and cosines
            let p = 1e-3 + 10.0 * v; // positive bases
            mix(pmath::sin(a));
            mix(pmath::cos(a));
            let (sa, ca) = pmath::sin_cos(a);
            mix(sa);
            mix(ca);
            mix(pmath::tan(a));
            mix(pmath::asin(s));
            mix(pmath::acos(s));
            mix(pmath::atan(a));
            mix(pmath::atan2(s, a));
            mix(pmath::exp(a));
            mix(pmath::exp(1400.0 * u - 700.0));
            mix(pmath::exp_m1(s));
            mix(pmath::ln(p));
            mix(pmath::ln(f64::from_bits(
                (u * 0x7fe0_0000_0000_0000u64 as f64) as u64 + 1,
            )));
            mix(pmath::ln(0.95 + 0.1 * v));
            mix(pmath::powf(p, 1.17 * a));
            mix(pmath::hypot(a, s));
            mix(pmath::tanh(a));
        }
        assert_eq!(digest, 0x4a37_745d_ffdd_6427, "{digest:#018x}");
    }
}
