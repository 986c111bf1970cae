//! The "pure" Bekker wheel (Buse 2023, section 4.3.2; Wong 2008, ch. 2): a rigid wheel
//! whose load follows Bekker's pressure-sinkage law integrated over the contact arc,
//! with compaction resistance and a Janosi-Hanamoto thrust over the contact patch.
//! Memoryless: every force follows from the wheel's sinkage and speeds.

use crate::pmath;
use super::BekkerSoil;
use crate::models::wheel::{WheelForces, WheelInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Constants of the pure Bekker wheel beyond the soil's (scenario `bekker.model`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BekkerModel {
    /// Soil damping: a pressure of `damping` times the sinkage rate over the contact
    /// patch, Pa s/m (Bekker's law is static; without it a wheel dropped on the soil
    /// would bounce forever).
    pub damping: f64,
    /// Speed below which the shear displacement and the resistance's direction are
    /// regularized (linear in the slip speed), m/s.
    pub v_reg: f64,
}

impl Default for BekkerModel {
    fn default() -> Self {
        BekkerModel {
            damping: 2e4,
            v_reg: 0.01,
        }
    }
}

/// Load W (N) a rigid wheel of radius `r` and width `b` (m) carries at sinkage `z`
/// (m): W = b (k_c/b + k_phi) sqrt(D) z^((2n+1)/2) (3 - n)/3, D = 2 r (Bekker's
/// rigid-wheel formula, Wong 2008, ch. 2: the pressure p = k z^n integrated over the
/// front arc with the arc taken as a parabola).
pub fn load_at_sinkage(s: &BekkerSoil, r: f64, b: f64, z: f64) -> f64 {
    if z <= 0.0 {
        return 0.0;
    }
    b * s.k_eq(b) * (2.0 * r).sqrt() * pmath::powf(z, s.n + 0.5) * (3.0 - s.n) / 3.0
}

/// Static sinkage z_0 (m) of a rigid wheel under load `w` (N), the closed form:
/// z_0 = (3 W / ((3 - n) b (k_c/b + k_phi) sqrt(D)))^(2/(2n+1)) (Wong 2008, ch. 2).
pub fn static_sinkage(s: &BekkerSoil, r: f64, b: f64, w: f64) -> f64 {
    pmath::powf(3.0 * w / ((3.0 - s.n) * b * s.k_eq(b) * (2.0 * r).sqrt()), 2.0 / (2.0 * s.n + 1.0))
}

/// Compaction resistance R_c (N) at sinkage `z` (m): the work of pressing a rut of
/// width `b` to depth z per unit length, R_c = b (k_c/b + k_phi) z^(n+1)/(n+1)
/// (Bekker; Wong 2008, ch. 2).
pub fn compaction_resistance(s: &BekkerSoil, b: f64, z: f64) -> f64 {
    if z <= 0.0 {
        return 0.0;
    }
    b * s.k_eq(b) * pmath::powf(z, s.n + 1.0) / (s.n + 1.0)
}

/// Janosi-Hanamoto thrust (N) of a patch of area `area` (m^2) carrying `load` (N)
/// under uniform pressure, with the shear displacement growing linearly from 0 at
/// the front to `j_rear` (m, signed) at the rear:
/// F = (A c + W tan(phi)) [1 - K/j (1 - exp(-j/K))] (Wong 2008, ch. 2).
pub fn thrust(s: &BekkerSoil, area: f64, load: f64, j_rear: f64) -> f64 {
    let x = j_rear.abs() / s.k_shear;
    // 1 - (1 - e^-x)/x, by its series where the closed form cancels
    let fraction = if x < 1e-4 {
        x * (0.5 - x / 6.0)
    } else {
        1.0 + pmath::exp_m1(-x) / x
    };
    (area * s.c + load * pmath::tan(s.phi)) * fraction.copysign(j_rear)
}

/// Contact angle theta_1 (rad) of a wheel of radius `r` at sinkage `z` (the entry
/// angle from the bottom; a wheel sunk past its hub touches over half a turn).
pub fn entry_angle(r: f64, z: f64) -> f64 {
    pmath::acos(1.0 - (z / r).clamp(0.0, 2.0))
}

