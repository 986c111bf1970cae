//! Hunt-Crossley normal force with the Flores-Lankarani damping, Buse 2023 eq. (1)-(3).

/// Contact stiffness k, N/m^1.5, Buse 2023 eq. (3):
/// `k = 4/3 sqrt(R) / (0.5 ((1 - nu1^2)/E1 + (1 - nu2^2)/E2))`.
///
/// `r_eff`: effective Hertz radius, m (see [`effective_radius`]); `e*`: Young's moduli,
/// Pa; `nu*`: Poisson ratios.
pub fn stiffness(r_eff: f64, e1: f64, nu1: f64, e2: f64, nu2: f64) -> f64 {
    let compliance = 0.5 * ((1.0 - nu1 * nu1) / e1 + (1.0 - nu2 * nu2) / e2);
    4.0 / 3.0 * r_eff.sqrt() / compliance
}

/// Effective radius R from the bodies' lengths, `1/R = 1/R1 + 1/R2`, m
/// (Buse 2023, section 4.1.1: R_i is the longest edge of body i, so R is half the
/// harmonic mean of the two). An unbounded body (flat ground) has `R_i = inf`.
pub fn effective_radius(r1: f64, r2: f64) -> f64 {
    1.0 / (1.0 / r1 + 1.0 / r2)
}

/// Damping factor d, s/m, Buse 2023 eq. (2): `d = 8/5 (1 - zeta) / (zeta v_imp)`.
///
/// `zeta`: coefficient of restitution in (0, 1] (harmonic mean of the pair);
/// `impact_velocity`: relative penetration velocity prior to contact, m/s, > 0.
pub fn damping(zeta: f64, impact_velocity: f64) -> f64 {
    8.0 / 5.0 * (1.0 - zeta) / (zeta * impact_velocity)
}

/// Normal force magnitude, N, Buse 2023 eq. (1): `F_N = k delta^1.5 (1 + d delta_dot)`.
///
/// `delta`: penetration depth, m; `delta_dot`: penetration rate, m/s (> 0 while
/// approaching). Zero without penetration. The force is clipped at zero: at the end of
/// a fast rebound `1 + d delta_dot` can become negative, and contacts do not pull.
pub fn normal_force(k: f64, d: f64, delta: f64, delta_dot: f64) -> f64 {
    if delta <= 0.0 {
        return 0.0;
    }
    (k * delta * delta.sqrt() * (1.0 + d * delta_dot)).max(0.0)
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;

    #[test]
    fn stiffness_of_equal_materials_is_hertz_with_the_papers_factor() {
        // Two equal materials: 0.5 * 2 (1 - nu^2)/E = (1 - nu^2)/E, so
        // k = 4/3 sqrt(R) E / (1 - nu^2).
        let (e, nu, r) = (4.5e5, 0.4, 0.5);
        let k = stiffness(r, e, nu, e, nu);
        let expected = 4.0 / 3.0 * r.sqrt() * e / (1.0 - nu * nu);
        assert!((k - expected).abs() < 1e-9 * expected);
    }

    #[test]
    fn effective_radius_of_a_body_on_flat_ground_is_its_own() {
        assert_eq!(effective_radius(0.2, f64::INFINITY), 0.2);
        assert!((effective_radius(1.0, 1.0) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn the_force_is_elastic_at_rest_damped_when_moving_and_never_pulls() {
        let k = 1e6;
        let d = damping(0.6, 2.0);
        assert!((d - 8.0 / 5.0 * 0.4 / 1.2).abs() < 1e-12);
        let delta: f64 = 1e-3;
        assert!((normal_force(k, d, delta, 0.0) - k * pmath::powf(delta, 1.5)).abs() < 1e-9);
        assert!(normal_force(k, d, delta, 1.0) > normal_force(k, d, delta, 0.0));
        assert!(normal_force(k, d, delta, -0.5) < normal_force(k, d, delta, 0.0));
        assert_eq!(normal_force(k, d, delta, -100.0), 0.0);
        assert_eq!(normal_force(k, d, -1e-3, 1.0), 0.0);
        // restitution 1: no damping
        assert_eq!(damping(1.0, 3.0), 0.0);
    }
}
