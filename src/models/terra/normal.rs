//! Normal direction: elasto-plastic spring with an elastic layer, and undercritical
//! damping (Barthelmes 2018, section 3.1.2, eq. (2)-(7)).

use crate::pmath;
use super::TerraParams;

/// Peak spring force F_peak = k_c z_peak^k_exp, N (eq. (2)).
pub fn peak_force(p: &TerraParams, z_peak: f64) -> f64 {
    p.model.k_c * pmath::powf(z_peak.max(0.0), p.model.k_exp)
}

/// Thickness of the elastic layer d_el = F_peak / k_el, m (eq. (5)).
pub fn elastic_layer(p: &TerraParams, f_peak: f64) -> f64 {
    f_peak / p.model.k_el
}

/// Spring force F_spring = k_el (z_eff - z_pl) with the plastic sinkage
/// z_pl = z_peak - d_el, N (eq. (3), (4)). Soil does not pull: zero below z_pl.
pub fn spring_force(p: &TerraParams, z_eff: f64, z_peak: f64) -> f64 {
    spring_force_at_peak(p, z_eff, z_peak, peak_force(p, z_peak))
}

/// [`spring_force`] with the peak force `f_peak` = [`peak_force`]`(p, z_peak)` already
/// known (the step computes it once).
pub fn spring_force_at_peak(p: &TerraParams, z_eff: f64, z_peak: f64, f_peak: f64) -> f64 {
    let z_pl = z_peak - elastic_layer(p, f_peak);
    (p.model.k_el * (z_eff - z_pl)).max(0.0)
}

/// Damping force F_damp = k_d 2 sqrt(k_c m) max(dz_eff/dt, 0), N (eq. (6)).
pub fn damping_force(p: &TerraParams, z_eff_rate: f64) -> f64 {
    p.model.k_d * 2.0 * (p.model.k_c * p.mass).sqrt() * z_eff_rate.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loading_follows_the_nonlinear_spring_and_unloading_the_elastic_layer() {
        let p = TerraParams::table1();
        // On the virgin curve (z_eff = z_peak) the force is eq. (2).
        for z in [0.001, 0.01, 0.03] {
            assert!(
                (spring_force(&p, z, z) - p.model.k_c * f64::powf(z, p.model.k_exp)).abs() < 1e-9
            );
        }
        // Unloading from z_peak: linear with k_el, zero at z_pl = z_peak - F_peak/k_el.
        let z_peak = 0.02;
        let f_peak = peak_force(&p, z_peak);
        let z_pl = z_peak - f_peak / p.model.k_el;
        assert!(
            (spring_force(&p, z_peak - 0.5 * (z_peak - z_pl), z_peak) - 0.5 * f_peak).abs() < 1e-9
        );
        assert_eq!(spring_force(&p, z_pl - 1e-4, z_peak), 0.0);
        // Damping only while sinking in.
        assert!(damping_force(&p, 0.1) > 0.0);
        assert_eq!(damping_force(&p, -0.1), 0.0);
    }
}