/// Forces on a wheel of radius `r`, width `b` (m) at `input`.
pub fn forces(s: &BekkerSoil, m: &BekkerModel, r: f64, b: f64, input: &WheelInput) -> WheelForces {
    let z = input.z;
    if z <= 0.0 {
        return WheelForces::default();
    }
    let theta1 = entry_angle(r, z);
    let patch = r * theta1; // contact arc from the bottom to the entry, m
    let area = b * patch;
    let w_static = load_at_sinkage(s, r, b, z);
    let c = m.damping * area;
    let normal = (w_static + c * input.z_rate).max(0.0);
    let v_rim = input.omega * r;
    let v = input.forward_velocity;
    // Wong's flat patch: the shear displacement grows along the patch with the slip,
    // j = i l at the rear (the skid form when braking); regularized at rest.
    let v_ref = v_rim.abs().max(v.abs()).max(m.v_reg);
    let j_rear = (v_rim - v) * patch / v_ref;
    let f_thrust = thrust(s, area, normal, j_rear);
    let resistance = compaction_resistance(s, b, z) * pmath::tanh(v / m.v_reg);
    in_contact(
        s,
        z,
        w_static,
        c,
        normal,
        f_thrust - resistance,
        -r * f_thrust,
    )
}

/// The forces of a Bekker wheel in contact at sinkage `z` with the static load
/// `w_static` (N) and damping coefficient `c` (N s/m): for the carrier's implicit
/// integration, the stiffness is the slope of Bekker's load formula, W (2n+1)/(2z)
/// (the load grows as z^(n+1/2)), and both are zero while the normal force is.
pub(crate) fn in_contact(
    s: &BekkerSoil,
    z: f64,
    w_static: f64,
    c: f64,
    normal: f64,
    tangential: f64,
    torque: f64,
) -> WheelForces {
    let pressing = normal > 0.0;
    WheelForces {
        normal,
        tangential,
        torque,
        stiffness: if pressing {
            w_static.max(0.0) * (2.0 * s.n + 1.0) / (2.0 * z)
        } else {
            0.0
        },
        damping: if pressing { c } else { 0.0 },
        in_contact: true,
        lateral: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soil() -> BekkerSoil {
        BekkerSoil::default()
    }

    #[test]
    fn the_static_sinkage_inverts_the_load_formula() {
        let s = soil();
        for w in [50.0, 200.0, 800.0] {
            let z0 = static_sinkage(&s, 0.25, 0.2, w);
            assert!((load_at_sinkage(&s, 0.25, 0.2, z0) / w - 1.0).abs() < 1e-12);
        }
    }

    /// Bekker's parabola approximation against the exact integral of p = k z^n over a
    /// parabolic arc, b k sqrt(D) z^(n+1/2) B(n+1, 1/2)/2: equal for n = 0 and n = 1.
    #[test]
    fn the_load_formula_is_exact_for_n_0_and_1() {
        for (n, half_beta) in [(0.0, 1.0), (1.0, 2.0 / 3.0)] {
            let s = BekkerSoil { n, ..soil() };
            let (r, b, z): (f64, f64, f64) = (0.25, 0.2, 0.03);
            let exact = b * s.k_eq(b) * (2.0 * r).sqrt() * pmath::powf(z, n + 0.5) * half_beta;
            assert!((load_at_sinkage(&s, r, b, z) / exact - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn thrust_rises_with_slip_and_saturates_at_the_mohr_coulomb_limit() {
        let s = soil();
        let (area, load) = (0.02, 200.0);
        let limit = area * s.c + load * pmath::tan(s.phi);
        let mut last = 0.0;
        for j in [0.001, 0.01, 0.05, 0.2, 1.0, 10.0] {
            let f = thrust(&s, area, load, j);
            assert!(f > last && f < limit, "j {j}: {f}");
            last = f;
        }
        assert!(last > 0.99 * limit);
        assert_eq!(thrust(&s, area, load, -0.05), -thrust(&s, area, load, 0.05));
        // the series and the closed form meet
        let k = s.k_shear;
        let (a, b) = (
            thrust(&s, area, load, 0.99e-4 * k),
            thrust(&s, area, load, 1.01e-4 * k),
        );
        assert!((b - a).abs() < 1e-5 * limit);
    }

    #[test]
    fn a_driven_wheel_pulls_and_a_towed_wheel_resists() {
        let s = soil();
        let m = BekkerModel::default();
        let z = static_sinkage(&s, 0.25, 0.2, 200.0);
        let at = |omega: f64, v: f64| {
            forces(
                &s,
                &m,
                0.25,
                0.2,
                &WheelInput {
                    z,
                    omega,
                    forward_velocity: v,
                    ..Default::default()
                },
            )
        };
        let driven = at(0.1 / 0.25 / 0.7, 0.1); // 30 % slip
        assert!(driven.tangential > 0.0 && driven.torque < 0.0);
        let towed = at(0.0, 0.1); // locked wheel dragged
        assert!(towed.tangential < 0.0 && towed.torque > 0.0);
        assert!((driven.normal - 200.0).abs() < 1e-9);
    }
}
