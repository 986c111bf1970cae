//! Dynamic sinkage: inward slip-sinkage and outward sinkage when driving onto fresh
//! soil (Barthelmes 2018, section 3.1.3 and 3.1.4, eq. (8)-(18)).

use crate::pmath;
use super::TerraParams;

/// Inward slip-sinkage rate dz_in/dt, m/s (eq. (9)):
/// `k_s,max (max(k_s,0 - z, 0) / k_s,0)^k_s,exp |v_s|`, with the slip velocity
/// `v_s = omega r - v_t,x` of eq. (8).
pub fn inward_rate(p: &TerraParams, z: f64, slip_velocity: f64) -> f64 {
    p.model.k_s_max
        * pmath::powf((p.model.k_s0 - z).max(0.0) / p.model.k_s0, p.model.k_s_exp)
        * slip_velocity.abs()
}

/// Ideal sinkage z* = (m g / k_c)^(1/k_exp), m (eq. (10)): the sinkage that carries the
/// estimated weight. (Eq. (17) prints the fraction inverted; eq. (10) is meant.)
pub fn ideal_sinkage(p: &TerraParams) -> f64 {
    pmath::powf(p.mass * p.g / p.model.k_c, 1.0 / p.model.k_exp)
}

/// Half the contact patch length l/2 = sqrt(2 r z - z^2), m (eq. (13)). For z beyond
/// the radius the patch is the full diameter.
pub fn half_patch_length(radius: f64, z: f64) -> f64 {
    let z = z.clamp(0.0, radius);
    (2.0 * radius * z - z * z).sqrt()
}

/// Total outward sinkage rate dz_out/dt, m/s (eq. (11), (12)):
/// `min((z - z*) / (l/2), tan(phi - alpha)) |v_t,x|`. The wheel climbs the slope of its
/// imprint towards the ideal sinkage; it never digs itself in through this term, so
/// the rate is clipped at zero (below z*, or where the slope exceeds phi).
pub fn outward_rate(p: &TerraParams, z: f64, slope_angle: f64, forward_velocity: f64) -> f64 {
    outward_rate_tan(p, z, pmath::tan(p.soil.phi - slope_angle), forward_velocity)
}

/// [`outward_rate`] with `tan_phi_g` = tan(phi - alpha) already known (the step
/// computes it once for this and the shear stress limit).
pub fn outward_rate_tan(p: &TerraParams, z: f64, tan_phi_g: f64, forward_velocity: f64) -> f64 {
    outward_rate_ideal(p, z, ideal_sinkage(p), tan_phi_g, forward_velocity)
}

/// [`outward_rate_tan`] with the ideal sinkage `z_ideal` (m, [`ideal_sinkage`] of `p`)
/// already known: it depends on the constants only.
pub fn outward_rate_ideal(
    p: &TerraParams,
    z: f64,
    z_ideal: f64,
    tan_phi_g: f64,
    forward_velocity: f64,
) -> f64 {
    let half_l = half_patch_length(p.radius, z);
    if half_l <= 0.0 {
        return 0.0;
    }
    let climb = ((z - z_ideal) / half_l).min(tan_phi_g);
    climb.max(0.0) * forward_velocity.abs()
}

/// Fraction of the outward rate that acts on the peak sinkage (eq. (14)):
/// `min(max((z_peak - z_eff) / d_el, 0), 1)`. Zero while the wheel is at its peak
/// force; one at the bottom of the elastic layer.
pub fn peak_fraction(z_peak: f64, z_eff: f64, d_el: f64) -> f64 {
    if d_el <= 0.0 {
        return 0.0;
    }
    ((z_peak - z_eff) / d_el).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inward_rate_is_largest_at_the_surface_and_zero_at_k_s0() {
        let p = TerraParams::table1();
        assert!((inward_rate(&p, 0.0, 0.1) - p.model.k_s_max * 0.1).abs() < 1e-15);
        assert_eq!(inward_rate(&p, p.model.k_s0, 0.1), 0.0);
        assert_eq!(inward_rate(&p, 0.2, 0.1), 0.0);
        assert!(
            inward_rate(&p, 0.05, -0.1) > 0.0,
            "braking slip digs in too"
        );
    }

    #[test]
    fn the_ideal_sinkage_carries_the_weight() {
        let p = TerraParams::table1();
        let z = ideal_sinkage(&p);
        assert!((p.model.k_c * pmath::powf(z, p.model.k_exp) - p.mass * p.g).abs() < 1e-9);
    }

    #[test]
    fn outward_rate_follows_the_imprint_slope_limited_by_the_friction_angle() {
        let p = TerraParams::table1();
        let zs = ideal_sinkage(&p);
        assert_eq!(outward_rate(&p, zs * 0.5, 0.0, 0.1), 0.0);
        assert_eq!(outward_rate(&p, zs + 0.01, 0.0, 0.0), 0.0);
        let z = zs + 0.001;
        let expected = 0.001 / half_patch_length(p.radius, z) * 0.1;
        assert!((outward_rate(&p, z, 0.0, -0.1) - expected).abs() < 1e-15);
        // deep in: the climbing angle is limited by phi - alpha
        let deep = outward_rate(&p, 0.1, 8f64.to_radians(), 0.1);
        assert!((deep - pmath::tan(p.soil.phi - 8f64.to_radians()) * 0.1).abs() < 1e-15);
        // slope steeper than phi: no climbing out
        assert_eq!(outward_rate(&p, 0.1, 40f64.to_radians(), 0.1), 0.0);
    }

    #[test]
    fn peak_fraction_is_a_linear_ramp_over_the_elastic_layer() {
        assert_eq!(peak_fraction(0.02, 0.02, 0.001), 0.0);
        assert!((peak_fraction(0.02, 0.0195, 0.001) - 0.5).abs() < 1e-12);
        assert_eq!(peak_fraction(0.02, 0.01, 0.001), 1.0);
        assert_eq!(peak_fraction(0.0, 0.0, 0.0), 0.0);
    }
}
