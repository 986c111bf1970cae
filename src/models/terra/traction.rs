//! Longitudinal traction: Mohr-Coulomb stress limit, Janosi-Hanamoto shear and the
//! slip length that builds up over the contact patch (Barthelmes 2018, section 3.2,
//! eq. (19)-(23)).

use crate::pmath;
use super::TerraParams;

/// Maximum shear stress tau_max = c + F_n / A tan(phi_g), Pa (eq. (19)), with the
/// modified friction angle phi_g = phi - alpha (eq. (12)). Not negative: on a slope
/// steeper than phi only cohesion is left.
pub fn max_shear_stress(p: &TerraParams, normal_force: f64, area: f64, slope_angle: f64) -> f64 {
    // the tangent only where it is used (as before the step shared it)
    let tan_phi_g = if area > 0.0 {
        pmath::tan(p.soil.phi - slope_angle)
    } else {
        0.0
    };
    max_shear_stress_tan(p, normal_force, area, tan_phi_g)
}

/// [`max_shear_stress`] with `tan_phi_g` = tan(phi - alpha) already known.
pub fn max_shear_stress_tan(p: &TerraParams, normal_force: f64, area: f64, tan_phi_g: f64) -> f64 {
    let friction = if area > 0.0 {
        normal_force / area * tan_phi_g
    } else {
        0.0
    };
    (p.soil.c + friction).max(0.0)
}

/// `expm1(-u) / u`, continuous at u = 0 (value -1).
fn expm1_over(u: f64) -> f64 {
    if u.abs() < 1e-8 {
        -1.0 + 0.5 * u
    } else {
        pmath::exp_m1(-u) / u
    }
}

/// The integral of eq. (23) divided by `w tau_max`, m: the contact length weighted by
/// the Janosi-Hanamoto shear mobilization `1 - exp(-j(x)/k_j)` (eq. (20)), where the
/// slip length j rises linearly from 0 at soil entry to `j_m` at `x_m` and stays there
/// until the exit `x_e` (Fig. 3).
///
/// `j_m`, `x_m`, `x_e` in m, `j_m >= 0`. The paper's second branch prints
/// `- exp(-j_m/k_j)` in its last term; the integral (and continuity with the first
/// branch at `x_m = x_e`) gives `+ exp(-j_m/k_j)`, which is used here.
pub fn mobilized_length(k_j: f64, j_m: f64, x_m: f64, x_e: f64) -> f64 {
    if x_e <= 0.0 || j_m <= 0.0 {
        return 0.0;
    }
    let big_j = j_m / k_j;
    if x_m > x_e {
        // j reaches only j_m x_e / x_m at the exit:
        // x_e + x_m k_j / j_m (exp(-j_m x_e / (x_m k_j)) - 1)
        let u = big_j * x_e / x_m;
        x_e * (1.0 + expm1_over(u))
    } else {
        // x_e (1 - e^-J) + x_m (k_j/j_m (e^-J - 1) + e^-J)
        let e = pmath::exp(-big_j);
        x_e * (1.0 - e) + x_m * (expm1_over(big_j) + e)
    }
}

/// Traction force F_tr = w tau_max * mobilized length, N (eq. (23)); `j_m` is the
/// magnitude of the slip length.
pub fn traction_force(p: &TerraParams, tau_max: f64, j_m: f64, x_m: f64, x_e: f64) -> f64 {
    p.width * tau_max * mobilized_length(p.model.k_j, j_m.abs(), x_m, x_e)
}

/// Target of the PT1 filter of eq. (22), m: `|v_t,x / v_s| |j_m|`, where the shear
/// length has built up. Capped at 1 km (no slip while moving: infinitely far, no
/// traction); zero when nothing moves or nothing is sheared.
pub fn build_up_length_target(forward_velocity: f64, slip_velocity: f64, j_m: f64) -> f64 {
    const CAP: f64 = 1e3;
    let vs = slip_velocity.abs();
    let num = forward_velocity.abs() * j_m.abs();
    if num == 0.0 {
        0.0
    } else if num >= CAP * vs {
        CAP
    } else {
        num / vs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Midpoint-rule integral of the first line of eq. (23).
    fn numeric(k_j: f64, j_m: f64, x_m: f64, x_e: f64) -> f64 {
        let n = 200_000;
        let dx = x_e / n as f64;
        (0..n)
            .map(|i| {
                let x = (i as f64 + 0.5) * dx;
                let j = if x < x_m { j_m * x / x_m } else { j_m };
                (1.0 - pmath::exp(-j / k_j)) * dx
            })
            .sum()
    }

    #[test]
    fn the_closed_form_of_eq_23_is_the_integral_in_both_branches() {
        for (j_m, x_m, x_e) in [
            (0.05, 0.02, 0.08),
            (0.01, 0.2, 0.08),
            (0.3, 0.079, 0.08),
            (0.002, 0.5, 0.1),
            (0.5, 1e-4, 0.1),
        ] {
            let closed = mobilized_length(0.02, j_m, x_m, x_e);
            let num = numeric(0.02, j_m, x_m, x_e);
            assert!(
                (closed - num).abs() < 1e-7,
                "j_m {j_m} x_m {x_m} x_e {x_e}: {closed} vs {num}"
            );
        }
    }

    #[test]
    fn the_branches_meet_and_no_slip_gives_no_traction() {
        let a = mobilized_length(0.02, 0.05, 0.08 + 1e-12, 0.08);
        let b = mobilized_length(0.02, 0.05, 0.08 - 1e-12, 0.08);
        assert!((a - b).abs() < 1e-10);
        assert_eq!(mobilized_length(0.02, 0.0, 0.05, 0.08), 0.0);
        assert!(mobilized_length(0.02, 1e-12, 1e3, 0.08) < 1e-12);
        // long slip: the whole patch is mobilized
        assert!((mobilized_length(0.02, 10.0, 1e-6, 0.08) - 0.08).abs() < 1e-6);
    }

    #[test]
    fn the_stress_limit_is_mohr_coulomb_and_falls_with_the_slope() {
        let p = TerraParams::table1();
        let flat = max_shear_stress(&p, 100.0, 0.01, 0.0);
        assert!((flat - (p.soil.c + 1e4 * pmath::tan(p.soil.phi))).abs() < 1e-9);
        assert!(max_shear_stress(&p, 100.0, 0.01, 0.3) < flat);
        let mut cohesionless = p;
        cohesionless.soil.c = 0.0;
        assert_eq!(max_shear_stress(&cohesionless, 100.0, 0.01, 1.0), 0.0);
        assert!((build_up_length_target(0.05, 0.0, 0.1) - 1e3).abs() < 1e-9);
        assert_eq!(build_up_length_target(0.0, 0.0, 0.1), 0.0);
        assert!((build_up_length_target(0.05, 0.01, 0.1) - 0.5).abs() < 1e-12);
    }
}
