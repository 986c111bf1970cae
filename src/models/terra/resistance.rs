//! Soil resistance: passive earth pressure on the sunk wheel, applied through a limited
//! PI controller with anti-windup (Barthelmes 2018, eq. (24)-(26)).

use super::TerraParams;
use crate::models::earth_pressure::passive_sqrt;

/// Maximum resistance F_res, N (eq. (24)): the passive earth pressure of a smooth
/// vertical wall pushed through the soil to depth z (Terzaghi),
/// `0.5 rho g z^2 tan^2(pi/4 + phi/2) + 2 c z tan(pi/4 + phi/2)`.
///
/// As printed, and as used here, the expression has no wheel width: Terzaghi's
/// formula is per unit wall width, and TerRA takes its value as the force. TerRA is an
/// empirical model whose parameters are fitted to a wheel-soil pair (Barthelmes 2018,
/// section 2.1; Buse 2023, section 4.3.1), so the width is absorbed in the fit. With the
/// width multiplied in, the Table 1 wheel cannot hold the paper's 10 N drawbar pull in
/// its imprint (section 4.1), which the paper's result shows it does.
pub fn max_resistance(p: &TerraParams, z: f64) -> f64 {
    let z = z.max(0.0);
    let kp_sqrt = passive_sqrt(p.soil.phi);
    0.5 * p.soil.rho * p.g * z * z * kp_sqrt * kp_sqrt + 2.0 * p.soil.c * z * kp_sqrt
}

/// Result of the limited PI resistance, eq. (25)-(26).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resistance {
    /// Resistance force on the wheel along its forward direction, N; opposes the
    /// forward velocity, at most `F_res` in magnitude.
    pub force: f64,
    /// Rate of the integrator state, N m/s.
    pub integrator_rate: f64,
}

/// Eq. (25)-(26): `F~ = k_P (v_t F_res + k_I I)`, limited to +-F_res; the overrun
/// Delta_lim = F~ - limit(F~) winds the integrator back:
/// `dI/dt = v_t F_res - Delta_lim / (k_P k_awu)`. The force on the wheel is
/// `-limit(F~)`: it opposes the forward velocity v_t and holds a stuck wheel without
/// steady-state drift.
pub fn limited_pi(
    p: &TerraParams,
    forward_velocity: f64,
    f_res: f64,
    integrator: f64,
) -> Resistance {
    let raw = p.model.k_p * (forward_velocity * f_res + p.model.k_i * integrator);
    let limited = raw.clamp(-f_res, f_res);
    let overrun = raw - limited;
    Resistance {
        force: -limited,
        integrator_rate: forward_velocity * f_res - overrun / (p.model.k_p * p.model.k_awu),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passive_earth_pressure_grows_with_depth_squared_and_cohesion() {
        let mut p = TerraParams::table1();
        p.soil.c = 0.0;
        p.soil.phi = 30f64.to_radians();
        let f1 = max_resistance(&p, 0.01);
        let f2 = max_resistance(&p, 0.02);
        assert!((f2 / f1 - 4.0).abs() < 1e-12);
        // phi = 30 deg: K_p = tan^2(60 deg) = 3
        assert!((f1 - 0.5 * p.soil.rho * p.g * 1e-4 * 3.0).abs() < 1e-9);
        let mut cohesive = p;
        cohesive.soil.c = 50.0;
        assert!(max_resistance(&cohesive, 0.01) > f1);
        assert_eq!(max_resistance(&p, -0.01), 0.0);
    }

    #[test]
    fn the_pi_resistance_opposes_motion_is_limited_and_unwinds() {
        let p = TerraParams::table1();
        let r = limited_pi(&p, 0.001, 10.0, 0.0);
        assert!(r.force < 0.0 && r.force > -10.0);
        let r = limited_pi(&p, 1.0, 10.0, 0.0);
        assert_eq!(r.force, -10.0);
        // saturated: the anti-windup term cancels the integration of the overrun
        // (k_awu = 1: dI/dt = v F_res - (k_P v F_res - F_res)/k_P = F_res / k_P)
        assert!((r.integrator_rate - 10.0 / p.model.k_p).abs() < 1e-12);
        let r = limited_pi(&p, -1.0, 10.0, 0.0);
        assert_eq!(r.force, 10.0);
    }
}
