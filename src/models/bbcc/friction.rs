//! Regularized Coulomb friction, Buse 2023 eq. (4).

use nalgebra::Vector3;

/// Friction force, N, Buse 2023 eq. (4): magnitude `mu F_N tanh(|v_T| / v_d)`, opposing
/// the tangential slip velocity `v_t` (m/s, the velocity of the body's contact point
/// relative to the other body, in the tangent plane). `v_d`: velocity dead band, m/s.
pub fn regularized_coulomb(
    mu: f64,
    normal_force: f64,
    v_t: &Vector3<f64>,
    v_d: f64,
) -> Vector3<f64> {
    let speed = v_t.norm();
    if speed == 0.0 || normal_force <= 0.0 {
        return Vector3::zeros();
    }
    -v_t * (mu * normal_force * (speed / v_d).tanh() / speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friction_opposes_slip_saturates_at_coulomb_and_vanishes_at_rest() {
        let f = regularized_coulomb(0.4, 10.0, &Vector3::new(1.0, 0.0, 0.0), 0.01);
        assert!(f.x < 0.0 && (f.x + 4.0).abs() < 1e-9);
        let slow = regularized_coulomb(0.4, 10.0, &Vector3::new(0.0, 0.001, 0.0), 0.01);
        assert!((slow.y + 4.0 * (0.1f64).tanh()).abs() < 1e-12);
        assert_eq!(
            regularized_coulomb(0.4, 10.0, &Vector3::zeros(), 0.01),
            Vector3::zeros()
        );
    }
}

/// Bengisu-Akay friction force, N (Buse 2023 eq. (5)), opposing the slip velocity `v_t`:
/// below the dead band v_d the magnitude rises as
/// `F_N mu_s - F_N mu_s / v_d^2 (|v_T| - v_d)^2` (zero at rest, mu_s F_N at v_d: the
/// stiction peak); above it decays as `F_N mu + F_N (mu_s - mu) exp(-xi (|v_T| - v_d))`.
pub fn bengisu_akay(
    mu: f64,
    mu_s: f64,
    xi: f64,
    normal_force: f64,
    v_t: &Vector3<f64>,
    v_d: f64,
) -> Vector3<f64> {
    let speed = v_t.norm();
    if speed == 0.0 || normal_force <= 0.0 {
        return Vector3::zeros();
    }
    let magnitude = if speed < v_d {
        normal_force * mu_s - normal_force * mu_s / (v_d * v_d) * (speed - v_d) * (speed - v_d)
    } else {
        normal_force * mu + normal_force * (mu_s - mu) * (-xi * (speed - v_d)).exp()
    };
    -v_t * (magnitude / speed)
}

/// Spin torque magnitude about the contact normal, N m (Buse 2023 eq. (6)):
/// `mu F_N pi sqrt(R delta)^2 tanh(sqrt(R delta) |omega| / v_d)`, with the effective
/// contact radius sqrt(R delta) (R in m, delta in m, relative spin omega about the normal
/// in rad/s). As printed, the lever `pi sqrt(R delta)^2` is an area; we use the
/// expression as printed (for a contact radius below 1/pi m it is a lever shorter than
/// the radius), so that fitted BBCC parameters carry over.
pub fn spin_torque(mu: f64, normal_force: f64, r_eff: f64, delta: f64, spin: f64, v_d: f64) -> f64 {
    if normal_force <= 0.0 || delta <= 0.0 {
        return 0.0;
    }
    let a = (r_eff * delta).sqrt();
    mu * normal_force * std::f64::consts::PI * a * a * (a * spin.abs() / v_d).tanh()
}

#[cfg(test)]
mod bengisu_akay_tests {
    use super::*;

    #[test]
    fn stiction_peak_at_the_dead_band_then_decay_to_coulomb() {
        let (mu, mu_s, xi, fnn, vd) = (0.4, 0.6, 10.0, 10.0, 0.01);
        let at = |v: f64| -bengisu_akay(mu, mu_s, xi, fnn, &Vector3::new(v, 0.0, 0.0), vd).x;
        assert!(at(1e-9) < 1e-5);
        assert!((at(vd) - mu_s * fnn).abs() < 1e-9);
        assert!(at(0.5 * vd) < at(vd));
        assert!(at(0.2) < at(0.05) && at(0.05) < at(vd));
        assert!((at(10.0) - mu * fnn).abs() < 1e-6);
        assert!(spin_torque(0.4, 10.0, 0.5, 1e-3, 2.0, 0.01) > 0.0);
        assert_eq!(spin_torque(0.4, 10.0, 0.5, 1e-3, 0.0, 0.01), 0.0);
    }
}
