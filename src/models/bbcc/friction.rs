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
