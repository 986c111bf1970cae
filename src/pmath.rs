//! Portable math: the transcendental functions of the models, with the same bits on every
//! platform.
//!
//! Rust's `f64::sin`, `exp`, `powf`, `hypot`, ... call the platform's C math library
//! (glibc on Linux, msvcrt on Windows, Apple's libm on macOS), which round differently in
//! the last bits; a contact simulation amplifies that until a rock lands elsewhere. Here
//! they are the `libm` crate (a port of musl's libm, pure Rust), so an FMU gives
//! bit-identical results on linux64, win64 and aarch64-linux (docs/platforms.md).
//! `sqrt`, `abs`, `floor`, `powi` and the arithmetic are exact or the same code on every
//! platform and stay as they are. `tests/portable_math.rs` keeps the platform versions
//! out of `src/`.
//!
//! Also here: the few nalgebra constructors that use trigonometry (through the platform
//! library), rebuilt with these functions.

use nalgebra::{Quaternion, Unit, UnitQuaternion, Vector3};

/// sin x
#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}

/// cos x
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// (sin x, cos x)
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    libm::sincos(x)
}

/// tan x
#[inline]
pub fn tan(x: f64) -> f64 {
    libm::tan(x)
}

/// asin x
#[inline]
pub fn asin(x: f64) -> f64 {
    libm::asin(x)
}

/// acos x
#[inline]
pub fn acos(x: f64) -> f64 {
    libm::acos(x)
}

/// atan x
#[inline]
pub fn atan(x: f64) -> f64 {
    libm::atan(x)
}

/// atan2(y, x), the angle of the point (x, y)
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// e^x
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// e^x - 1, accurate near 0
#[inline]
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// ln x
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// x^y. For a positive finite base and a finite exponent (the models' soil laws:
/// k z^n) as e^(y ln x), two to three times faster than musl's `pow` and within a few
/// ulp of it (the error grows with |y ln x|: 1e-15 relative at the soils' z^n);
/// every other case (a zero, negative or infinite base, an infinite or NaN exponent)
/// by `pow` itself, so that its special values hold.
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    if x > 0.0 && x < f64::INFINITY && y.is_finite() {
        libm::exp(y * libm::log(x))
    } else {
        libm::pow(x, y)
    }
}

/// `(powf(x, a), powf(x, b))` with one logarithm where both take the e^(y ln x)
/// path: the same bits as the two calls.
#[inline]
pub fn powf_pair(x: f64, a: f64, b: f64) -> (f64, f64) {
    if x > 0.0 && x < f64::INFINITY {
        let ln_x = libm::log(x);
        let one = |y: f64| {
            if y.is_finite() {
                libm::exp(y * ln_x)
            } else {
                libm::pow(x, y)
            }
        };
        (one(a), one(b))
    } else {
        (powf(x, a), powf(x, b))
    }
}

