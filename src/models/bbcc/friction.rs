//! Regularized Coulomb friction, Buse 2023 eq. (4).

use crate::pmath;
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
    -v_t * (mu * normal_force * pmath::tanh(speed / v_d) / speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friction_opposes_slip_saturates_at_coulomb_and_vanishes_at_rest() {
        let f = regularized_coulomb(0.4, 10.0, &Vector3::new(1.0, 0.0, 0.0), 0.01);
        assert!(f.x < 0.0 && (f.x + 4.0).abs() < 1e-9);
        let slow = regularized_coulomb(0.4, 10.0, &Vector3::new(0.0, 0.001, 0.0), 0.01);
        assert!((slow.y + 4.0 * pmath::tanh(0.1f64)).abs() < 1e-12);
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
        normal_force * mu + normal_force * (mu_s - mu) * pmath::exp(-xi * (speed - v_d))
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
    mu * normal_force * std::f64::consts::PI * a * a * pmath::tanh(a * spin.abs() / v_d)
}

/// Rolling resistance torque, N m, on the body whose angular velocity relative to the
/// other is `w_rel` (rad/s, world), across the contact normal `n` (unit): against the
/// rolling part omega_r (`w_rel` without its spin about `n`), of magnitude
/// `mu_r R F_N tanh(R |omega_r| / v_d)`. Ai et al. 2011 ("Assessment of rolling
/// resistance models in discrete element simulations", Powder Technology 206), model
/// A: a constant torque mu_r R F_N (`mu_r` the rolling resistance coefficient, R the
/// pair's effective radius, m, F_N the normal force, N), regularized over the dead
/// band `v_d` (m/s) of the rolling speed R |omega_r| as eq. (6) regularizes the spin.
/// An extension of Buse 2023, whose point contact rolls without loss.
pub fn rolling_resistance(
    mu_r: f64,
    r_eff: f64,
    normal_force: f64,
    w_rel: &Vector3<f64>,
    n: &Vector3<f64>,
    v_d: f64,
) -> Vector3<f64> {
    let w_r = w_rel - n * w_rel.dot(n);
    let speed = w_r.norm();
    if mu_r <= 0.0 || normal_force <= 0.0 || speed == 0.0 {
        return Vector3::zeros();
    }
    -w_r * (mu_r * r_eff * normal_force * pmath::tanh(r_eff * speed / v_d) / speed)
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

    #[test]
    fn rolling_resistance_opposes_rolling_saturates_at_mu_r_r_f_n_and_ignores_spin() {
        let n = Vector3::z();
        // rolling about y at R |omega| = 0.1 m/s, ten dead bands: saturated
        let t = rolling_resistance(0.05, 0.1, 10.0, &Vector3::new(0.0, 1.0, 0.0), &n, 0.01);
        assert!(t.y < 0.0 && (t.y + 0.05 * 0.1 * 10.0 * pmath::tanh(10.0f64)).abs() < 1e-12);
        assert!(t.x == 0.0 && t.z == 0.0);
        // spin about the normal is eq. (6)'s, not this
        let spin = rolling_resistance(0.05, 0.1, 10.0, &Vector3::new(0.0, 0.0, 3.0), &n, 0.01);
        assert_eq!(spin, Vector3::zeros());
        // slow rolling: viscous, below the saturated torque
        let slow = rolling_resistance(0.05, 0.1, 10.0, &Vector3::new(1e-3, 0.0, 0.0), &n, 0.01);
        assert!(slow.x < 0.0 && slow.x.abs() < 0.05 * 0.1 * 10.0 * 0.011);
        assert_eq!(
            rolling_resistance(0.0, 0.1, 10.0, &Vector3::x(), &n, 0.01),
            Vector3::zeros()
        );
    }
}