/// sqrt(x² + y²) without overflow
#[inline]
pub fn hypot(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

/// tanh x
#[inline]
pub fn tanh(x: f64) -> f64 {
    libm::tanh(x)
}

/// The rotation by `angle` (rad) about the unit `axis`: nalgebra's
/// `UnitQuaternion::from_axis_angle`, with portable sine and cosine.
pub fn quat_from_axis_angle(axis: &Unit<Vector3<f64>>, angle: f64) -> UnitQuaternion<f64> {
    let (s, c) = sin_cos(angle / 2.0);
    UnitQuaternion::new_unchecked(Quaternion::from_parts(c, axis.into_inner() * s))
}

/// The rotation about the axis `v` by the angle |v| (rad): nalgebra's
/// `UnitQuaternion::from_scaled_axis` (the exponential of the pure quaternion v/2,
/// identity below machine epsilon), with portable sine and cosine.
pub fn quat_from_scaled_axis(v: Vector3<f64>) -> UnitQuaternion<f64> {
    let half = v / 2.0;
    let nn = half.norm_squared();
    if nn <= f64::EPSILON * f64::EPSILON {
        return UnitQuaternion::identity();
    }
    // exp(0) = 1: the scalar part of v/2 is zero
    let n = nn.sqrt();
    UnitQuaternion::new_unchecked(Quaternion::from_parts(cos(n), half * (sin(n) / n)))
}

/// The rotation by roll, pitch, yaw (rad; about x, then y, then z of the world):
/// nalgebra's `UnitQuaternion::from_euler_angles`, with portable sine and cosine.
pub fn quat_from_euler_angles(roll: f64, pitch: f64, yaw: f64) -> UnitQuaternion<f64> {
    let (sr, cr) = sin_cos(roll * 0.5);
    let (sp, cp) = sin_cos(pitch * 0.5);
    let (sy, cy) = sin_cos(yaw * 0.5);
    UnitQuaternion::new_unchecked(Quaternion::new(
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ))
}

/// The rotation angle of `q` in [0, π] (rad): nalgebra's `UnitQuaternion::angle`, with
/// a portable arc tangent.
pub fn quat_angle(q: &UnitQuaternion<f64>) -> f64 {
    let w = q.quaternion().scalar().abs();
    atan2(q.quaternion().imag().norm(), w) * 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constructors_match_nalgebra_to_rounding() {
        let axis = Unit::new_normalize(Vector3::new(0.3, -1.0, 0.4));
        for angle in [0.0, 0.1, 1.0, -2.5, 3.1] {
            let a = quat_from_axis_angle(&axis, angle);
            let b = UnitQuaternion::from_axis_angle(&axis, angle);
            assert!(a.angle_to(&b) < 1e-12, "{angle}");
            assert!((quat_angle(&a) - b.angle()).abs() < 1e-12);
            let v = axis.into_inner() * angle;
            assert!(quat_from_scaled_axis(v).angle_to(&UnitQuaternion::from_scaled_axis(v)) < 1e-12);
        }
        for (r, p, y) in [(0.1, -0.2, 0.3), (1.0, 0.5, -2.0), (0.0, 0.0, 0.0)] {
            let a = quat_from_euler_angles(r, p, y);
            let b = UnitQuaternion::from_euler_angles(r, p, y);
            assert!(a.angle_to(&b) < 1e-12, "{r} {p} {y}");
        }
        assert_eq!(quat_from_scaled_axis(Vector3::zeros()), UnitQuaternion::identity());
    }

    #[test]
    fn powf_pair_is_two_powf() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let xs = [0.0, -0.0, 1e-300, 0.013, 0.5, 1.0, 7.25, inf, -2.0, nan];
        let ys = [1.1, 0.1, -0.9, 0.0, 2.0, inf, nan];
        for x in xs {
            for a in ys {
                for b in ys {
                    let (pa, pb) = powf_pair(x, a, b);
                    assert_eq!(pa.to_bits(), powf(x, a).to_bits(), "{x}^{a}");
                    assert_eq!(pb.to_bits(), powf(x, b).to_bits(), "{x}^{b}");
                }
            }
        }
    }

    #[test]
    fn powf_keeps_the_special_values_of_pow() {
        assert_eq!(powf(0.0, 0.0), 1.0);
        assert_eq!(powf(0.0, 2.0), 0.0);
        assert_eq!(powf(-2.0, 2.0), 4.0);
        assert_eq!(powf(-8.0, 3.0), -512.0);
        assert!(powf(-2.0, 0.5).is_nan());
        assert_eq!(powf(2.0, f64::INFINITY), f64::INFINITY);
        assert_eq!(powf(1.0, 123.4), 1.0);
        assert_eq!(powf(4.0, 0.5), 2.0);
    }

    #[test]
    fn the_functions_agree_with_the_platform_library_to_a_few_ulp() {
        for x in [0.1, 0.5, 1.0, 2.0, 10.0, -3.0] {
            let close = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1e-300);
            assert!(close(sin(x), x.sin()) && close(cos(x), x.cos()) && close(exp(x), x.exp()));
            assert!(close(tanh(x), x.tanh()) && close(atan(x), x.atan()));
            // e^(y ln x): an error of about |y ln x| ulp
            let p = powf(x.abs(), 1.7);
            assert!((p - x.abs().powf(1.7)).abs() <= 16.0 * f64::EPSILON * p, "{x}");
            assert!(close(hypot(x, 2.0), x.hypot(2.0)) && close(atan2(x, 2.0), x.atan2(2.0)));
            assert!(close(exp_m1(x), x.exp_m1()) && close(ln(x.abs()), x.abs().ln()));
        }
    }
}
